/**
 * zab-follower-big-snapshot: which sync a returning follower gets when the leader's snapshot is
 * large (docs/zookeeper.md §7.4 step 4; `zookeeper.snapshotSizeFactor`, default 0.33).
 *
 * A follower older than the leader's committed log (500 txns) is synced from the leader's txn log
 * only if that log is smaller than snapshotSizeFactor × the newest snapshot's size
 * (`ZKDatabase.calculateTxnLogSizeLimit`); otherwise it gets a SNAP. Here the follower misses 24
 * znodes of 1 MB each and then 600 small txns of a new epoch: the leader restarts after the big
 * writes, the two servers up elect again, and the new leader starts with a clean snapshot
 * (`Leader.lead` → `loadData`) of some 24 MB, which also rolls its log. The log since the follower's last zxid is then two files, the second
 * counted at its preallocated 64 MiB (3.8's `FileTxnIterator.getStorageSize` leaves out the file
 * it opened first): more than a third of the snapshot, so 3.8 sends a SNAP. (Sizes: the limit
 * is some 8 MB; a DIFF would need the factor applied the other way, some 73 MB.) Either way the
 * follower converges and holds every node.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import { Op } from "../../zk/client/index.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { whenTrace } from "./bug-support.js";

const BIG_NODES = 24;
const BIG_BYTES = 1_000_000;

export const zabFollowerBigSnapshot: ScriptDef = {
  name: "zab-follower-big-snapshot",
  description: "a follower misses 24 MB of znodes and 600 txns of a new epoch; the new leader's 24 MB snapshot makes its two-file txn log too big to replay: SNAP",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const follower = s.servers.find((id) => id !== leader)!;
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: s.servers.filter((id) => id !== follower), sessionTimeoutMs: 30_000 });
    await zk.create("/big", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "crash", node: follower });
    const big = "x".repeat(BIG_BYTES);
    for (let i = 0; i < BIG_NODES; i++) await zk.create(`/big/n${i}`, big, open, CreateMode.PERSISTENT);
    // The leader restarts: with the follower down, the two left elect again, and the new leader
    // (either of them) starts with a clean snapshot.
    s.fault({ kind: "restart", node: leader });
    const next = await ens.settled(60_000, `a leader is elected again after ${leader} restarts`);
    if (next === undefined) return;
    s.note(`${follower} missed ${BIG_NODES} nodes of ${BIG_BYTES} bytes; ${next} leads with a clean snapshot of them`);
    await zk.create("/small", "", open, CreateMode.PERSISTENT);
    for (let i = 0; i < 60; i++) {
      await zk.multi(Array.from({ length: 10 }, (_, j) => Op.create(`/small/n${i * 10 + j}`, "", open, CreateMode.PERSISTENT)));
      for (let k = 0; k < 9; k++) await zk.setData("/small", `r${i}.${k}`, -1);
    }
    const sid = Number(follower.replace(/^\D+/, ""));
    const sync = whenTrace(s, `${next} syncs ${follower}`, (e) => e.kind === "zab.sync" && e.node === next && e.fields.learner === sid, 60_000);
    s.fault({ kind: "start", node: follower });
    const ev = await sync;
    s.expectEqual(ev?.kind === "zab.sync" ? ev.fields.mode : undefined, "SNAP", `${next} sends ${follower} a SNAP: its txn log since then is over a third of its snapshot`);
    await ens.settled(60_000, `${follower} rejoins`);
    const reader = await s.connect("c2", { servers: [follower] });
    await reader.sync("/");
    s.expectEqual([(await reader.getChildren("/big")).length, (await reader.getChildren("/small")).length], [BIG_NODES, 600], `${follower} holds every node`);
  },
};
