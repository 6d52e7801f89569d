/**
 * Workload "swarm": swarm testing (TigerBeetle's VOPR) — the run's seed, through the named rng
 * stream "swarm/shape", picks the ensemble (3 or 5 voters, sometimes an observer) and the number
 * of clients; the "zk" workload then builds it and runs the `zab-random-faults` script, which
 * draws the client workload from its own "swarm/…" streams. The faults are the scenario's: its
 * `zab-swarm` nemesis (src/scenario/nemesis/zab-swarm.ts) draws them before the run.
 *
 * The snapshot settings (`snapCount`, `snapChunkNodes`, `snapChunkIntervalUs`), when given, go to
 * every server as they are: a small snapCount puts fuzzy snapshots in the middle of the faults.
 *
 * `readOnlyMode` and `localSessionsEnabled` go to every server as the zk workload's: minority members serve
 * read-only (the swarm's clients never ask for it, so they are turned away there).
 *
 * `faultPhaseMs`, when given, replaces the fault phase's length the seed draws (the script and
 * the nemesis read it alike): a longer phase leaves room for slow-building topologies.
 * `readFirstOnMove: true` makes each client read first on a server it has just moved to
 * (TrafficParams in src/scenario/scripts/traffic.ts); absent, the draws are unchanged.
 *
 * `sharedSessions: true` adds the script's shared-session episodes (scripts/shared-session.ts).
 *
 * `nodes()` returns the largest shape (the names a fault schedule may use); a run adds only the
 * nodes its seed chose. Every ZAB, client and kernel checker runs.
 */
import { UserInputError } from "../../sim/errors.js";
import { intParam, type Workload, type WorkloadContext, type WorkloadDef } from "../workload.js";
import { swarmFaultPhaseMs, swarmShapeOf, type SwarmShape } from "./swarm-shape.js";
import { ZAB_TRACE_ROLES, quorumTimingParams, serverConfig, zkWorkload } from "./zk.js";
import { ZAB_COVERAGE } from "./zab-coverage.js";
import { QUORUM_TIMING_FIELDS } from "../../zk/server/quorum/quorum-timing.js";

const SNAPSHOT_PARAMS = ["snapCount", "snapChunkNodes", "snapChunkIntervalUs"];
/** Passed on to the zk workload as they are; the quorum timings (`quorumTiming` and its settings) opt in to 3.8's failover timings. */
const PASSED_PARAMS = ["faultPhaseMs", "sharedSessions", "readFirstOnMove", "readOnlyMode", "localSessionsEnabled", ...SNAPSHOT_PARAMS, "quorumTiming", ...QUORUM_TIMING_FIELDS];
const KNOWN_PARAMS = ["tickTimeMs", "maxClients", ...PASSED_PARAMS];
const MAX_VOTERS = 5;
const MAX_OBSERVERS = 1;

/** The ensemble a seed picks; the same seed always picks the same shape. */
export function swarmShape(w: WorkloadContext): SwarmShape {
  return swarmShapeOf(w.sim.rng, w.params);
}

export const swarmWorkload: WorkloadDef = {
  kind: "swarm",
  description: "a seed-shaped ZooKeeper ensemble under random faults (swarm testing), every checker on",
  nodes(params) {
    for (const k of Object.keys(params)) {
      if (!KNOWN_PARAMS.includes(k)) throw new UserInputError(`workload: unknown parameter "${k}" for kind "swarm" (known: ${KNOWN_PARAMS.join(", ")})`);
    }
    const maxClients = intParam(params, "maxClients", 4, 2, 8);
    if (params.tickTimeMs !== undefined) intParam(params, "tickTimeMs", 2000, 100, 10_000);
    swarmFaultPhaseMs(params);
    quorumTimingParams(params);
    // The snapshot settings go to the servers at create: checked here, with the scenario.
    serverConfig(Object.fromEntries(SNAPSHOT_PARAMS.filter((k) => params[k] !== undefined).map((k) => [k, params[k]])));
    if (params.sharedSessions !== undefined && typeof params.sharedSessions !== "boolean") throw new UserInputError(`workload.sharedSessions: expected true or false, got ${JSON.stringify(params.sharedSessions)}`);
    if (params.readFirstOnMove !== undefined && typeof params.readFirstOnMove !== "boolean") throw new UserInputError(`workload.readFirstOnMove: expected true or false, got ${JSON.stringify(params.readFirstOnMove)}`);
    const servers = Array.from({ length: MAX_VOTERS + MAX_OBSERVERS }, (_, i) => `s${i + 1}`);
    return [...servers, ...Array.from({ length: maxClients }, (_, i) => `c${i + 1}`)];
  },
  defaultCheckers() {
    return zkWorkload.defaultCheckers({ script: "zab-random-faults", servers: 3 });
  },
  traceRoles: ZAB_TRACE_ROLES,
  coverage: ZAB_COVERAGE,
  create(w: WorkloadContext): Workload {
    swarmWorkload.nodes(w.params);
    const shape = swarmShape(w);
    const params: Record<string, unknown> = { script: "zab-random-faults", servers: shape.servers, observers: shape.observers, clients: shape.clients, tickTimeMs: shape.tickTimeMs };
    for (const k of PASSED_PARAMS) if (w.params[k] !== undefined) params[k] = w.params[k];
    const inner = zkWorkload.create({ ...w, params });
    return {
      setup: () => inner.setup(),
      finish: () => inner.finish?.() ?? Promise.resolve(),
      narrative: () => [`shape: ${shape.servers} voters, ${shape.observers} observer(s), ${shape.clients} clients, tickTimeMs ${shape.tickTimeMs}`, ...(inner.narrative?.() ?? [])],
    };
  },
};
