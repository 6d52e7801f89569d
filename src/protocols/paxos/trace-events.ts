/**
 * The `paxos.*` trace annotations and their fields (types only: the checkers read the trace
 * through these names and share no code with the protocol). `node` is the annotating process;
 * where a peer is involved (the proposer a promise or acceptance answers) it is the event's peer.
 */
import "../../sim/trace-schema.js";
import type { PaxosValue } from "./messages.js";

export interface PaxosTraceEvents {
  /** A proposer started (or restarted): the value it will propose when free to choose. */
  "paxos.proposer.input": { value: PaxosValue; round: number };
  /** Phase 1a sent to every acceptor. */
  "paxos.prepare": { ballot: number };
  /** An acceptor's promise, durable, as it leaves (acceptedBallot 0: nothing accepted yet). */
  "paxos.promised": { ballot: number; acceptedBallot: number; acceptedValue: PaxosValue | null };
  /** Phase 2a sent: `adopted` when the value came from a promise (of ballot `adoptedFrom`). */
  "paxos.propose": { ballot: number; value: PaxosValue; adoptedFrom: number; adopted: boolean };
  /** An acceptor accepted [ballot, value], durable, as its answer leaves; `acceptors` is the acceptor count. */
  "paxos.accepted": { ballot: number; value: PaxosValue; acceptors: number };
  /** A proposer saw a majority accept its proposal. */
  "paxos.chosen": { ballot: number; value: PaxosValue };
  /** A learner's learned value is durable (`via`: a majority of acceptances, or a proposer's `chosen`). */
  "paxos.learned": { value: PaxosValue; via: "accepted" | "chosen" };
  /** A learner (re)started: the value its disk holds (null: none yet). */
  "paxos.learner.recovered": { value: PaxosValue | null };
  /** A proposer's ballot was refused: an acceptor promised `promised`. */
  "paxos.preempted": { ballot: number; promised: number };
  /** A proposer's phase outlived its timeout. */
  "paxos.timeout": { ballot: number; phase: string };
  /** A proposer stopped starting rounds: `to` is the distinguished proposer. */
  "paxos.proposer.deferred": { to: string };
  /** An acceptor (re)started with this state from its disk. */
  "paxos.acceptor.recovered": { promised: number; acceptedBallot: number; acceptedValue: PaxosValue | null };
}

declare module "../../sim/trace-schema.js" {
  interface TraceAnnotations extends PaxosTraceEvents {}
}
