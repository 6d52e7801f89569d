/**
 * Nemesis "api-swarm": the fault schedule of a whole-API swarm run (workload "api-swarm"), drawn
 * from the seed before the run and anchored, like zab-swarm's, on the script's `workload.phase`
 * {phase: "faults"} event; every fault and its undo land within the fault phase, before the
 * script heals everything.
 *
 * Each seed switches some aims off and weighs the rest ("api/faults/plan"), then draws a timeline
 * ("api/faults/kinds", "api/faults/draws"). The aims, every fault kind that makes sense for a
 * ZooKeeper deployment and its clients:
 * - server-crash: a server (the leader half the time on an ensemble) crashed, started again after
 *   a bounce or 0.5–15 s;
 * - client-crash: a client node crashed (its handles die with it, its sessions expire on the
 *   server), started again after 0.2–10 s: its actors open new handles;
 * - pause: a server or a client frozen (a GC pause), sometimes past the session timeout;
 * - partition-client: some clients cut from some servers, both ways or one way;
 * - partition-servers (ensembles): some servers cut from the others;
 * - clog: extra delay on client or server links; loss: a share of the segments lost;
 * - clock: a server's or a client's clock running fast or slow (0.5–2×): session and connection
 *   timers, and the leader's wall clock that stamps ctime/mtime and judges TTL nodes;
 * - slow-fsync, disk-full: a server's disk slow, or full (its undo frees it and restarts the
 *   server, which a full disk stops).
 * The scenarios tear the unsynced tail of a crashed server's files (`"disk": {"tearProbability":
 * 0.5}`), as the zab swarms do. What the swarm leaves out, and why: `ZAB_SWARM_LEFT_OUT`.
 * On an ensemble, a second timeline adds the zab-swarm aims over the same fault phase (crashes
 * aimed at elections and syncs, orphan proposals, isolated leaders…; zab-swarm.ts), from its own
 * streams under "api/zab".
 */
import { UserInputError } from "../../sim/errors.js";
import type { Fault, FaultAction } from "../../sim/faults.js";
import type { Rng } from "../../sim/rng.js";
import type { TraceStep } from "../../sim/fault-when.js";
import { apiFaultPhaseMs, apiPlanOf, apiShapeOf, pickWeighted } from "../workloads/api-swarm-shape.js";
import { drawDownMs, drawLinks, entry, subset } from "./draw.js";
import { FAULT_PHASE_EVENT, ZAB_SWARM_LEFT_OUT, drawSwarmFaults } from "./zab-swarm.js";
import type { NemesisDef } from "./index.js";

export const API_AIMS = [
  "server-crash", "client-crash", "pause", "partition-client", "partition-servers", "clog", "loss", "clock", "slow-fsync", "disk-full",
] as const;
export type ApiAim = (typeof API_AIMS)[number];

class ApiFaultDraw {
  constructor(
    private readonly rng: Rng,
    private readonly servers: readonly string[],
    private readonly clients: readonly string[],
    private readonly sessionTimeoutMsMax: number,
  ) {}

  /**
   * `action` `offsetMs` into the phase, undone `forMs` later — both before the phase ends
   * (`leftMs` to go), so the heal finds nothing half-undone.
   */
  private at(offsetMs: number, leftMs: number, action: FaultAction, forMs: number, onlyIfUp = false): Fault[] {
    const undoMs = Math.min(forMs, leftMs - 1);
    if (undoMs < 0) return [];
    const anchor: TraceStep = { after: FAULT_PHASE_EVENT.kind, fields: { phase: FAULT_PHASE_EVENT.phase }, delayMs: offsetMs };
    const f = entry(action, 0, undoMs, [anchor]);
    return [onlyIfUp ? { ...f, onlyIfUp: true } : f];
  }

