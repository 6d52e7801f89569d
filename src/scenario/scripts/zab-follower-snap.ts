/**
 * A follower is down while more txns commit than the leader keeps in its committed log (500).
 * When it returns it is older than that log, and 3.8 tries the leader's on-disk txn log before
 * falling back to a snapshot (`LearnerHandler.syncFollower`, docs/zookeeper.md §7.4 step 4):
 *
 * - zab-follower-txnlog-diff: the whole log since the follower's last zxid is one file (the
 *   default snapCount never rolled it), within the size limit, so the leader sends DIFF with
 *   the missed txns read back from disk;
 * - zab-follower-snap: with a small snapCount the leader has rolled its log into many files
 *   and taken snapshots; the log since the follower's zxid spans several preallocated (64 MiB)
 *   files, far over a third of the snapshot's size, so the leader sends a SNAP (its whole
 *   tree), the follower loads it and persists it at NEWLEADER.
 *
 * Either way the follower converges, and a restart afterwards recovers the same tree from disk.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import { Op } from "../../zk/client/index.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";

async function followerMisses600Txns(s: ScriptContext, how: string): Promise<void> {
  const ens = new EnsembleView(s.sim, s);
  const leader = await ens.settled(30_000);
  if (leader === undefined) return;
  const follower = s.servers.find((id) => id !== leader)!;
  const zk = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 30_000 });
  const open = Ids.OPEN_ACL_UNSAFE;
  await zk.create("/bulk", "", open, CreateMode.PERSISTENT);
  s.fault({ kind: "crash", node: follower });
  s.note(`${follower} is down while 600 txns commit`);
  for (let i = 0; i < 60; i++) {
    await zk.multi(Array.from({ length: 10 }, (_, j) => Op.create(`/bulk/n${i * 10 + j}`, "", open, CreateMode.PERSISTENT)));
    // A multi is one txn: add single creates so the committed log really rolls past 500 txns.
    await zk.setData("/bulk", `round ${i}`, -1);
    for (let k = 0; k < 8; k++) await zk.setData("/bulk", `r${i}.${k}`, -1);
  }
  s.fault({ kind: "start", node: follower });
  await ens.settled(60_000, `${follower} rejoins`);
  const reader = await s.connect("c2", { servers: [follower] });
  s.expectEqual((await reader.getChildren("/bulk")).length, 600, `${follower} has all 600 nodes after ${how}`);
  s.fault({ kind: "restart", node: follower });
  await ens.settled(60_000, `${follower} restarts from what it persisted`);
  const again = await s.connect("c3", { servers: [follower] });
  s.expectEqual((await again.getChildren("/bulk")).length, 600, `${follower} recovered all 600 nodes after a restart`);
}

export const zabFollowerSnap: ScriptDef = {
  name: "zab-follower-snap",
  description: "a follower misses more txns than the committed log holds, and the txn log since then is too big: SNAP",
  run: (s) => followerMisses600Txns(s, "the SNAP"),
};

export const zabFollowerTxnLogDiff: ScriptDef = {
  name: "zab-follower-txnlog-diff",
  description: "a follower misses more txns than the committed log holds, and is caught up by DIFF from the leader's txn log",
  run: (s) => followerMisses600Txns(s, "the DIFF from the txn log"),
};
