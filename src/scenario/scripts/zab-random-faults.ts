/**
 * zab-random-faults: swarm testing of the ensemble. The faults are data: the
 * scenario's `zab-swarm` nemesis (src/scenario/nemesis/zab-swarm.ts) draws the whole schedule
 * from the seed before the run — crashes aimed at elections and syncs by trace conditions,
 * partitions, pauses, clogs, slow disks, loss — anchored on the fault-phase event this script
 * records. The script drives the rest from the run's seed through named rng streams forked
 * from "swarm": the plan ("swarm/plan", shared with the nemesis: the fault phase's length, the
 * key space, the pace) and each client's workload ("swarm/client/cN").
 *
 * Run shape (TigerBeetle's VOPR, Maelstrom's heal-then-read):
 *   1. settle, create /swarm;
 *   2. fault phase: records `workload.phase` {phase: "faults"} (the nemesis's anchor); clients
 *      write and read a small key space while the scheduled faults land;
 *   3. heal everything (heal, unclog, loss 0, resume, start the crashed, disk ok);
 *   4. convergence within a budget (from when the slow fsyncs queued before the heal are done):
 *      one serving leader and every running server serving — but
 *      one whose acceptedEpoch is ahead of the leader's epoch, which ZooKeeper 3.8 refuses until
 *      the leader changes (noted as an explained gap) — then every client node reads the key
 *      space after a sync and all must agree.
 * The script judges only liveness-shaped expectations (settles, reads succeed, readers agree);
 * safety is the checkers' job, over the trace.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { Rng } from "../../sim/rng.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { DEFAULT_OP_MIX, finalReads, TRAFFIC_ROOT, TrafficClient } from "./traffic.js";
import { drawSwarmPlan, FAULT_PHASE_EVENT, SWARM_AIMS } from "../nemesis/zab-swarm.js";
import { drawSharedSessionTimes, sharedSessionEpisode } from "./shared-session.js";

const ROOT = TRAFFIC_ROOT;
const OPEN = Ids.OPEN_ACL_UNSAFE;
const CONVERGENCE_BUDGET_MS = 40_000;

/** Ends every fault: the start of the convergence phase. */
function healAll(s: ScriptContext): void {
  s.fault({ kind: "heal" });
  s.fault({ kind: "unclog" });
  s.fault({ kind: "loss", rate: 0 });
  for (const node of [...s.servers, ...s.clients]) {
    const status = s.sim.node(node).status;
    if (status === "paused") s.fault({ kind: "resume", node });
    if (status === "down") s.fault({ kind: "start", node });
    if (s.servers.includes(node)) s.fault({ kind: "disk", node, fault: "ok" });
    if (s.sim.node(node).clock.rate !== 1) s.fault({ kind: "clock", node, rate: 1 });
  }
  s.note(`${(s.sim.nowUs / 1000).toFixed(0)}ms: healed everything`);
}

/** With `sharedSessions` (scenario zab-shared-session): the episodes of shared-session.ts at drawn times of the fault phase. */
async function sharedSessions(s: ScriptContext, rng: Rng, faultPhaseMs: number): Promise<void> {
  const startUs = s.sim.nowUs;
  const episodes: Promise<void>[] = [];
  for (const [i, atMs] of drawSharedSessionTimes(rng, faultPhaseMs).entries()) {
    const waitMs = atMs - (s.sim.nowUs - startUs) / 1000;
    if (waitMs > 0) await s.sleepMs(waitMs);
    episodes.push(sharedSessionEpisode(s, rng.fork(`episode/${i}`), i));
  }
  await Promise.all(episodes);
}

export const zabRandomFaults: ScriptDef = {
  name: "zab-random-faults",
  description: "swarm: seed-drawn faults aimed at elections and syncs, client traffic, then heal and converge",
  /** Set by the swarm workload's own `faultPhaseMs` (in place of the drawn length), `sharedSessions` and `readFirstOnMove` (the clients' TrafficParams). */
  paramKeys: ["faultPhaseMs", "sharedSessions", "readFirstOnMove"],
  async run(s) {
    const swarm = s.sim.rng.fork("swarm");
    const plan = drawSwarmPlan(s.sim.rng, s.params.faultPhaseMs as number | undefined);
    const ens = new EnsembleView(s.sim, s);
    if ((await ens.settled(30_000)) === undefined) return;
    const setup = await s.connect(s.clients[0]!);
    await setup.create(ROOT, "", OPEN, CreateMode.PERSISTENT);
    await setup.close();
    s.note(`plan: fault phase ${plan.faultPhaseMs} ms, ${plan.keys} keys, mix ${SWARM_AIMS.filter((k) => plan.weights[k] > 0).join(" ")}`);

    const clients = s.clients.map((c) => {
      const rng = swarm.fork(`client/${c}`);
      const readFirstOnMove = s.params.readFirstOnMove === true ? { readFirstOnMove: true } : {};
      return new TrafficClient(s, c, rng, { keys: plan.keys, opGapMsMax: plan.opGapMsMax, sessionTimeoutMs: rng.int(4000, 12_000), mix: DEFAULT_OP_MIX, ...readFirstOnMove });
    });
    s.sim.trace.record(s.sim.nowUs, FAULT_PHASE_EVENT.kind, "", undefined, undefined, undefined, { phase: FAULT_PHASE_EVENT.phase });
    const shared = s.params.sharedSessions === true ? sharedSessions(s, swarm.fork("shared-session"), plan.faultPhaseMs) : Promise.resolve();
    await s.sleepMs(plan.faultPhaseMs);
    healAll(s);
    await shared;

    // A slow disk keeps the latency each fsync was issued with: a server that queued a backlog
    // of slow fsyncs before the heal finishes them first (it goes LOOKING only once its log is
    // flushed), so the budget counts from when the last of them completes.
    const backlogMs = Math.max(0, ...s.servers.map((id) => Math.ceil((s.sim.node(id).disk.fsyncQueueDrainsAtUs - s.sim.nowUs) / 1000)));
    if (backlogMs > 0) s.note(`the slow fsyncs queued before the heal complete ${backlogMs} ms after it: the convergence budget starts then`);
    const leader = await ens.settled(backlogMs + CONVERGENCE_BUDGET_MS, "the healed ensemble converges: one serving leader, every server serving (but one whose acceptedEpoch is ahead of the leader's)", true);
    if (leader === undefined) return;
    for (const id of ens.epochAheadOf(leader)) s.note(`${id} is not serving: its acceptedEpoch is ahead of leader ${leader}'s epoch, which ZooKeeper 3.8 refuses until the leader changes (an explained liveness gap)`);
    for (const c of clients) c.stop();
    await Promise.all(clients.map((c) => c.done));
    await finalReads(s);
  },
};
