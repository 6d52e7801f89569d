/**
 * bug-3911 — ZOOKEEPER-3911 (fixed in 3.5.9 / 3.6.3 / 3.7.0): in DIFF mode the learner ACKed
 * NEWLEADER before logging the diff txns; they were logged only at UPTODATE.
 *
 * Defect (3.5.8 `Learner.syncWithLeader`): NEWLEADER → write currentEpoch → ACK, the diff txns
 * still in memory; UPTODATE → log them (asynchronously). The leader counts the ACK, so the
 * txns of its initial history become committed while that learner has not logged them.
 *
 * Schedule (NJU trace): s3 leads epoch 1, /a commits; s2 crashes; /b is logged by s1, but s3
 * (slow disk) crashes before its own write is durable, so /b is on s1 only, uncommitted. s3
 * restarts (slow disk); s1 leads epoch 2 with s3: DIFF /b, NEWLEADER, s3 writes currentEpoch 2
 * and ACKs, s1 is established — /b committed. s3 crashes before it has logged /b, and s1 crashes.
 * s3 (currentEpoch 2, last zxid /a) and s2 (currentEpoch 1) restart: s3 leads epoch 3 without /b.
 *
 * Invariant: zab.committed-durability (LeaderLogCompleteness at s3's establishment of epoch 3).
 * Without the bug s3 logs and fsyncs /b before it writes currentEpoch and ACKs.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { leadsEpoch, outcome, rejoinAndExpectB } from "./bug-support.js";

export const bug3911: ScriptDef = {
  name: "bug-3911",
  description: "ZOOKEEPER-3911: a DIFF learner ACKs NEWLEADER before logging the diff; the committed txn is lost",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const first = await ens.settled(30_000);
    if (first === undefined) return;
    const [holder, absent] = s.servers.filter((id) => id !== first) as [string, string];
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [first], sessionTimeoutMs: 60_000 });
    await zk.create("/a", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "crash", node: absent });
    s.fault({ kind: "disk", node: first, fault: "slow-fsync", fsyncLatencyMs: 500 });
    const b = outcome(zk.create("/b", "", open, CreateMode.PERSISTENT));
    await s.sleepMs(100);
    s.note(`/b is logged by ${holder}; ${first} crashes before its own write of /b is durable`);
    s.fault({ kind: "crash", node: first });
    s.expectEqual(await b, "CONNECTIONLOSS", "the client cannot know whether /b committed");
    s.fault({ kind: "disk", node: first, fault: "slow-fsync", fsyncLatencyMs: 1000 });
    s.fault({ kind: "start", node: first });
    if (!(await leadsEpoch(s, ens, holder, 2, 60_000))) return;
    s.note(`${holder} established epoch 2 with ${first} (DIFF /b): /b is committed; both crash`);
    s.fault({ kind: "crash", node: first });
    s.fault({ kind: "crash", node: holder });
    s.fault({ kind: "disk", node: first, fault: "ok" });
    s.fault({ kind: "start", node: first });
    s.fault({ kind: "start", node: absent });
    const next = await ens.settled(60_000, `${first} and ${absent} elect a leader`);
    if (next !== undefined) s.note(`${next} leads; ${holder} rejoins`);
    await rejoinAndExpectB(s, ens, holder, "/b, committed by the NEWLEADER quorum of epoch 2, survived");
  },
};
