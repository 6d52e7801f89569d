/**
 * bug-4712 — ZOOKEEPER-4712 (fixed in 3.9.3, PR 2154): `Follower.shutdown()` did not stop the
 * SyncRequestProcessor.
 *
 * Defect: when a follower's role ends, a proposal still queued in its sync processor is written
 * to the txn log later, in the background — after the peer went LOOKING and reloaded (fast-
 * forwarded) its tree. The peer then advertises, and syncs from, a zxid below what its log holds.
 *
 * Schedule (NJU trace): s3 leads epoch 1; s1 has a slow disk. /b is proposed: s1 writes it and
 * starts a long fsync; /b commits with s2. s3 → s2 is cut and /c is proposed: s1 queues it behind
 * the fsync; s3 crashes. s1 goes LOOKING with its tree at /b; its sync thread then logs /c. s2
 * (at /b) leads epoch 2 with s1, which reported /b: an empty DIFF, and s1 accepts NEWLEADER and
 * UPTODATE with the stale /c in its log. New writes land after /c in s1's log; when s1 restarts
 * its tree holds /c, a txn no other server delivered.
 *
 * Invariant: zab.prefix-consistency (HistoryConsistency/ProcessConsistency while syncing, then
 * PrefixConsistency once s1 replays its log). Without the bug the processor writes /c out before
 * the tree is reloaded: s1 advertises /c, wins the election and /c is in the new epoch's history.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { outcome } from "./bug-support.js";

export const bug4712: ScriptDef = {
  name: "bug-4712",
  description: "ZOOKEEPER-4712: a follower's sync processor keeps logging after the follower went LOOKING",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const [slow, other] = s.servers.filter((id) => id !== leader) as [string, string];
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 60_000 });
    await zk.create("/a", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "disk", node: slow, fault: "slow-fsync", fsyncLatencyMs: 1000 });
    await zk.create("/b", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "cut", from: [leader], to: [other], oneWay: true });
    const c = outcome(zk.create("/c", "", open, CreateMode.PERSISTENT));
    await s.sleepMs(50);
    s.note(`/c waits in ${slow}'s sync queue behind the fsync of /b; ${leader} crashes`);
    s.fault({ kind: "crash", node: leader });
    s.fault({ kind: "heal" });
    s.expectEqual(await c, "CONNECTIONLOSS", "the client cannot know whether /c committed");
    const next = await ens.settled(60_000, `${slow} and ${other} elect a leader`);
    if (next !== undefined) s.note(`${next} leads epoch 2`);
    s.fault({ kind: "disk", node: slow, fault: "ok" });
    const writer = await s.connect("c2", { servers: [slow, other], sessionTimeoutMs: 60_000 });
    await writer.create("/d", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "restart", node: slow });
    await ens.settled(60_000, `${slow} restarts and rejoins`);
    await writer.create("/e", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "start", node: leader });
    await ens.settled(60_000, `${leader} rejoins`);
    const reader = await s.connect("c1", { servers: [slow] });
    await reader.sync("/");
    const onSlow = (await reader.getChildren("/")).filter((n) => n !== "zookeeper").sort();
    const onOther = (await writer.getChildren("/")).filter((n) => n !== "zookeeper").sort();
    s.expectEqual(onSlow, onOther, `${slow} and the others hold the same nodes`);
  },
};
