/**
 * Workloads "two-phase-commit" and "three-phase-commit": a coordinator, N participants and K
 * clients running the teaching models of src/protocols/ over datagrams, with the transactions
 * the scenario lists — or, with `swarm`, a shape and transactions the seed draws (the faults:
 * the scenario's nemesis). The default checkers are the four commit checkers and commit.liveness.
 */
import type { NodeContext } from "../../sim/node-context.js";
import { DEFAULT_TIMING } from "../../protocols/atomic-commit/config.js";
import { CommitClient, type PlannedTxn } from "../../protocols/atomic-commit/client.js";
import { TwoPhaseCoordinator } from "../../protocols/two-phase-commit/coordinator.js";
import { TwoPhaseParticipant } from "../../protocols/two-phase-commit/participant.js";
import type { TwoPcVariant } from "../../protocols/two-phase-commit/messages.js";
import { ThreePhaseCoordinator } from "../../protocols/three-phase-commit/coordinator.js";
import { ThreePhaseParticipant } from "../../protocols/three-phase-commit/participant.js";
import type { ThreePcVariant } from "../../protocols/three-phase-commit/messages.js";
import { COMMIT_CHECKER_NAMES, COMMIT_LIVENESS } from "../../check/protocols/index.js";
import type { Workload, WorkloadContext, WorkloadDef } from "../workload.js";
import { clientIds, COORDINATOR, parseCommitParams, participantIds, type CommitParams, type Protocol } from "./commit-params.js";
import { commitSeedNodes, drawSwarmShape } from "./commit-swarm.js";
import { CommitNarrator } from "./commit-narrative.js";

interface World {
  participants: string[];
  clients: string[];
  termination: CommitParams["termination"];
  executionFailureRate: number;
  plans: Map<string, PlannedTxn[]>;
  extra: string[];
}

function world(w: WorkloadContext, p: CommitParams): World {
  if (!p.swarm) {
    const clients = clientIds(p.clients);
    const plans = new Map(clients.map((c) => [c, p.transactions.filter((t) => t.client === c).sort((a, b) => a.atMs - b.atMs)]));
    return { participants: participantIds(p.participants), clients, termination: p.termination, executionFailureRate: 0, plans, extra: [] };
  }
  const shape = drawSwarmShape(w.sim.rng, p.participants, p.clients);
  const termination = p.protocol === "2pc" ? shape.termination : "cooperative";
  const extra = [`shape: ${shape.participants} participants, ${shape.clients} client(s), ${[...shape.plans.values()].reduce((a, b) => a + b.length, 0)} transactions, execution failure rate ${shape.executionFailureRate}${p.protocol === "2pc" ? `, termination: ${termination}` : ""}`];
  return { participants: participantIds(shape.participants), clients: clientIds(shape.clients), termination, executionFailureRate: shape.executionFailureRate, plans: shape.plans, extra };
}

function makeDef(protocol: Protocol, kind: string, description: string): WorkloadDef {
  const def: WorkloadDef = {
    kind,
    description,
    nodes(params) {
      const p = parseCommitParams(protocol, kind, params);
      return [COORDINATOR, ...participantIds(p.participants), ...clientIds(p.clients)];
    },
    seedNodes(params, root) {
      const p = parseCommitParams(protocol, kind, params);
      return p.swarm ? commitSeedNodes(root, p.participants, p.clients) : def.nodes(params);
    },
    defaultCheckers: () => [...COMMIT_CHECKER_NAMES, COMMIT_LIVENESS[0]],
    create(w: WorkloadContext): Workload {
      const p = parseCommitParams(protocol, kind, w.params);
      const narrator = new CommitNarrator(w.sim, protocol, p.story);
      const extra: string[] = [];
      return {
        setup() {
          const wd = world(w, p);
          extra.push(...wd.extra);
          const disk = w.scenario.disk;
          w.sim.addNode(COORDINATOR, (ctx) => coordinatorOf(protocol, p, ctx, wd), disk);
          for (const id of wd.participants) w.sim.addNode(id, (ctx) => participantOf(protocol, p, ctx, wd), disk);
          for (const c of wd.clients) w.sim.addNode(c, (ctx) => new CommitClient(ctx, protocol, COORDINATOR, wd.plans.get(c) ?? [], DEFAULT_TIMING.clientRetryMs), disk);
          for (const id of [COORDINATOR, ...wd.participants, ...wd.clients]) w.sim.start(id);
        },
        narrative: () => narrator.lines(p.variant !== undefined ? [`variant: ${p.variant} (a broken twin the checkers must catch)`, ...extra] : extra),
      };
    },
  };
  return def;
}

function coordinatorOf(protocol: Protocol, p: CommitParams, ctx: NodeContext, wd: World): object {
  return protocol === "2pc"
    ? new TwoPhaseCoordinator(ctx, wd.participants, DEFAULT_TIMING, p.variant as TwoPcVariant | undefined)
    : new ThreePhaseCoordinator(ctx, wd.participants, DEFAULT_TIMING);
}

function participantOf(protocol: Protocol, p: CommitParams, ctx: NodeContext, wd: World): object {
  const peers = wd.participants.filter((q) => q !== ctx.id);
  return protocol === "2pc"
    ? new TwoPhaseParticipant(ctx, COORDINATOR, peers, DEFAULT_TIMING, wd.termination, wd.executionFailureRate, p.variant as TwoPcVariant | undefined)
    : new ThreePhaseParticipant(ctx, COORDINATOR, peers, DEFAULT_TIMING, wd.executionFailureRate, p.variant as ThreePcVariant | undefined);
}

export const twoPhaseCommitWorkload = makeDef("2pc", "two-phase-commit", "2PC (book 2.1.1): a coordinator, participants and clients over datagrams; transactions over a small keyed store");
export const threePhaseCommitWorkload = makeDef("3pc", "three-phase-commit", "3PC (book 2.1.2): canCommit / preCommit / doCommit with the timeout rules; transactions over a small keyed store");
