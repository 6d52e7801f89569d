/**
 * bug-4643 — ZOOKEEPER-4643 (fixed in 3.9.3): the learner wrote currentEpoch at NEWLEADER before
 * the txns it had just been synced were durable.
 *
 * Defect (3.8.0 `Learner.syncWithLeader`): NEWLEADER → write currentEpoch → hand the diff txns
 * to the asynchronous sync processor → ACK. A crash after the currentEpoch write and before the
 * txn log write leaves a server whose currentEpoch claims an epoch whose history it lacks — and
 * the election trusts currentEpoch first.
 *
 * Schedule (NJU trace, 3 servers): s3 leads epoch 1 and commits /a; /b is logged and ACKed by s2
 * only (s3 → s1 is cut) and committed; s3 crashes. s2 leads epoch 2 with s1 (slow disk, slow
 * link to s2): s1 gets /b by DIFF, writes currentEpoch 2, and crashes after that write is
 * durable but before /b is (its ACK is still on the wire and dies with it). s2 crashes; s3 and
 * s1 restart. s1 (currentEpoch 2, last zxid /a) beats s3 (currentEpoch 1, last zxid /b), leads
 * epoch 3 and truncates s3.
 *
 * Invariant: zab.committed-durability — CommittedLogDurability at s3's TRUNC, LeaderLogCompleteness
 * at s1's establishment: committed /b is lost. Without the bug /b is durable before currentEpoch
 * is written, so s1 recovers with it.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { rejoinAndExpectB } from "./bug-support.js";

export const bug4643: ScriptDef = {
  name: "bug-4643",
  description: "ZOOKEEPER-4643: a learner writes currentEpoch before its synced txns are durable, crashes, and later leads without them",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const [lagging, other] = s.servers.filter((id) => id !== leader) as [string, string];
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 60_000 });
    await zk.create("/a", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "cut", from: [leader], to: [lagging], oneWay: true });
    await zk.create("/b", "", open, CreateMode.PERSISTENT);
    s.note(`/b committed by ${leader} and ${other}; ${lagging} never saw it; ${leader} crashes`);
    s.fault({ kind: "crash", node: leader });
    s.fault({ kind: "heal" });
    s.fault({ kind: "disk", node: lagging, fault: "slow-fsync", fsyncLatencyMs: 1000 });
    s.fault({ kind: "clog", from: [lagging], to: [other], extraDelayMs: 500, oneWay: true });
    const epochWritten = await s.waitFor(() => ens.peer(lagging)?.currentEpoch === 2, 60_000, `${lagging} writes currentEpoch 2 at NEWLEADER`);
    if (!epochWritten) return;
    // The currentEpoch write is durable after one (slow) fsync; crash after it, before the next.
    await s.sleepMs(1200);
    s.note(`${lagging} crashes after its currentEpoch write became durable`);
    s.fault({ kind: "crash", node: lagging });
    s.fault({ kind: "crash", node: other });
    s.fault({ kind: "disk", node: lagging, fault: "ok" });
    s.fault({ kind: "unclog" });
    s.fault({ kind: "start", node: leader });
    s.fault({ kind: "start", node: lagging });
    const next = await ens.settled(60_000, `${leader} and ${lagging} elect a leader`);
    if (next !== undefined) s.note(`${next} leads; ${other} rejoins`);
    await rejoinAndExpectB(s, ens, other);
  },
};
