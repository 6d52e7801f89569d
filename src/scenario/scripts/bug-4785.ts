/**
 * bug-4785 — ZOOKEEPER-4785 (fixed in 3.8.5 / 3.9.2): txn loss in a race inside 3.8's
 * `Learner.syncWithLeader`.
 *
 * Defect: in DIFF mode the learner wrote currentEpoch and sent ACK(NEWLEADER) while the diff txns
 * were only queued for the asynchronous sync processor, not yet on its disk.
 *
 * Schedule (after the fix's regression test): s3 leads epoch 1 and commits /a; s1 crashes; /b
 * commits on s2 and s3; s2 crashes and s3 steps down. s1 restarts with a slow disk and syncs with
 * s3 for epoch 2 by a DIFF holding /b: it writes currentEpoch 2 and ACKs NEWLEADER, s3 is
 * established; then s1 and s3 crash before s1's write of /b is durable. s2 (currentEpoch 1, last
 * zxid /b) and s1 (currentEpoch 2, last zxid /a) restart: s1 wins on the epoch, leads epoch 3
 * and truncates s2.
 *
 * Invariant: zab.committed-durability — CommittedLogDurability at s2's TRUNC and
 * LeaderLogCompleteness when s1 establishes epoch 3: committed /b is lost cluster-wide. Without
 * the bug s1 makes /b durable before it writes currentEpoch and ACKs, so it recovers with /b.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { leadsEpoch, rejoinAndExpectB } from "./bug-support.js";

export const bug4785: ScriptDef = {
  name: "bug-4785",
  description: "ZOOKEEPER-4785: a learner ACKs NEWLEADER before its diff txns are durable, crashes, and later leads without them",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const [lagging, other] = s.servers.filter((id) => id !== leader) as [string, string];
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 60_000 });
    await zk.create("/a", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "crash", node: lagging });
    await zk.create("/b", "", open, CreateMode.PERSISTENT);
    s.note(`${lagging} missed /b, committed by ${leader} and ${other}; now ${other} crashes`);
    s.fault({ kind: "crash", node: other });
    s.fault({ kind: "disk", node: lagging, fault: "slow-fsync", fsyncLatencyMs: 1000 });
    s.fault({ kind: "start", node: lagging });
    if (!(await leadsEpoch(s, ens, leader, 2, 60_000))) return;
    s.note(`${leader} established epoch 2 with ${lagging}, whose DIFF held /b; both crash now`);
    s.fault({ kind: "crash", node: lagging });
    s.fault({ kind: "crash", node: leader });
    s.fault({ kind: "disk", node: lagging, fault: "ok" });
    s.fault({ kind: "start", node: other });
    s.fault({ kind: "start", node: lagging });
    const next = await ens.settled(60_000, `${lagging} and ${other} elect a leader`);
    if (next !== undefined) s.note(`${next} leads; ${leader} rejoins`);
    await rejoinAndExpectB(s, ens, leader);
  },
};
