/**
 * zab-election-longest-log: the voter with the higher sid holds the shorter log when the leader
 * fails, so FastLeaderElection must order the votes by zxid before sid. The leader's link to its
 * highest-sid follower is cut one way; a few writes commit on the leader and the other follower;
 * the leader crashes. The two survivors elect once the cut-off follower gives up on its silent
 * leader (syncLimit ticks): the lower sid, whose log is longer, must win — the elected leader
 * holds the longest history of its quorum (`zab.election-most-recent`). The old leader then
 * rejoins and a write of the new epoch commits.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";

/** Writes committed while the highest-sid follower is cut off. */
const MISSED_WRITES = 5;
/** Long enough for the cut-off follower's silence limit (syncLimit ticks) and an election. */
const ELECTION_WAIT_MS = 15_000;

export const zabElectionLongestLog: ScriptDef = {
  name: "zab-election-longest-log",
  description: "the leader fails while the highest-sid follower lags: the survivor with the longer log must be elected",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const followers = ens.followersOf(leader).sort((a, b) => ens.peer(a)!.myid - ens.peer(b)!.myid);
    const lagging = followers[followers.length - 1]!;
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [leader] });
    await zk.create("/elect", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "cut", from: [leader], to: [lagging], oneWay: true });
    for (let i = 0; i < MISSED_WRITES; i++) await zk.create(`/elect/n-${i}`, "", open, CreateMode.PERSISTENT);
    s.note(`${leader} leads; ${lagging}, the highest sid left, missed ${MISSED_WRITES} committed writes`);
    s.fault({ kind: "crash", node: leader });
    s.fault({ kind: "heal" });
    await s.sleepMs(ELECTION_WAIT_MS);
    s.note(`${leader} crashed; the survivors elected ${ens.leader() ?? "no serving leader yet"}`);
    s.fault({ kind: "start", node: leader });
    await ens.settled(60_000, `${leader} rejoins`);
    const writer = await s.connect("c2");
    await writer.create("/elect/after", "", open, CreateMode.PERSISTENT);
    await writer.sync("/elect");
    s.conclude("a write of the new epoch committed");
    s.expectEqual((await writer.getChildren("/elect")).length, MISSED_WRITES + 1, "every committed write survived the failover");
  },
};
