/**
 * zab-election-finalize-wait: once a server's proposal has a quorum, FastLeaderElection still
 * waits `finalizeWait` (200 ms) for a better vote before it decides, and a better vote that comes
 * within that wait wins (3.8's lookForLeader: it polls the queue for `finalizeWait` and decides
 * only when no notification beating its proposal arrives).
 *
 * The ensemble settles and the whole of it stops (a power cut); every server then holds the same
 * log and currentEpoch, so the highest sid is the best vote. The servers come back one by one,
 * lowest sid first: the middle one 150 ms after the lowest, the highest 100 ms after that. The
 * first two agree on the middle one as soon as they hear each other — a quorum of three — and the
 * highest sid's vote reaches them within their wait: every server's first decision is the highest
 * sid, which leads, and a write commits.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";

/** When the middle server starts after the lowest: the two form a quorum then. */
const SECOND_START_MS = 150;
/** When the highest server starts after the middle one: within the other two's finalizeWait. */
const THIRD_START_MS = 100;

export const zabElectionFinalizeWait: ScriptDef = {
  name: "zab-election-finalize-wait",
  description: "after a full stop the servers return 150 ms and 100 ms apart: a better vote arriving within finalizeWait of a quorum still wins",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    if ((await ens.settled(30_000)) === undefined) return;
    if (!s.expect(s.servers.length === 3, "three voters")) return;
    const bySid = [...s.servers].sort((a, b) => ens.peer(a)!.myid - ens.peer(b)!.myid);
    const [low, middle, high] = bySid as [string, string, string];
    const states = bySid.map((id) => `${ens.peer(id)!.currentEpoch}:${ens.peer(id)!.lastLoggedZxid}`);
    s.expect(states.every((x) => x === states[0]), `every server holds the same currentEpoch and last zxid before the stop (${states.join(", ")})`);

    for (const id of bySid) s.fault({ kind: "crash", node: id });
    s.note("the whole ensemble stopped");
    await s.sleepMs(1_000);

    // The first decision of each server after the restart (fle.elected: sid, leader).
    const firstLeader = new Map<string, number>();
    const stop = s.sim.trace.subscribe((e) => {
      if (e.kind !== "fle.elected" || e.node === undefined || firstLeader.has(e.node)) return;
      const leader = (e.fields as { leader?: unknown } | undefined)?.leader;
      if (typeof leader === "number") firstLeader.set(e.node, leader);
    });
    s.fault({ kind: "start", node: low });
    await s.sleepMs(SECOND_START_MS);
    s.fault({ kind: "start", node: middle });
    await s.sleepMs(THIRD_START_MS);
    s.fault({ kind: "start", node: high });
    s.note(`${low} started, ${middle} ${SECOND_START_MS} ms later, ${high} ${THIRD_START_MS} ms after that`);
    const leader = await ens.settled(30_000, "the ensemble settles after the staggered restart");
    stop();
    if (leader === undefined) return;
    const highSid = ens.peer(high)!.myid;
    for (const id of bySid) {
      s.expectEqual(firstLeader.get(id), highSid, `${id}'s first decision is ${high}, whose vote came within finalizeWait of the ${low}–${middle} quorum`);
    }
    s.expectEqual(leader, high, `${high} leads`);
    const zk = await s.connect("c1");
    await zk.create("/after", "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    s.conclude(`${high}, the best vote, was elected though ${low} and ${middle} had agreed on ${middle} ${THIRD_START_MS} ms before it came`);
    await zk.close();
  },
};
