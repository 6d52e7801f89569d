/**
 * Workload "paxos": single-decree Paxos (book 2.2) — proposers p1…pP, acceptors a1…aA,
 * learners l1…lL on the kernel's datagrams — for `paxos-basic`, `paxos-dueling-proposers`,
 * `paxos-acceptor-crash` and the swarm `paxos-random-faults`.
 *
 * Parameters: acceptors (1–9, default 3), proposers (1–5, default 2), learners (1–5, default
 * 1), values (one string or number per proposer), startAtMs (per proposer), phaseTimeoutMs,
 * retryMinMs / retryMaxMs (the backoff after a lost ballot), distinguishedProposer (default p1)
 * and distinguishedFromMs (default: the scenario's durationMs, so the convergence phase has one
 * proposer — the condition of Paxos's liveness), variant (correct, promise-before-fsync,
 * ignore-promised-values, announce-once, learn-unwritten), swarm (true: the seed draws the shape; the scenario's "protocol-swarm"
 * nemesis draws the faults before the run, over `seedNodes`).
 *
 * The narrative retells the run in the book's words from the trace: ballots, promises,
 * adopted values, pre-emptions, the chosen value and what the learners learned.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { PaxosAcceptor, PaxosLearner, PaxosProposer, PAXOS_VARIANTS, majority, type PaxosValue, type PaxosVariant } from "../../protocols/paxos/index.js";
import { intParam, type Workload, type WorkloadContext, type WorkloadDef } from "../workload.js";
import { knownParams, nodeParam, numberListParam, valueListParam, variantParam, boolParam } from "./protocol-params.js";
import type { Rng } from "../../sim/rng.js";
import { MAX_DURATION_MS } from "../durations.js";

const KIND = "paxos";
const KNOWN = ["acceptors", "proposers", "learners", "values", "startAtMs", "phaseTimeoutMs", "retryMinMs", "retryMaxMs", "distinguishedProposer", "distinguishedFromMs", "variant", "swarm"];
export const PAXOS_CHECKERS = ["paxos.agreement", "paxos.validity", "paxos.learned-chosen", "paxos.learned-durable", "paxos.liveness"];
const SWARM_MAX = { acceptors: 5, proposers: 3, learners: 2 };

interface PaxosShape {
  acceptors: number;
  proposers: number;
  learners: number;
  values: PaxosValue[];
  startAtMs: number[];
  phaseTimeoutMs: number;
  retryMinMs: number;
  retryMaxMs: number;
  distinguishedProposer: string;
  distinguishedFromMs: number | undefined;
  variant: PaxosVariant;
  swarm: boolean;
}

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

function readShape(params: Record<string, unknown>): PaxosShape {
  knownParams(params, KIND, KNOWN);
  const swarm = boolParam(params, "swarm", false);
  const acceptors = intParam(params, "acceptors", swarm ? SWARM_MAX.acceptors : 3, 1, 9);
  const proposers = intParam(params, "proposers", swarm ? SWARM_MAX.proposers : 2, 1, 5);
  const learners = intParam(params, "learners", swarm ? SWARM_MAX.learners : 1, 1, 5);
  const retryMinMs = intParam(params, "retryMinMs", 10, 0, 60_000);
  const retryMaxMs = intParam(params, "retryMaxMs", 100, retryMinMs, 60_000);
  const fromMs = params.distinguishedFromMs === undefined ? undefined : intParam(params, "distinguishedFromMs", 0, 0, MAX_DURATION_MS);
  return {
    acceptors,
    proposers,
    learners,
    values: valueListParam(params, "values", proposers, (i) => String.fromCharCode(65 + i)),
    startAtMs: numberListParam(params, "startAtMs", proposers, (i) => i * 5),
    phaseTimeoutMs: intParam(params, "phaseTimeoutMs", 100, 1, 60_000),
    retryMinMs,
    retryMaxMs,
    distinguishedProposer: nodeParam(params, "distinguishedProposer", names("p", proposers)) ?? "p1",
    distinguishedFromMs: fromMs,
    variant: variantParam(params, KIND, PAXOS_VARIANTS),
    swarm,
  };
}

/** The swarm: the seed's "swarm/shape" stream redraws the cluster and the timings. */
function drawSwarmShape(root: Rng, base: PaxosShape): PaxosShape {
  const rng = root.fork("swarm").fork("shape");
  const acceptors = rng.chance(0.5) ? 3 : 5;
  const proposers = rng.int(2, SWARM_MAX.proposers);
  const retryMinMs = rng.int(0, 50);
  return {
    ...base,
    acceptors,
    proposers,
    learners: rng.int(1, SWARM_MAX.learners),
    values: names("v", proposers),
    startAtMs: Array.from({ length: proposers }, () => (rng.chance(0.5) ? rng.int(0, 300) : rng.int(0, 5000))),
    phaseTimeoutMs: rng.int(30, 300),
    retryMinMs,
    retryMaxMs: retryMinMs + rng.int(0, 300),
  };
}

