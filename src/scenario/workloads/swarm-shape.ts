/**
 * The seed-drawn shape of a swarm (voters, observers, clients, tickTime) and its fault-phase
 * length: read by the swarm workload (swarm.ts), by the zab-swarm nemesis that draws a schedule
 * before the run, and by `zksim serve --scenario`. A leaf module (it names no workload, script or
 * nemesis), so the nemesis can read it without an import cycle through the zk workload's script
 * registry.
 */
import type { Rng } from "../../sim/rng.js";
import { intParam } from "../workload.js";

export interface SwarmShape {
  servers: number;
  observers: number;
  clients: number;
  tickTimeMs: number;
}

/** The shape from the "swarm/shape" stream of the seed's root (the nemesis draws it before the run too). */
export function swarmShapeOf(root: Rng, params: Record<string, unknown>): SwarmShape {
  const rng = root.fork("swarm").fork("shape");
  const maxClients = intParam(params, "maxClients", 4, 2, 8);
  const servers = rng.chance(0.5) ? 3 : 5;
  const observers = rng.chance(0.25) ? 1 : 0;
  const clients = rng.int(2, maxClients);
  const tickTimeMs = intParam(params, "tickTimeMs", rng.chance(0.5) ? 1000 : 2000, 100, 10_000);
  return { servers, observers, clients, tickTimeMs };
}

/** The workload's `faultPhaseMs`, if it sets one. */
export function swarmFaultPhaseMs(params: Record<string, unknown>): number | undefined {
  return params.faultPhaseMs === undefined ? undefined : intParam(params, "faultPhaseMs", 20_000, 1000, 600_000);
}
