/**
 * zab-follower-restart-trunc: a follower logs a proposal that reaches no quorum (the leader
 * could only reach that follower), then both crash. The remaining majority elects a leader.
 * The follower restarts before the new epoch has committed anything: its last zxid is beyond
 * the new leader's committed log, so the leader sends TRUNC to its last committed zxid (3.8's
 * case "peerLastZxid > maxCommittedLog", docs/zookeeper.md §7.4) and the orphan is cut from the
 * follower's log. The old leader, which logged the orphan too, rejoins the same way; then the
 * new epoch commits a write. (Rejoining after a write of the new epoch would need a TRUNC
 * across an epoch boundary, which 3.8 replaces by a SNAP: see zab-follower-cross-epoch-snap.)
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";

export const zabFollowerRestartTrunc: ScriptDef = {
  name: "zab-follower-restart-trunc",
  description: "a follower with an uncommitted txn restarts after a new leader took over: TRUNC removes it",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const followers = s.servers.filter((id) => id !== leader);
    const lonely = followers[0]!;
    const others = followers.slice(1);
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [leader] });
    await zk.create("/log", "", open, CreateMode.PERSISTENT);
    s.note(`${leader} leads; the next proposal will reach only ${lonely}`);
    s.fault({ kind: "cut", from: [leader], to: others, oneWay: true });
    const orphan = zk.create("/log/orphan", "", open, CreateMode.PERSISTENT).then(() => "ok", (e: { codeName?: string }) => e.codeName ?? "error");
    await s.sleepMs(100);
    s.fault({ kind: "crash", node: leader });
    s.fault({ kind: "crash", node: lonely });
    s.fault({ kind: "heal" });
    s.note(`${leader} and ${lonely} crashed; /log/orphan is logged on both, on no quorum`);
    s.expectEqual(await orphan, "CONNECTIONLOSS", "the orphan create's outcome is unknown to the client");
    const next = await ens.settled(60_000, "the remaining majority elects a leader");
    if (next !== undefined) s.note(`${next} leads; before the new epoch commits anything, ${lonely} restarts`);
    s.fault({ kind: "start", node: lonely });
    await ens.settled(60_000, `${lonely} rejoins`);
    s.fault({ kind: "start", node: leader });
    await ens.settled(60_000, `${leader} rejoins`);
    const writer = await s.connect("c2");
    await writer.create("/log/after", "", open, CreateMode.PERSISTENT);
    s.conclude("both were truncated; a write of the new epoch committed");
    await writer.sync("/log");
    s.expectEqual((await writer.getChildren("/log")).sort(), ["after"], "the uncommitted /log/orphan is gone everywhere");
  },
};
