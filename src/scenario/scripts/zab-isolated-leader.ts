/**
 * zab-isolated-leader: the leader is partitioned from every follower. It loses its quorum and
 * steps down after syncLimit ticks; the majority elects a new leader and keeps serving. A write
 * a client sent to the isolated leader before it stepped down stays uncommitted and is gone
 * when the old leader rejoins after the heal: the majority has committed in the new epoch, so
 * cutting it away would be a TRUNC across an epoch boundary, and the leader sends a SNAP
 * (3.8's LearnerHandler; zab-follower-cross-epoch-snap shows it over two epochs).
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";

export const zabIsolatedLeader: ScriptDef = {
  name: "zab-isolated-leader",
  description: "an isolated leader steps down, the majority elects, the old leader's uncommitted proposal is truncated on rejoin",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const open = Ids.OPEN_ACL_UNSAFE;
    const stale = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 30_000 });
    await stale.create("/data", "v0", open, CreateMode.PERSISTENT);
    const others = s.servers.filter((id) => id !== leader);
    s.fault({ kind: "partition", groups: [[leader, "c1"], [...others, "c2"]] });
    s.note(`${leader} is isolated with client c1; ${others.join(", ")} form the majority`);
    const lost = stale.setData("/data", "from-the-minority", -1).then(() => "ok", (e: { codeName?: string }) => e.codeName ?? "error");
    const ok = await s.waitFor(() => ens.peer(leader)?.state === "LOOKING", 30_000, `${leader} steps down without a quorum`);
    s.expect(ok, `${leader} abandoned leadership`);
    const next = await s.waitFor(() => others.some((id) => ens.peer(id)?.state === "LEADING" && ens.peer(id)?.serving), 60_000, "the majority elects a leader");
    s.expect(next, "a new leader serves the majority");
    const fresh = await s.connect("c2", { servers: others });
    await fresh.setData("/data", "from-the-majority", -1);
    s.fault({ kind: "heal" });
    await ens.settled(60_000, "the old leader rejoins after the heal");
    s.expectEqual(await lost, "CONNECTIONLOSS", "the write sent to the isolated leader never completed");
    await fresh.sync("/data");
    const { data } = await fresh.getData("/data");
    s.expectEqual(new TextDecoder().decode(data ?? new Uint8Array()), "from-the-majority", "the majority's write stands; the minority's was truncated");
  },
};
