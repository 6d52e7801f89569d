/**
 * zab-follower-cross-epoch-snap: a server that led epoch e logged a txn nobody else has, and
 * comes back after the others have committed in epochs e+1 and e+2. Its last zxid, (e, n+1), is
 * not in the leader's history; the first later txn there is of another epoch, so TRUNC would
 * cross an epoch boundary and 3.8's LearnerHandler sends a SNAP instead (docs/zookeeper.md §7.4 case 3).
 * The returning server loads the snapshot, ends with the others' tree, and after a restart
 * recovers from the snapshot it persisted — the stale txn, still in its log, stays dead.
 *
 * Steps: the leader is isolated with client c1, which writes /data = "stale" (logged by the
 * leader alone); the leader steps down; the majority elects (epoch e+1) and writes; its
 * follower restarts, so the leader loses its quorum and the majority elects again (epoch e+2)
 * and writes; the partition heals and the old leader rejoins. The majority's leader must not be
 * a restarted process: each leader writes a clean snapshot as it starts leading (`Leader.lead`),
 * and a restarted one's committed log starts there, above the old leader's txn, so it would
 * answer with a SNAP whatever the DIFF check does (ZOOKEEPER-1154 could not show).
 */
import { CreateMode, Ids, zxidEpoch } from "../../zk/proto/records.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { text } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { outcome } from "./bug-support.js";

export const zabFollowerCrossEpochSnap: ScriptDef = {
  name: "zab-follower-cross-epoch-snap",
  description: "a former leader with an uncommitted txn rejoins two epochs later: TRUNC cannot cross the epoch boundary, it gets a SNAP",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const old = await ens.settled(30_000);
    if (old === undefined) return;
    const open = Ids.OPEN_ACL_UNSAFE;
    const stale = await s.connect("c1", { servers: [old], sessionTimeoutMs: 30_000 });
    await stale.create("/data", "v0", open, CreateMode.PERSISTENT);
    const oldEpoch = ens.peer(old)!.currentEpoch;
    const others = s.servers.filter((id) => id !== old);
    s.fault({ kind: "partition", groups: [[old, "c1"], [...others, "c2"]] });
    const lost = outcome(stale.setData("/data", "stale", -1));
    s.note(`${old} (epoch ${oldEpoch}) is isolated and logs c1's setData alone`);
    s.expect(await s.waitFor(() => ens.peer(old)?.state === "LOOKING", 30_000, `${old} steps down`), `${old} abandoned leadership`);

    const first = await majorityLeads(s, ens, others, oldEpoch + 1);
    const writer = await s.connect("c2", { servers: others });
    await writer.setData("/data", "epoch+1", -1);
    const follower = others.find((id) => id !== first)!;
    s.note(`${first} leads epoch ${oldEpoch + 1} and commits; now its follower ${follower} restarts`);
    s.fault({ kind: "restart", node: follower });
    const second = await majorityLeads(s, ens, others, oldEpoch + 2);
    await writer.setData("/data", "epoch+2", -1);
    await writer.create("/after", "", open, CreateMode.PERSISTENT);
    s.note(`${second} leads epoch ${oldEpoch + 2} and commits; the partition heals`);

    s.fault({ kind: "heal" });
    await ens.settled(60_000, `${old} rejoins`);
    s.expectEqual(await lost, "CONNECTIONLOSS", "the write sent to the isolated leader never completed");
    s.expect(zxidEpoch(ens.peer(old)!.zkDb.lastProcessedZxid) >= oldEpoch + 2, `${old} caught up with epoch ${oldEpoch + 2}`);
    const reader = await s.connect("c3", { servers: [old] });
    s.expectEqual(text((await reader.getData("/data")).data), "epoch+2", `${old} serves the majority's value; its own stale txn is gone`);
    s.fault({ kind: "restart", node: old });
    await ens.settled(60_000, `${old} restarts from the snapshot it persisted`);
    const again = await s.connect("c3", { servers: [old] });
    s.expectEqual(text((await again.getData("/data")).data), "epoch+2", `${old} recovered the snapshot, not its stale log tail`);
    s.expect((await again.exists("/after")) !== null, `${old} still has /after`);
  },
};

/** Waits until one of `servers` leads and serves an epoch ≥ `epoch`; returns it. */
async function majorityLeads(s: ScriptContext, ens: EnsembleView, servers: readonly string[], epoch: number): Promise<string | undefined> {
  const leader = (): string | undefined =>
    servers.find((id) => {
      const p = ens.peer(id);
      return p !== undefined && p.state === "LEADING" && p.serving && p.currentEpoch >= epoch;
    });
  await s.waitFor(() => leader() !== undefined, 60_000, `the majority elects a leader for epoch ${epoch}`);
  return leader();
}
