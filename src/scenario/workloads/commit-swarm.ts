/**
 * The shape of the commit protocols' swarms (`2pc-random-faults`, `3pc-random-faults`,
 * `3pc-random-crashes`), in the manner of `zab-random-faults`: the seed's "swarm/shape" stream
 * draws the participants, clients, keys, how many transactions and how fast, how often an
 * execution fails and 2PC's termination protocol. The faults are the scenario's nemesis
 * ("protocol-swarm", src/scenario/nemesis/protocol-swarm.ts), drawn before the run over the
 * nodes this shape creates (`commitSeedNodes`).
 *
 * Invariant: the shape is a pure function of the seed's root and the parameters' maxima.
 */
import type { Rng } from "../../sim/rng.js";
import type { PlannedTxn } from "../../protocols/atomic-commit/client.js";
import type { Termination } from "../../protocols/atomic-commit/config.js";
import { clientIds, COORDINATOR, participantIds } from "./commit-params.js";

export interface SwarmShape {
  participants: number;
  clients: number;
  termination: Termination;
  executionFailureRate: number;
  plans: Map<string, PlannedTxn[]>;
}

export function drawSwarmShape(root: Rng, maxParticipants: number, maxClients: number): SwarmShape {
  const rng = root.fork("swarm").fork("shape");
  const participants = rng.int(2, maxParticipants);
  const clients = rng.int(1, maxClients);
  const keys = ["x", "y", "z"].slice(0, rng.int(1, 3));
  const txnsPerClient = rng.int(3, 12);
  const gapMsMax = rng.int(20, 800);
  const executionFailureRate = rng.chance(0.5) ? 0 : rng.int(2, 20) / 100;
  const termination: Termination = rng.chance(0.5) ? "coordinator" : "cooperative";
  const plans = new Map<string, PlannedTxn[]>();
  for (const c of clientIds(clients)) {
    let atMs = rng.int(50, 500);
    const plan: PlannedTxn[] = [];
    for (let i = 0; i < txnsPerClient; i++) {
      plan.push({ atMs, key: rng.pick(keys), value: rng.int(1, 99), noVoteFrom: [] });
      atMs += rng.int(0, gapMsMax);
    }
    plans.set(c, plan);
  }
  return { participants, clients, termination, executionFailureRate, plans };
}

/** The nodes of the seed's shape: the coordinator, its participants and clients. */
export function commitSeedNodes(root: Rng, maxParticipants: number, maxClients: number): string[] {
  const shape = drawSwarmShape(root, maxParticipants, maxClients);
  return [COORDINATOR, ...participantIds(shape.participants), ...clientIds(shape.clients)];
}
