/**
 * bug-4685 — ZOOKEEPER-4685 (fixed in 3.9.3): the learner's sync thread ACKed a diff proposal
 * before the main thread sent ACK(NEWLEADER).
 *
 * Defect (3.8.0 `Learner.syncWithLeader`): at NEWLEADER the buffered diff txns go to the
 * asynchronous SyncRequestProcessor, which fsyncs and ACKs each; the main thread then writes
 * ACK(NEWLEADER). Nothing orders the two, and when the sync thread wins, the leader's
 * LearnerHandler reads ACK(/b) as the NEWLEADER ACK: "from a different epoch", ignored — that
 * learner never counts toward the NEWLEADER quorum. (With the bug on, the simulator takes the
 * interleaving where the sync thread wins.)
 *
 * Schedule (NJU trace): s3 leads epoch 1, /a commits; /b commits on s3 and s1 (s3 → s2 is cut);
 * s3 crashes. s1 leads epoch 2 with s2: DIFF /b, NEWLEADER; s2's sync thread sends ACK(/b) first.
 * s1 never gets a quorum of NEWLEADER ACKs, abandons after initLimit and a new election follows.
 *
 * Invariant: zab.flags (ackInconsistent: a NEWLEADER ACK of another zxid), plus the needless
 * unavailability of an initLimit. Without the bug the proposal ACKs follow ACK(NEWLEADER).
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { rejoinAndExpectB } from "./bug-support.js";

export const bug4685: ScriptDef = {
  name: "bug-4685",
  description: "ZOOKEEPER-4685: a learner's proposal ACK overtakes its NEWLEADER ACK; the leader cannot establish its epoch",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const [holder, learner] = s.servers.filter((id) => id !== leader) as [string, string];
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 60_000 });
    await zk.create("/a", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "cut", from: [leader], to: [learner], oneWay: true });
    await zk.create("/b", "", open, CreateMode.PERSISTENT);
    s.note(`/b committed by ${leader} and ${holder}; ${learner} missed it; ${leader} crashes`);
    s.fault({ kind: "crash", node: leader });
    s.fault({ kind: "heal" });
    const next = await ens.settled(60_000, `${holder} and ${learner} elect a leader`);
    if (next !== undefined) s.note(`${next} leads`);
    await rejoinAndExpectB(s, ens, leader);
  },
};
