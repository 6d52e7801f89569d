/**
 * Workload "multi-paxos": replicas r1…rN running Multi-Paxos over a key-value store (book
 * 3.1.5) and clients c1…cM putting and getting a few keys through leader changes, for
 * `multipaxos-leader-failover` and the swarms `multipaxos-random-faults` and `multipaxos-catch-up`.
 *
 * Parameters: replicas (1–9, default 3), clients (1–8, default 2), readers (how many of the
 * clients only read, default 0), keys (1–10, default 2),
 * leaseMs (Chubby's master lease, default 100; 0 turns it off), maxClockDriftPct (how fast or
 * slow any clock may run, which the lease keeps as its margin; default 10), heartbeatMs (20),
 * electionTimeoutMinMs / MaxMs (150 / 300), requestTimeoutMs (100), thinkMsMax (50),
 * clientStopAtMs (default: durationMs + 3000, so some operations run after the heal),
 * variant (correct, skip-phase-1, no-lease, restart-reuses-ids, no-drift-margin, skip-gap-fill, mute-promise, no-catch-up), swarm (the seed draws the shape; the scenario's
 * "protocol-swarm" nemesis draws the faults before the run, over `seedNodes`).
 */
import type { TraceEvent } from "../../sim/trace.js";
import { MultiPaxosClient, MultiPaxosReplica, MULTI_PAXOS_VARIANTS, type MultiPaxosVariant } from "../../protocols/multi-paxos/index.js";
import { intParam, type Workload, type WorkloadContext, type WorkloadDef } from "../workload.js";
import { boolParam, knownParams, variantParam } from "./protocol-params.js";
import type { Rng } from "../../sim/rng.js";
import { MAX_DURATION_MS } from "../durations.js";

const KIND = "multi-paxos";
const KNOWN = ["replicas", "clients", "readers", "keys", "leaseMs", "maxClockDriftPct", "heartbeatMs", "electionTimeoutMinMs", "electionTimeoutMaxMs", "requestTimeoutMs", "thinkMsMax", "clientStopAtMs", "variant", "swarm"];
export const MULTI_PAXOS_CHECKERS = ["multipaxos.slot-agreement", "multipaxos.state-machine-safety", "multipaxos.linearizable", "multipaxos.liveness"];
const SWARM_MAX = { replicas: 5, clients: 3 };

interface Shape {
  replicas: number;
  clients: number;
  readers: number;
  keys: number;
  leaseMs: number;
  maxClockDriftPct: number;
  heartbeatMs: number;
  electionTimeoutMinMs: number;
  electionTimeoutMaxMs: number;
  requestTimeoutMs: number;
  thinkMsMax: number;
  clientStopAtMs: number | undefined;
  variant: MultiPaxosVariant;
  swarm: boolean;
}

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

function readShape(params: Record<string, unknown>): Shape {
  knownParams(params, KIND, KNOWN);
  const swarm = boolParam(params, "swarm", false);
  const heartbeatMs = intParam(params, "heartbeatMs", 20, 1, 10_000);
  const electionTimeoutMinMs = intParam(params, "electionTimeoutMinMs", 150, heartbeatMs + 1, 60_000);
  const clients = intParam(params, "clients", swarm ? SWARM_MAX.clients : 2, 1, 8);
  return {
    replicas: intParam(params, "replicas", swarm ? SWARM_MAX.replicas : 3, 1, 9),
    clients,
    readers: intParam(params, "readers", 0, 0, clients - 1),
    keys: intParam(params, "keys", 2, 1, 10),
    leaseMs: intParam(params, "leaseMs", 100, 0, electionTimeoutMinMs - 1),
    maxClockDriftPct: intParam(params, "maxClockDriftPct", 10, 0, 50),
    heartbeatMs,
    electionTimeoutMinMs,
    electionTimeoutMaxMs: intParam(params, "electionTimeoutMaxMs", 300, electionTimeoutMinMs, 60_000),
    requestTimeoutMs: intParam(params, "requestTimeoutMs", 100, 1, 60_000),
    thinkMsMax: intParam(params, "thinkMsMax", 50, 0, 60_000),
    clientStopAtMs: params.clientStopAtMs === undefined ? undefined : intParam(params, "clientStopAtMs", 0, 0, MAX_DURATION_MS),
    variant: variantParam(params, KIND, MULTI_PAXOS_VARIANTS),
    swarm,
  };
}

/**
 * The swarm: the seed's "swarm/shape" stream redraws the cluster, the clients and the lease's
 * timing — sometimes an election timeout barely above the lease, where a lease counted too long
 * on a slow clock overlaps the next master's.
 */
function seedShape(base: Shape, root: Rng): Shape {
  if (!base.swarm) return base;
  const rng = root.fork("swarm").fork("shape");
  const shape = { ...base, replicas: rng.chance(0.5) ? 3 : 5, clients: rng.int(2, SWARM_MAX.clients), readers: rng.int(0, 1), keys: rng.int(1, 3), thinkMsMax: rng.int(0, 100) };
  const leaseMs = rng.int(40, 150);
  const electionTimeoutMinMs = leaseMs + (rng.chance(0.5) ? rng.int(1, 20) : rng.int(20, 150));
  return { ...shape, leaseMs, electionTimeoutMinMs, electionTimeoutMaxMs: electionTimeoutMinMs + rng.int(10, 150), requestTimeoutMs: rng.int(20, 100) };
}

