/**
 * ensemble-lookup-after-loss: a client whose write was lost with its follower looks it up through
 * the leader, and finds it (docs/zookeeper.md §6, FIFO client order; the look-up a recipe does
 * after CONNECTIONLOSS, as Curator's protected mode does for a lock node).
 *
 * c1 is attached to a follower F and creates /job. F forwards the create to the leader and
 * crashes as the leader receives it; the leader's and the other follower's disks are slow (4 s fsyncs), so the
 * create stays uncommitted while c1, having heard nothing for its read timeout, fails the create
 * with CONNECTIONLOSS and re-attaches its session through the leader. c1 then asks whether /job
 * exists. The leader still holds c1's create, proposed for c1's session: the session's requests
 * are served in the order the client sent them, so the read waits behind that write (3.8's
 * CommitProcessor queues a session's reads behind its pending writes, forwarded ones included)
 * and answers that /job exists. A look-up answered before the create applies would tell the
 * client its create never happened, and a recipe would create a second node.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { outcome, whenTrace } from "./bug-support.js";

const SESSION_TIMEOUT_MS = 12_000;
/** Longer than c1 takes to re-attach, shorter than its read timeout (2/3 × 12 s): the look-up waits, and is answered. */
const FSYNC_MS = 4_000;

export const ensembleLookupAfterLoss: ScriptDef = {
  name: "ensemble-lookup-after-loss",
  description: "a create lost with its follower, looked up through the leader while still uncommitted: the read waits behind it and finds it",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const [follower, other] = s.servers.filter((id) => id !== leader) as [string, string];
    // c1 names the follower and the leader; it attaches to the follower.
    s.fault({ kind: "cut", from: ["c1"], to: [leader] });
    const zk = await s.connect("c1", { servers: [follower, leader], sessionTimeoutMs: SESSION_TIMEOUT_MS });
    s.fault({ kind: "heal" });
    s.expectEqual(zk.cnxn.currentAddress?.host, follower, `c1 attached to ${follower}`);
    for (const node of [leader, other]) s.fault({ kind: "disk", node, fault: "slow-fsync", fsyncLatencyMs: FSYNC_MS });
    const forwarded = whenTrace(s, `${leader} receives the create ${follower} forwards`, (e) => e.kind === "deliver" && e.node === leader && e.peer === follower && e.detail === "REQUEST", 5_000);
    const created = outcome(zk.create("/job", "c1", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
    await forwarded;
    s.fault({ kind: "crash", node: follower });
    s.note(`${follower} forwarded c1's create to ${leader} and crashed; the create waits for slow fsyncs`);
    s.expectEqual(await created, "CONNECTIONLOSS", "the create's outcome is unknown to c1");
    await s.waitFor(() => zk.getState() === "CONNECTED", 20_000, "c1 re-attaches its session");
    s.expectEqual(zk.cnxn.currentAddress?.host, leader, `c1 re-attached through ${leader}`);
    const found = await zk.exists("/job");
    s.expect(found !== null, "the look-up after CONNECTIONLOSS, sent after the create in the same session, sees it");
    for (const node of [leader, other]) s.fault({ kind: "disk", node, fault: "ok" });
    s.fault({ kind: "start", node: follower });
    s.conclude("the session's read waited behind its own forwarded create at the leader");
    await zk.close();
  },
};
