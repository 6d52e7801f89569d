/**
 * bug-335 — ZOOKEEPER-335 (pre-Zab 1.0, 3.1–3.3; fixed by the acceptedEpoch/currentEpoch files of
 * ZOOKEEPER-1081/1082 in 3.4.0): two leaders for one epoch, two txns under one zxid.
 *
 * Defect: a new leader's epoch was epoch(its last logged zxid) + 1 and was persisted nowhere until
 * the first txn of the epoch was logged; learners checked the leader's epoch only against their
 * own last zxid. An epoch whose leader dies before any of its txns reaches a follower leaves no
 * trace, and the next leader picks the same epoch again.
 *
 * Schedule (SAMC trace shape, 5 servers): s5 leads epoch 1 and commits /a; s5 crashes. s4 leads
 * epoch 2 with s1–s3; s4 → s1–s3 is cut, a client write reaches s4, which logs it as (2,1) and
 * crashes before sending it. s1–s3 elect s3, whose last zxid is still (1,n): it picks epoch 2
 * again, is established, and logs a different txn as (2,1).
 *
 * Invariant: zab.leadership (Leadership2: epoch 2 established by s4 and by s3), and
 * zab.zxid-uniqueness ((2,1) names two txns). Without the bug s3 proposes max(acceptedEpoch)+1
 * = 3: every follower accepted epoch 2 from s4 and has it on disk.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { outcome } from "./bug-support.js";

export const bug335: ScriptDef = {
  name: "bug-335",
  description: "ZOOKEEPER-335: an epoch persisted nowhere is chosen twice; two leaders mint the same zxid",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const first = await ens.settled(30_000);
    if (first === undefined) return;
    const open = Ids.OPEN_ACL_UNSAFE;
    const followers = s.servers.filter((id) => id !== first);
    const zk = await s.connect("c1", { servers: followers.slice(0, 3), sessionTimeoutMs: 120_000 });
    await zk.create("/a", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "crash", node: first });
    const second = await ens.settled(60_000, "the remaining four elect a leader");
    if (second === undefined) return;
    const rest = followers.filter((id) => id !== second);
    s.note(`${second} leads epoch 2; its first proposal will reach only its own log`);
    await s.waitFor(() => zk.getState() === "CONNECTED", 30_000, "c1 reconnects");
    s.fault({ kind: "cut", from: [second], to: rest, oneWay: true });
    const lost = outcome(zk.create("/lost", "", open, CreateMode.PERSISTENT));
    await s.sleepMs(100);
    s.fault({ kind: "crash", node: second });
    s.fault({ kind: "heal" });
    s.expectEqual(await lost, "CONNECTIONLOSS", "the write that reached only the crashed leader has no known outcome");
    const third = await ens.settled(60_000, "the remaining three elect a leader");
    if (third !== undefined) s.note(`${third} leads the next epoch`);
    await s.waitFor(() => zk.getState() === "CONNECTED", 30_000, "c1 reconnects");
    await zk.create("/b", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "start", node: second });
    s.fault({ kind: "start", node: first });
    await ens.settled(60_000, `${second} and ${first} rejoin`);
    const reader = await s.connect("c2");
    await reader.sync("/");
    s.expect((await reader.exists("/lost")) === null, "the write no quorum saw is gone");
  },
};
