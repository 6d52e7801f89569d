/**
 * bug-4646 — ZOOKEEPER-4646 (fixed in 3.9.3): the learner's logging of the synced txns at
 * NEWLEADER was asynchronous, so ACK(NEWLEADER) could precede their fsync.
 *
 * Defect (3.8.0 `Learner.syncWithLeader`): NEWLEADER → write currentEpoch → hand the buffered
 * txns to the SyncRequestProcessor (which fsyncs whenever it gets to it) → ACK at once. The
 * leader counts that ACK, is established, and the txns it synced become committed — while the
 * learner may not have them on disk.
 *
 * Schedule (NJU trace): s3 leads epoch 1, /a commits; s1 crashes; /b reaches only s3's log
 * (s3 → s2 is cut), then s2 and s3 crash. s3 restarts and leads epoch 2 with s2 (slow disk): a
 * DIFF with /b, NEWLEADER, s2 writes currentEpoch 2, queues /b and ACKs — s3 is established, /b
 * is committed. s2 and s3 crash before s2's fsync of /b. s2 and s1 restart: s2 (currentEpoch 2,
 * last zxid /a) leads epoch 3 with s1 (currentEpoch 1) without /b.
 *
 * Invariant: zab.committed-durability (LeaderLogCompleteness at s2's establishment of epoch 3).
 * Without the bug s2 fsyncs /b before it writes currentEpoch and ACKs.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { leadsEpoch, outcome, rejoinAndExpectB } from "./bug-support.js";

export const bug4646: ScriptDef = {
  name: "bug-4646",
  description: "ZOOKEEPER-4646: a learner ACKs NEWLEADER before its synced txns are fsynced; the committed txn is lost",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const [absent, learner] = s.servers.filter((id) => id !== leader) as [string, string];
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 60_000 });
    await zk.create("/a", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "crash", node: absent });
    s.fault({ kind: "cut", from: [leader], to: [learner], oneWay: true });
    const b = outcome(zk.create("/b", "", open, CreateMode.PERSISTENT));
    await s.sleepMs(100);
    s.note(`/b is only in ${leader}'s log; ${learner} and ${leader} crash`);
    s.fault({ kind: "crash", node: learner });
    s.fault({ kind: "crash", node: leader });
    s.fault({ kind: "heal" });
    s.expectEqual(await b, "CONNECTIONLOSS", "the client cannot know whether /b committed");
    s.fault({ kind: "disk", node: learner, fault: "slow-fsync", fsyncLatencyMs: 1000 });
    s.fault({ kind: "start", node: leader });
    s.fault({ kind: "start", node: learner });
    if (!(await leadsEpoch(s, ens, leader, 2, 60_000))) return;
    s.note(`${leader} established epoch 2 with ${learner}: /b is committed; both crash`);
    s.fault({ kind: "crash", node: learner });
    s.fault({ kind: "crash", node: leader });
    s.fault({ kind: "disk", node: learner, fault: "ok" });
    s.fault({ kind: "start", node: learner });
    s.fault({ kind: "start", node: absent });
    const next = await ens.settled(60_000, `${learner} and ${absent} elect a leader`);
    if (next !== undefined) s.note(`${next} leads; ${leader} rejoins`);
    await rejoinAndExpectB(s, ens, leader, "/b, committed by the NEWLEADER quorum of epoch 2, survived");
  },
};