export const multiPaxosWorkload: WorkloadDef = {
  kind: KIND,
  description: "Multi-Paxos: a replicated log driving a key-value store, a leader, Chubby's master lease (book 3.1.5)",
  nodes(params) {
    const s = readShape(params);
    return [...names("r", s.replicas), ...names("c", s.clients)];
  },
  seedNodes(params, root) {
    const s = seedShape(readShape(params), root);
    return [...names("r", s.replicas), ...names("c", s.clients)];
  },
  variants: MULTI_PAXOS_VARIANTS,
  defaultCheckers: () => MULTI_PAXOS_CHECKERS,
  // `$leader` in a fault: the replica that took the lead last and has not stepped down or crashed.
  traceRoles: { roles: [{ role: "leader", takenBy: ["multipaxos.leader"], endedBy: ["multipaxos.deposed", "crash"] }], idKinds: [] },
  create(w: WorkloadContext): Workload {
    const s = seedShape(readShape(w.params), w.sim.rng);
    const replicas = names("r", s.replicas);
    const clients = names("c", s.clients);
    const story = new MultiPaxosStory(w, s);
    return {
      setup() {
        const leaseMs = s.variant === "no-lease" ? 0 : s.leaseMs;
        replicas.forEach((id, index) =>
          w.sim.addNode(
            id,
            (ctx) =>
              new MultiPaxosReplica(ctx, {
                index,
                replicas,
                heartbeatMs: s.heartbeatMs,
                electionTimeoutMinMs: s.electionTimeoutMinMs,
                electionTimeoutMaxMs: s.electionTimeoutMaxMs,
                leaseMs,
                maxClockDriftPct: s.variant === "no-drift-margin" ? 0 : s.maxClockDriftPct,
                variant: s.variant === "skip-phase-1" || s.variant === "skip-gap-fill" || s.variant === "mute-promise" || s.variant === "no-catch-up" ? s.variant : "correct",
              }),
            w.scenario.disk,
          ),
        );
        const stopAtMs = s.clientStopAtMs ?? w.scenario.durationMs + 3000;
        clients.forEach((id, i) =>
          w.sim.addNode(id, (ctx) =>
            new MultiPaxosClient(ctx, { replicas, keys: s.keys, requestTimeoutMs: s.requestTimeoutMs, thinkMsMax: s.thinkMsMax, readOnly: i >= s.clients - s.readers, stopAtMs, reuseIdentity: s.variant === "restart-reuses-ids" })),
        );
        for (const id of [...replicas, ...clients]) w.sim.start(id);
      },
      narrative: () => story.lines(),
    };
  },
};

/** The run's milestones, in the book's words: leaders and their phase 1, no-ops, reads, deposed masters. */
/** The annotations the story tells. */
const NARRATED = ["multipaxos.leader", "multipaxos.deposed", "multipaxos.apply", "multipaxos.read", "multipaxos.client.complete"] as const;

class MultiPaxosStory {
  private readonly steps: string[] = [];
  private applied = 0;
  private reads = 0;
  private completed = 0;

  constructor(
    w: WorkloadContext,
    private readonly s: Shape,
  ) {
    w.sim.trace.subscribe((e) => this.onEvent(e), NARRATED);
  }

  private onEvent(e: TraceEvent<(typeof NARRATED)[number]>): void {
    const t = `${(e.atUs / 1000).toFixed(1)} ms`;
    switch (e.kind) {
      case "multipaxos.leader":
        this.steps.push(
          e.fields.phase1 === true
            ? `${t}: ${e.node} is the distinguished proposer (ballot ${e.fields.ballot}): phase 1 once for every slot from ${e.fields.fromSlot}, re-proposing ${e.fields.reproposed} open slot(s), ${e.fields.noops} gap(s) filled with no-ops`
            : `${t}: ${e.node} takes over at ballot ${e.fields.ballot} WITHOUT phase 1 (broken twin): it proposes after the last slot it knows`,
        );
        return;
      case "multipaxos.deposed":
        this.steps.push(`${t}: ${e.node} learns of the higher ballot ${e.fields.promised} and steps down`);
        return;
      case "multipaxos.apply":
        this.applied = Math.max(this.applied, e.fields.slot + 1);
        return;
      case "multipaxos.read":
        this.reads++;
        return;
      case "multipaxos.client.complete":
        this.completed++;
        return;
    }
  }

  lines(): string[] {
    const s = this.s;
    const margin = s.variant === "no-drift-margin" ? "no drift margin" : `a margin for clocks ${s.maxClockDriftPct}% off`;
    const lease = s.variant === "no-lease" || s.leaseMs === 0 ? "off (reads may be served by a deposed master)" : `${s.leaseMs} ms (${margin})`;
    const out = [`${s.replicas} replicas, ${s.clients} client(s) (${s.readers} only reading) over ${s.keys} key(s); master lease ${lease}${s.variant !== "correct" ? `; broken twin: ${s.variant}` : ""}.`];
    const shown = this.steps.length > 8 ? [...this.steps.slice(0, 4), `… ${this.steps.length - 7} more …`, ...this.steps.slice(-3)] : this.steps;
    out.push(...shown, `the log reached ${this.applied} slot(s); ${this.completed} client operations answered, ${this.reads} reads served by a leader from its state machine.`);
    return out;
  }
}
