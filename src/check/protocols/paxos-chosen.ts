/**
 * What "chosen" means, read from the trace (book 2.2: a value is chosen when a majority of the
 * acceptors have accepted one proposal): the `paxos.accepted` annotations, tallied per ballot
 * by distinct acceptor. Shared by the Paxos checkers (not by the protocol: checkers share no
 * code with what they check). A malformed annotation throws `MalformedEvent`
 * (check/event-reader), which the checkers' `guarded` reports: never skipped.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { intField, MalformedEvent, presentField, type FieldName } from "../event-reader.js";

export type ProtocolValue = string | number;

export function isProtocolValue(v: unknown): v is ProtocolValue {
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

/** A proposal's value as written (a string or a finite number, compared as is): present and of that type. */
export function protocolValueField<E extends TraceEvent>(e: E, field: FieldName<E>): ProtocolValue {
  const v = presentField(e, field);
  if (isProtocolValue(v)) return v;
  throw new MalformedEvent(e, field, v, "a value (text or a finite number)");
}

/** An integer field that must be at least 1 (a ballot, a process count). */
function positiveIntField<E extends TraceEvent>(e: E, field: FieldName<E>): number {
  const n = intField(e, field);
  if (n >= 1) return n;
  throw new MalformedEvent(e, field, n, "an integer ≥ 1");
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
   * Reads one `paxos.accepted`; returns a problem in words (two values at one ballot), or the
   * proposal this acceptance made chosen, or undefined. A malformed one throws `MalformedEvent`.
   */
  add(e: TraceEvent<"paxos.accepted">): { problem: string } | { chosen: ChosenProposal } | undefined {
    const ballot = positiveIntField(e, "ballot");
    const value = protocolValueField(e, "value");
    const acceptors = positiveIntField(e, "acceptors");
    const tally = this.ballots.get(ballot) ?? { value, acceptors: new Set<string>() };
    this.ballots.set(ballot, tally);
    if (tally.value !== value) return { problem: `${e.node} accepted [${ballot}, ${String(value)}] but ballot ${ballot} was already proposed with ${String(tally.value)}: one ballot, two values` };
    const before = tally.acceptors.size;
    tally.acceptors.add(e.node);
    const majority = Math.floor(acceptors / 2) + 1;
    if (before < majority && tally.acceptors.size >= majority) {
      const chosen = { ballot, value, acceptors: [...tally.acceptors], event: e };
      this.chosen.push(chosen);
      return { chosen };
    }
    return undefined;
  }

  isChosen(value: ProtocolValue): boolean {
    return this.chosen.some((c) => c.value === value);
  }
}
