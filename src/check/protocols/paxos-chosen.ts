/**
 * What "chosen" means, read from the trace (book 2.2: a value is chosen when a majority of the
 * acceptors have accepted one proposal): the `paxos.accepted` annotations, tallied per ballot
 * by distinct acceptor. Shared by the Paxos checkers (not by the protocol: checkers share no
 * code with what they check). A malformed annotation is reported, never skipped.
 */
import type { TraceEvent } from "../../sim/trace.js";

export type ProtocolValue = string | number;

export function isProtocolValue(v: unknown): v is ProtocolValue {
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

export interface ChosenProposal {
  ballot: number;
  value: ProtocolValue;
  acceptors: string[];
  event: TraceEvent;
}

export class ChosenTally {
  private readonly ballots = new Map<number, { value: ProtocolValue; acceptors: Set<string> }>();
  readonly chosen: ChosenProposal[] = [];

  /**
   * Reads one `paxos.accepted`; returns a problem in words (malformed, two values at one
   * ballot), or the proposal this acceptance made chosen, or undefined.
   */
  add(e: TraceEvent): { problem: string } | { chosen: ChosenProposal } | undefined {
    const f = e.fields ?? {};
    const ballot = f.ballot;
    const acceptors = f.acceptors;
    if (typeof ballot !== "number" || !Number.isInteger(ballot) || ballot < 1 || !isProtocolValue(f.value) || typeof acceptors !== "number" || acceptors < 1) {
      return { problem: `malformed paxos.accepted from ${e.node}: ${JSON.stringify(f)}` };
    }
    const tally = this.ballots.get(ballot) ?? { value: f.value, acceptors: new Set<string>() };
    this.ballots.set(ballot, tally);
    if (tally.value !== f.value) return { problem: `${e.node} accepted [${ballot}, ${String(f.value)}] but ballot ${ballot} was already proposed with ${String(tally.value)}: one ballot, two values` };
    const before = tally.acceptors.size;
    tally.acceptors.add(e.node);
    const majority = Math.floor(acceptors / 2) + 1;
    if (before < majority && tally.acceptors.size >= majority) {
      const c = { ballot, value: f.value, acceptors: [...tally.acceptors], event: e };
      this.chosen.push(c);
      return { chosen: c };
    }
    return undefined;
  }

  isChosen(value: ProtocolValue): boolean {
    return this.chosen.some((c) => c.value === value);
  }
}