  aim(kind: ApiAim, t: number, leftMs: number): Fault[] {
    const { rng, servers, clients } = this;
    const ensemble = servers.length > 1;
    switch (kind) {
      case "server-crash": {
        const node = ensemble && rng.chance(0.5) ? "$leader" : rng.pick(servers);
        return this.at(t, leftMs, { kind: "crash", node }, drawDownMs(rng), true);
      }
      case "client-crash":
        return this.at(t, leftMs, { kind: "crash", node: rng.pick(clients) }, rng.int(200, 10_000), true);
      case "pause": {
        const node = rng.chance(0.5) ? rng.pick(clients) : ensemble && rng.chance(0.5) ? "$leader" : rng.pick(servers);
        const longMs = Math.round(this.sessionTimeoutMsMax * 1.5);
        return this.at(t, leftMs, { kind: "pause", node }, rng.chance(0.3) ? rng.int(longMs, 2 * longMs) : rng.int(200, 5000), true);
      }
      case "partition-client": {
        const links = drawLinks(rng, clients, servers);
        return links === undefined ? [] : this.at(t, leftMs, { kind: "cut", ...links, oneWay: rng.chance(0.3) }, rng.int(500, 20_000));
      }
      case "partition-servers": {
        if (!ensemble) return [];
        const side = subset(rng, servers, 0.4);
        const rest = servers.filter((s) => !side.includes(s));
        return side.length === 0 || rest.length === 0 ? [] : this.at(t, leftMs, { kind: "cut", from: side, to: rest, oneWay: rng.chance(0.3) }, rng.int(500, 20_000));
      }
      case "clog": {
        const links = drawLinks(rng, [...servers, ...clients], servers);
        return links === undefined ? [] : this.at(t, leftMs, { kind: "clog", ...links, extraDelayMs: rng.int(20, 3000), oneWay: rng.chance(0.5) }, rng.int(500, 15_000));
      }
      case "loss": {
        const links = drawLinks(rng, [...servers, ...clients], servers);
        return links === undefined ? [] : this.at(t, leftMs, { kind: "loss", rate: rng.int(1, 40) / 100, ...links, oneWay: rng.chance(0.5) }, rng.int(500, 15_000));
      }
      case "clock": {
        const node = rng.pick([...servers, ...clients]);
        const rate = rng.chance(0.5) ? rng.int(50, 95) / 100 : rng.int(105, 200) / 100;
        return this.at(t, leftMs, { kind: "clock", node, rate }, rng.int(2000, 20_000));
      }
      case "slow-fsync":
        return this.at(t, leftMs, { kind: "disk", node: rng.pick(servers), fault: "slow-fsync", fsyncLatencyMs: rng.int(20, 2000) }, rng.int(1000, 20_000));
      case "disk-full":
        return this.at(t, leftMs, { kind: "disk", node: rng.pick(servers), fault: "full" }, rng.int(200, 3000), true);
    }
  }
}

/** The whole schedule of one seed's fault phase (header). */
export function drawApiFaults(root: Rng, ensemble: boolean, faultPhaseMs?: number): Fault[] {
  const shape = apiShapeOf(root, ensemble);
  const plan = apiPlanOf(root, faultPhaseMs);
  const servers = Array.from({ length: shape.servers + shape.observers }, (_, i) => `s${i + 1}`);
  const clients = Array.from({ length: shape.clients }, (_, i) => `c${i + 1}`);
  const api = root.fork("api").fork("faults");
  const weightsRng = api.fork("plan");
  const weights = Object.fromEntries(API_AIMS.map((k) => [k, weightsRng.chance(0.3) ? 0 : weightsRng.int(1, 5)])) as Record<ApiAim, number>;
  const gapMsMax = weightsRng.int(300, 4000);
  const kinds = api.fork("kinds");
  const draw = new ApiFaultDraw(api.fork("draws"), servers, clients, plan.sessionTimeoutMs[1]);
  const out: Fault[] = [];
  for (let t = kinds.int(0, gapMsMax); t < plan.faultPhaseMs; t += kinds.int(0, gapMsMax)) {
    const aim = pickWeighted(kinds, weights, API_AIMS);
    if (aim !== undefined) out.push(...draw.aim(aim, t, plan.faultPhaseMs - t));
  }
  if (ensemble && weightsRng.chance(0.7)) out.push(...drawSwarmFaults(root.fork("api").fork("zab"), servers, clients, shape.tickTimeMs, plan.faultPhaseMs));
  return out;
}

export const apiSwarmNemesis: NemesisDef = {
  kind: "api-swarm",
  description: "the whole-API swarm's faults: servers and clients crashed, paused, cut off, clogged, clocks skewed, disks slow or full (and zab-swarm's on an ensemble)",
  paramKeys: [],
  checkParams() {},
  // The same corner as zab-swarm's, for the same reasons: TCP links, the network's base delay.
  leftOut: ZAB_SWARM_LEFT_OUT,
  draw(ctx) {
    const w = ctx.scenario.workload;
    if (w.kind !== "api-swarm") throw new UserInputError(`nemesis "api-swarm" needs the "api-swarm" workload, got "${w.kind}"`);
    return drawApiFaults(ctx.rng, w.params.ensemble === true, apiFaultPhaseMs(w.params));
  },
};
