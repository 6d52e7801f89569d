/**
 * Swarm testing for the commit protocols (`2pc-random-faults`, `3pc-random-faults`), in the
 * manner of `zab-random-faults`: the run's seed, through named streams forked from "swarm",
 * draws the shape ("swarm/shape": participants, clients, keys, how many transactions and how
 * fast, how often an execution fails, 2PC's termination protocol), the fault mix and rates
 * ("swarm/plan") and each fault ("swarm/faults"). Faults land during a fault phase; the run's
 * convergence phase then heals everything and restarts the crashed.
 *
 * Fault kinds: crashes of the coordinator or of a participant (each restarted after a drawn
 * time), pauses, partitions that split the coordinator and the participants in two, one node
 * cut off, and message loss. "crash-only" keeps the crashes alone.
 */
import type { Simulator } from "../../sim/simulator.js";
import type { Rng } from "../../sim/rng.js";
import { applyFault, type FaultAction } from "../../sim/faults.js";
import { msToUs } from "../../sim/time.js";
import type { PlannedTxn } from "../../protocols/atomic-commit/client.js";
import type { Termination } from "../../protocols/atomic-commit/config.js";
import { clientIds, COORDINATOR, participantIds, type SwarmFaults } from "./commit-params.js";

export interface SwarmShape {
  participants: number;
  clients: number;
  termination: Termination;
  executionFailureRate: number;
  plans: Map<string, PlannedTxn[]>;
}

export function drawSwarmShape(rng: Rng, maxParticipants: number, maxClients: number): SwarmShape {
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

const FAULT_KINDS = ["crash-coordinator", "crash-participant", "pause", "partition", "isolate", "loss"] as const;
type SwarmFaultKind = (typeof FAULT_KINDS)[number];

/** Draws the fault phase and schedules it; returns a line describing the plan. */
export function installSwarmNemesis(sim: Simulator, swarm: SwarmFaults, participants: number, faultPhaseEndMs: number): string {
  const planRng = sim.rng.fork("swarm").fork("plan");
  const rng = sim.rng.fork("swarm").fork("faults");
  const allowed: readonly SwarmFaultKind[] = swarm === "crash-only" ? ["crash-coordinator", "crash-participant"] : FAULT_KINDS;
  const weights = new Map(allowed.map((k) => [k, planRng.chance(0.3) ? 0 : planRng.int(1, 5)] as const));
  const total = [...weights.values()].reduce((a, b) => a + b, 0);
  const gapMsMax = planRng.int(200, 3000);
  const servers = [COORDINATOR, ...participantIds(participants)];
  const at = (ms: number, f: FaultAction) => sim.schedule(msToUs(Math.min(ms, faultPhaseEndMs)), () => applyFault(sim, f));
  let count = 0;
  for (let tMs = rng.int(0, gapMsMax); total > 0 && tMs < faultPhaseEndMs; tMs += rng.int(50, gapMsMax)) {
    let x = rng.int(1, total);
    const kind = allowed.find((k) => (x -= weights.get(k)!) <= 0)!;
    const downMs = rng.chance(0.3) ? rng.int(0, 200) : rng.int(300, 8000);
    count++;
    switch (kind) {
      case "crash-coordinator":
      case "crash-participant": {
        const node = kind === "crash-coordinator" ? COORDINATOR : rng.pick(servers.slice(1));
        at(tMs, { kind: "crash", node });
        at(tMs + downMs, { kind: "start", node });
        break;
      }
      case "pause": {
        const node = rng.pick(servers);
        at(tMs, { kind: "pause", node });
        at(tMs + downMs, { kind: "resume", node });
        break;
      }
      case "partition": {
        const side = servers.filter(() => rng.chance(0.5));
        const rest = servers.filter((s) => !side.includes(s));
        if (side.length === 0 || rest.length === 0) break;
        at(tMs, { kind: "cut", from: side, to: rest });
        at(tMs + downMs, { kind: "heal", from: side, to: rest });
        break;
      }
      case "isolate": {
        const node = rng.pick(servers);
        const others = sim.nodeIds.filter((n) => n !== node);
        at(tMs, { kind: "cut", from: [node], to: others });
        at(tMs + downMs, { kind: "heal", from: [node], to: others });
        break;
      }
      case "loss": {
        const from = servers.filter(() => rng.chance(0.5));
        if (from.length === 0) break;
        at(tMs, { kind: "loss", rate: rng.int(5, 50) / 100, from, to: servers });
        at(tMs + downMs, { kind: "loss", rate: 0, from, to: servers });
        break;
      }
    }
  }
  const mix = [...weights.entries()].filter(([, w]) => w > 0).map(([k, w]) => `${k}×${w}`).join(", ");
  return `swarm (${swarm}): ${count} faults over ${faultPhaseEndMs} ms, mix ${mix || "none"}`;
}
