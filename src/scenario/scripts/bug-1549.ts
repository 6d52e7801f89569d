/**
 * bug-1549 — ZOOKEEPER-1549 (open upstream): a learner truncated by its leader reloads a dirty
 * snapshot holding the txns the TRUNC removed.
 *
 * Defect (3.8.0's behaviour): `FileTxnSnapLog.truncateLog` cuts the txn log and leaves every
 * snapshot in place; `ZKDatabase.truncateLog` then reloads the newest snapshot, and the learner
 * sets its last processed zxid to the TRUNC's. A leader writes a clean snapshot as it starts
 * leading (`Leader.lead` → `zk.loadData()` → `takeSnapshot()`), of every txn in its log,
 * committed or not; one elected with a txn nobody else logged, that fails to establish, and
 * rejoins a leader without that txn is truncated below it — and reloads it from that snapshot.
 * The simulator's default removes the snapshots named above the TRUNC zxid
 * (file-txn-snap-log.ts `truncateLog`), so its tree is the truncated log's.
 *
 * Schedule: L leads epoch 1 and commits /a, /b. L's links to the others are cut one way and a
 * client writes /t: only L logs it. The others crash (L loses its quorum), the cut heals, they
 * start again and elect L (its log is the longest): the moment L leads, its snapshot (with /t)
 * written, L is partitioned from them. The two elect a leader of their own; the partition heals,
 * L gives up (no quorum within initLimit) and rejoins it. L's last zxid (/t's) is beyond the new
 * leader's committed log (nothing committed in the new epoch yet), so the leader sends TRUNC to
 * /b (3.8's `syncFollower`). Then /c0…/c15 commit on all three.
 *
 * Invariant: zab.identical-trees — with the bug, L's tree holds /t, never committed, when it has
 * applied /c15, the others' do not (a fresh client on L also reads /t: scenario.expect). Without
 * it, L reloads /a, /b and applies /c0…/c15 like the others.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { isZab, outcome, whenTrace } from "./bug-support.js";

export const bug1549: ScriptDef = {
  name: "bug-1549",
  description: "ZOOKEEPER-1549: a learner truncated below its own lead-time snapshot reloads it, uncommitted txns included",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const others = s.servers.filter((id) => id !== leader);
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 60_000 });
    await zk.create("/a", "", open, CreateMode.PERSISTENT);
    await zk.create("/b", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "cut", from: [leader], to: others, oneWay: true });
    const t = outcome(zk.create("/t", "", open, CreateMode.PERSISTENT));
    await s.sleepMs(100);
    s.note(`/t is only in ${leader}'s log; the others crash and come back, and elect ${leader}`);
    for (const id of others) s.fault({ kind: "crash", node: id });
    s.fault({ kind: "heal" });
    s.expectEqual(await t, "CONNECTIONLOSS", "the client cannot know whether /t committed");
    const leadsAgain = whenTrace(s, `${leader} leads again`, (e) => isZab(e, "zab.phase", leader, { phase: "DISCOVERY" }), 60_000);
    for (const id of others) s.fault({ kind: "start", node: id });
    if ((await leadsAgain) === undefined) return;
    s.note(`${leader} leads, its snapshot (with /t) written; it is partitioned from the others before they connect`);
    s.fault({ kind: "partition", groups: [[leader, "c1"], [...others, "c2"]] });
    const servingOthers = () => others.every((id) => ens.peer(id)?.serving === true);
    if (!(await s.waitFor(servingOthers, 60_000, `${others.join(" and ")} elect a leader and serve`))) return;
    const next = others.find((id) => ens.peer(id)?.state === "LEADING")!;
    s.note(`${next} leads; the partition heals and ${leader} rejoins it (TRUNC to /b: its /t is beyond ${next}'s history)`);
    s.fault({ kind: "heal" });
    if ((await ens.settled(60_000, `${leader} rejoins ${next}`)) === undefined) return;
    const writer = await s.connect("c2", { servers: others, sessionTimeoutMs: 60_000 });
    // Past the 16th zxid of the epoch, where every server samples its tree's digest (zab-trace.ts).
    for (let i = 0; i < 16; i++) await writer.create(`/c${i}`, "", open, CreateMode.PERSISTENT);
    const reader = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 60_000 });
    await reader.sync("/");
    s.expect((await reader.exists("/c15")) !== null, `${leader} has /c15`);
    s.expect((await reader.exists("/t")) === null, `/t, never committed, is not in ${leader}'s tree`);
  },
};