export const paxosWorkload: WorkloadDef = {
  kind: KIND,
  description: "single-decree Paxos: proposers, acceptors and learners (book 2.2)",
  nodes(params) {
    const s = readShape(params);
    return [...names("p", s.proposers), ...names("a", s.acceptors), ...names("l", s.learners)];
  },
  seedNodes(params, root) {
    const base = readShape(params);
    const s = base.swarm ? drawSwarmShape(root, base) : base;
    return [...names("p", s.proposers), ...names("a", s.acceptors), ...names("l", s.learners)];
  },
  variants: PAXOS_VARIANTS,
  defaultCheckers: () => PAXOS_CHECKERS,
  create(w: WorkloadContext): Workload {
    const base = readShape(w.params);
    const s = base.swarm ? drawSwarmShape(w.sim.rng, base) : base;
    const proposers = names("p", s.proposers);
    const acceptors = names("a", s.acceptors);
    const learners = names("l", s.learners);
    const story = new PaxosStory(w, s);
    return {
      setup() {
        const distinguished = { proposer: s.distinguishedProposer, fromMs: s.distinguishedFromMs ?? w.scenario.durationMs };
        const acceptorVariant = s.variant === "promise-before-fsync" ? "promise-before-fsync" : "correct";
        const proposerVariant = s.variant === "ignore-promised-values" || s.variant === "announce-once" ? s.variant : "correct";
        for (const id of acceptors) w.sim.addNode(id, (ctx) => new PaxosAcceptor(ctx, { learners, acceptors: s.acceptors, variant: acceptorVariant }), w.scenario.disk);
        for (const id of learners) w.sim.addNode(id, (ctx) => new PaxosLearner(ctx, { acceptors: s.acceptors, variant: s.variant === "learn-unwritten" ? s.variant : "correct" }), w.scenario.disk);
        proposers.forEach((id, index) =>
          w.sim.addNode(
            id,
            (ctx) =>
              new PaxosProposer(ctx, {
                index,
                proposers: s.proposers,
                acceptors,
                learners,
                value: s.values[index]!,
                startAtMs: s.startAtMs[index]!,
                phaseTimeoutMs: s.phaseTimeoutMs,
                retryMinMs: s.retryMinMs,
                retryMaxMs: s.retryMaxMs,
                distinguished,
                variant: proposerVariant,
              }),
            w.scenario.disk,
          ),
        );
        for (const id of [...acceptors, ...learners, ...proposers]) w.sim.start(id);
      },
      narrative: () => story.lines(),
    };
  },
};

/** Collects the run's milestones from the trace and retells them in the book's words. */
/** The annotations the story tells. */
const NARRATED = ["paxos.prepare", "paxos.preempted", "paxos.timeout", "paxos.propose", "paxos.chosen", "paxos.learned", "paxos.proposer.deferred"] as const;

class PaxosStory {
  private prepares = 0;
  private preempted = 0;
  private timeouts = 0;
  /** Proposals and choices, in trace order. */
  private readonly steps: string[] = [];
  private readonly learned = new Map<string, PaxosValue>();

  constructor(
    w: WorkloadContext,
    private readonly s: PaxosShape,
  ) {
    w.sim.trace.subscribe((e) => this.onEvent(e), NARRATED);
  }

  private onEvent(e: TraceEvent<(typeof NARRATED)[number]>): void {
    const t = `${(e.atUs / 1000).toFixed(1)} ms`;
    switch (e.kind) {
      case "paxos.prepare":
        this.prepares++;
        return;
      case "paxos.preempted":
        this.preempted++;
        return;
      case "paxos.timeout":
        this.timeouts++;
        return;
      case "paxos.propose":
        this.steps.push(
          e.fields.adopted === true
            ? `${t}: ${e.node} proposes [${e.fields.ballot}, ${e.fields.value}], adopting the value accepted at ballot ${e.fields.adoptedFrom} (P2c)`
            : e.fields.adoptedFrom > 0
              ? `${t}: ${e.node} proposes [${e.fields.ballot}, ${e.fields.value}], ignoring the value accepted at ballot ${e.fields.adoptedFrom} its promises reported`
              : `${t}: ${e.node} proposes [${e.fields.ballot}, ${e.fields.value}]: no acceptor in its majority had accepted anything, so the value is its own`,
        );
        return;
      case "paxos.chosen":
        this.steps.push(`${t}: ${e.node} sees a majority accept [${e.fields.ballot}, ${e.fields.value}]: ${e.fields.value} is chosen`);
        return;
      case "paxos.learned":
        this.learned.set(e.node, e.fields.value);
        return;
      case "paxos.proposer.deferred":
        this.steps.push(`${t}: ${e.node} stops proposing: ${e.fields.to} is the distinguished proposer`);
        return;
    }
  }

  lines(): string[] {
    const s = this.s;
    const out = [
      `${s.proposers} proposers (values ${s.values.join(", ")}), ${s.acceptors} acceptors (a majority is ${majority(s.acceptors)}), ${s.learners} learner(s)${s.variant !== "correct" ? `; broken twin: ${s.variant}` : ""}.`,
    ];
    out.push(`phase 1 (prepare/promise): ${this.prepares} ballots tried, ${this.preempted} pre-empted by a higher promise, ${this.timeouts} timed out.`);
    const shown = this.steps.length > 8 ? [...this.steps.slice(0, 4), `… ${this.steps.length - 7} more steps …`, ...this.steps.slice(-3)] : this.steps;
    out.push(...shown);
    const learned = [...this.learned].map(([l, v]) => `${l} learned ${String(v)}`);
    out.push(learned.length > 0 ? `learners: ${learned.join(", ")}.` : `no learner learned a value.`);
    return out;
  }
}
