/**
 * bug-4882 — ZOOKEEPER-4882 (open upstream; in 3.8.0): a follower whose txn log refused a write
 * keeps in memory a txn its log lacks, and rejoins from it.
 *
 * Defect: a follower applies a txn when the leader commits it, whether or not its own log holds
 * it yet. When the log then refuses the write (a full disk), the follower's role ends and
 * `ZooKeeperServer.shutdown` only fast-forwards the tree from the log: the tree stays ahead of
 * the log. The follower votes and syncs from its last applied zxid, so the leader's DIFF starts
 * after the txn its log lacks; the log keeps that hole, and the next restart loses the txn.
 *
 * Schedule: s3 leads; s1's disk is slow. /b is proposed: s1 logs it and starts a long fsync, and
 * /b commits with s2. /c is proposed and committed by s3 and s2; s1 applies it while /c still
 * waits in its sync queue behind the fsync of /b. s1's disk fills: its append of /c is refused
 * and s1 goes LOOKING. The disk is freed; s1 rejoins s3, /d commits on all three, and s1
 * restarts.
 *
 * Invariant: zab.prefix-consistency — after the restart s1 replays a log that holds /d but not
 * /c: it delivers /d over a hole (and the script's read of s1 misses /c). Without the bug s1
 * reloads its tree from its disk (at /b), announces that in the trace as a restart does, and the
 * DIFF gives it /c again, which it logs: its log has no hole. A server that reloads without
 * announcing it (the defect the simulator had) is caught too: s1 delivers /c twice.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { isZab, whenTrace } from "./bug-support.js";

export const bug4882: ScriptDef = {
  name: "bug-4882",
  description: "ZOOKEEPER-4882: a follower whose log refused a txn it had applied rejoins from it; its log keeps a hole a restart exposes",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const [slow] = s.servers.filter((id) => id !== leader) as [string, string];
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 60_000 });
    await zk.create("/a", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "disk", node: slow, fault: "slow-fsync", fsyncLatencyMs: 1000 });
    const appliesCreate = (what: string): ReturnType<typeof whenTrace> => whenTrace(s, `${slow} applies ${what}`, (e) => isZab(e, "zk.apply", slow, { op: "create" }), 5_000);
    const appliedB = appliesCreate("/b");
    await zk.create("/b", "", open, CreateMode.PERSISTENT);
    if ((await appliedB) === undefined) return;
    const appliedC = appliesCreate("/c");
    await zk.create("/c", "", open, CreateMode.PERSISTENT);
    if ((await appliedC) === undefined) return;
    s.note(`${slow} applied /c, which waits in its sync queue behind the fsync of /b; its disk fills`);
    s.fault({ kind: "disk", node: slow, fault: "full" });
    const ended = await whenTrace(s, `${slow}'s role ends on the refused append`, (e) => isZab(e, "zab.role.ended", slow), 5_000);
    if (ended === undefined) return;
    s.fault({ kind: "disk", node: slow, fault: "ok" });
    await ens.settled(60_000, `${slow} rejoins ${leader}`);
    await zk.create("/d", "", open, CreateMode.PERSISTENT);
    await s.sleepMs(500);
    s.fault({ kind: "restart", node: slow });
    await ens.settled(60_000, `${slow} restarts and rejoins`);
    const reader = await s.connect("c2", { servers: [slow] });
    await reader.sync("/");
    const onSlow = (await reader.getChildren("/")).filter((n) => n !== "zookeeper").sort();
    s.expectEqual(onSlow, ["a", "b", "c", "d"], `${slow} holds every committed node after its restart`);
  },
};
