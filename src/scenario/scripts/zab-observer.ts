/**
 * zab-observer: three voters and an observer. A client on the observer reads and writes (its
 * writes are forwarded; it learns commits through INFORM). The observer does not vote: with two
 * voters down there is no quorum, whatever the observer does, and writes cannot complete.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";

export const zabObserver: ScriptDef = {
  name: "zab-observer",
  description: "an observer serves reads and forwards writes, learns commits by INFORM, and never counts toward a quorum",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const observer = s.servers[s.servers.length - 1]!;
    s.expectEqual(ens.peer(observer)?.state, "OBSERVING", `${observer} observes`);
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [observer], sessionTimeoutMs: 20_000 });
    await zk.create("/obs", "via-observer", open, CreateMode.PERSISTENT);
    const other = await s.connect("c2", { servers: [leader] });
    await other.setData("/obs", "via-leader", -1);
    await s.sleepMs(100);
    const { data } = await zk.getData("/obs");
    s.expectEqual(new TextDecoder().decode(data ?? new Uint8Array()), "via-leader", "the observer applied the leader's commit (INFORM)");
    const voters = s.servers.filter((id) => id !== observer && id !== leader);
    for (const v of voters) s.fault({ kind: "crash", node: v });
    s.note(`${voters.join(" and ")} crashed: the leader and the observer are no quorum`);
    const stuck = zk.create("/obs/no-quorum", "", open, CreateMode.PERSISTENT).then(() => "ok", (e: { codeName?: string }) => e.codeName ?? "error");
    await s.sleepMs(15_000);
    s.expect(ens.peer(leader)?.state !== "LEADING" || !ens.peer(leader)?.serving, "the leader gave up: an observer does not make a quorum");
    for (const v of voters) s.fault({ kind: "start", node: v });
    await ens.settled(60_000, "the voters return and the ensemble settles");
    s.expect((await stuck) !== "ok" || (await zk.exists("/obs/no-quorum")) !== null, "a write acknowledged only if it really committed");
  },
};
