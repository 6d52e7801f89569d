/**
 * The Paxos adapter of the stepping interface: single-decree Paxos (book 2.2) on the kernel's
 * datagrams — proposers p1 (value A) and p2 (value B), acceptors a1…a3, learner l1 — with the
 * Paxos safety checkers live (agreement, validity, learned ⇒ chosen).
 *
 * p1 starts phase 1 at once; p2 waits `P2_START_MS` (its start timer is in the pending list:
 * fire it to bring p2 in whenever you like). Every message is a datagram, so any pending one
 * can be delivered next, dropped or duplicated.
 *
 * Variants: "correct" (the default); "dueling" (both start together and retry at once after a
 * refusal — they pre-empt each other round after round — until p1 becomes the distinguished
 * proposer at `DISTINGUISHED_FROM_MS`); and the broken twins "ignore-promised-values" (a
 * proposer that proposes its own value whatever the promises report) and
 * "promise-before-fsync" (an acceptor that answers before its state is durable).
 *
 * The world is ready at once: nothing has happened yet.
 */
import { Simulator } from "../../sim/simulator.js";
import { UserInputError } from "../../sim/errors.js";
import { subscribeCheckers, type Checker } from "../../check/checker.js";
import { PaxosAgreementChecker } from "../../check/protocols/paxos-agreement.js";
import { PaxosValidityChecker } from "../../check/protocols/paxos-validity.js";
import { PaxosLearnedChosenChecker } from "../../check/protocols/paxos-learned-chosen.js";
import { PaxosAcceptor, PaxosLearner, PaxosProposer, type PaxosMessage, type PaxosValue } from "../../protocols/paxos/index.js";
import { kindVocabulary } from "../vocabulary.js";
import type { NodeView, ProtocolAdapter, World } from "../types.js";
import { narratePaxos, paxosBookOfType, proposalText } from "./paxos-narrate.js";
import { paxosNodeView } from "./paxos-views.js";
import { paxosThreats } from "./paxos-threats.js";
import { BallotFold } from "./paxos-ballots.js";

export const PAXOS_PROPOSERS = ["p1", "p2"] as const;
export const PAXOS_ACCEPTORS = ["a1", "a2", "a3"] as const;
export const PAXOS_LEARNERS = ["l1"] as const;
const VALUES: readonly PaxosValue[] = ["A", "B"];
/** p2's start timer, in the correct variant and the broken twins. */
export const P2_START_MS = 300;
/** Dueling: from this local time on, only p1 starts rounds. */
export const DISTINGUISHED_FROM_MS = 30;

export type PaxosLearnVariant = "correct" | "dueling" | "ignore-promised-values" | "promise-before-fsync";

export interface PaxosWorld extends World {
  readonly variant: PaxosLearnVariant;
  readonly ballots: BallotFold;
}

interface Timing {
  startAtMs: [number, number];
  network: { minDelayUs: number; maxDelayUs: number };
  disk: { fsyncLatencyUs: number };
  retryMinMs: number;
  retryMaxMs: number;
  distinguished: { proposer: string; fromMs: number } | undefined;
}

function timing(variant: PaxosLearnVariant): Timing {
  if (variant === "dueling") return { startAtMs: [0, 2], network: { minDelayUs: 1_000, maxDelayUs: 4_000 }, disk: { fsyncLatencyUs: 1_000 }, retryMinMs: 0, retryMaxMs: 0, distinguished: { proposer: "p1", fromMs: DISTINGUISHED_FROM_MS } };
  return { startAtMs: [0, P2_START_MS], network: { minDelayUs: 1_000, maxDelayUs: 3_000 }, disk: { fsyncLatencyUs: 2_000 }, retryMinMs: 10, retryMaxMs: 100, distinguished: undefined };
}

function liveCheckers(): Checker[] {
  return [new PaxosAgreementChecker(), new PaxosValidityChecker(), new PaxosLearnedChosenChecker()];
}

const TIMER_NAMES: Record<string, string> = {
  "paxos.start": "start: begin phase 1",
  "paxos.retry": "backoff over: retry higher",
  "paxos.phase-timeout": "phase timeout (give up ballot)",
  "paxos.announce": "tell learners again",
};

export const paxosAdapter: ProtocolAdapter<PaxosWorld> = {
  protocol: "paxos",
  title: "Paxos — proposers, acceptors and a learner (single-decree)",
  variants: ["correct", "dueling", "ignore-promised-values", "promise-before-fsync"],

  build(seed, variant) {
    const v = variant as PaxosLearnVariant;
    const t = timing(v);
    const sim = new Simulator({ seed, network: t.network });
    const acceptors = [...PAXOS_ACCEPTORS];
    const learners = [...PAXOS_LEARNERS];
    for (const id of acceptors) sim.addNode(id, (ctx) => new PaxosAcceptor(ctx, { learners, acceptors: acceptors.length, variant: v === "promise-before-fsync" ? "promise-before-fsync" : "correct" }), t.disk);
    for (const id of learners) sim.addNode(id, (ctx) => new PaxosLearner(ctx, { acceptors: acceptors.length }), t.disk);
    PAXOS_PROPOSERS.forEach((id, index) =>
      sim.addNode(
        id,
        (ctx) =>
          new PaxosProposer(ctx, {
            index,
            proposers: PAXOS_PROPOSERS.length,
            acceptors,
            learners,
            value: VALUES[index]!,
            startAtMs: t.startAtMs[index]!,
            phaseTimeoutMs: 100,
            retryMinMs: t.retryMinMs,
            retryMaxMs: t.retryMaxMs,
            distinguished: t.distinguished,
            variant: v === "ignore-promised-values" ? "ignore-promised-values" : "correct",
          }),
        t.disk,
      ),
    );
    const ballots = new BallotFold(acceptors.length);
    sim.trace.subscribe((e) => ballots.onEvent(e), BallotFold.KINDS);
    const checkers = liveCheckers();
    subscribeCheckers(sim.trace, checkers);
    for (const id of [...PAXOS_PROPOSERS, ...acceptors, ...learners]) sim.start(id);
    return { sim, variant: v, ballots, liveCheckers: checkers };
  },

  ready: () => true,

  ...kindVocabulary(paxosBookOfType, detailOf, TIMER_NAMES),

  nodeViews(world): NodeView[] {
    return [...PAXOS_PROPOSERS, ...PAXOS_ACCEPTORS, ...PAXOS_LEARNERS].map((id) => paxosNodeView(world.sim.node(id)));
  },

  panel: (world) => world.ballots.panel(),

  narrate: (event) => narratePaxos(event),

  isDecisive: (event) => event.kind === "paxos.chosen" || event.kind === "paxos.learned",

  threats: paxosThreats,

  clientAction(_world, client) {
    throw new UserInputError(`paxos has no clients (asked for "${client}"): each proposer proposes its own value — fire a proposer's start timer (fire REF) to bring it in now`);
  },
};

function detailOf(m: PaxosMessage): string {
  switch (m.kind) {
    case "prepare":
      return `ballot ${m.ballot}`;
    case "promise":
      return `ballot ${m.ballot}, ${m.acceptedBallot > 0 ? `had ${proposalText(m.acceptedBallot, m.acceptedValue)}` : "none accepted"}`;
    case "accept":
    case "accepted":
      return proposalText(m.ballot, m.value);
    case "nack":
      return `ballot ${m.ballot} < promised ${m.promised}`;
    case "chosen":
    case "learned":
      return String(m.value);
  }
}
