/**
 * Reading the 2PC/3PC annotations ("2pc.*", "3pc.*") out of the trace for the commit checkers.
 * The field names are compile-checked against the trace schema (the types of
 * src/protocols/*-commit/trace-events.ts, through `checked(e)`); no protocol code is imported:
 * a checker must not share code with what it checks. A malformed event throws `MalformedEvent` (check/event-reader),
 * which the checker's `guarded` reports as a violation rather than skipping the event.
 *
 * Outcomes are compared on one scale: 2PC's "rollback" and 3PC's "abort" are both an abort.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { checked, MalformedEvent, oneOfField, presentField, stringField, stringListField, type CheckedEvent, type FieldName } from "../event-reader.js";

export type Outcome = "commit" | "abort";

export type CommitEvent =
  | { kind: "begin"; txn: string; participants: string[] }
  | { kind: "vote"; txn: string; vote: "yes" | "no"; locks: string[] }
  | { kind: "decision"; txn: string; decision: Outcome; word: string }
  | { kind: "apply"; txn: string; outcome: Outcome; word: string; by: string }
  | { kind: "recover-coordinator"; decisions: Map<string, Outcome> }
  | { kind: "recover-participant"; inDoubt: string[]; outcomes: Map<string, Outcome> }
  | { kind: "request"; txn: string }
  | { kind: "result"; txn: string; outcome: string };

const READ = new Set(["begin", "vote", "decision", "apply", "recover", "request", "result"]);

/** True for the annotation kinds the commit checkers read. */
export function isCommitKind(kind: string): boolean {
  return (kind.startsWith("2pc.") || kind.startsWith("3pc.")) && READ.has(kind.slice(4));
}

export function protocolOf(kind: string): string {
  return kind.slice(0, 3).toUpperCase();
}

function outcome(word: "commit" | "rollback" | "abort"): Outcome {
  return word === "commit" ? "commit" : "abort";
}

const OUTCOME_WORDS = ["commit", "rollback", "abort"] as const;

/** A recovery's `[txn, outcome]` list: the reader has no pair reader, so this one checks the shape itself. */
function pairsField<E extends CheckedEvent>(e: E, field: FieldName<E>): Map<string, Outcome> {
  const v = presentField(e, field);
  const m = new Map<string, Outcome>();
  const bad = () => new MalformedEvent(e, field, v, "a list of [txn, commit | rollback | abort] pairs");
  if (!Array.isArray(v)) throw bad();
  for (const p of v as unknown[]) {
    if (!Array.isArray(p) || typeof p[0] !== "string" || !(OUTCOME_WORDS as readonly unknown[]).includes(p[1])) throw bad();
    m.set(p[0], outcome(p[1] as (typeof OUTCOME_WORDS)[number]));
  }
  return m;
}

/**
 * The event in the checkers' terms. Every field it judges by is read through check/event-reader:
 * a missing or mistyped one throws `MalformedEvent`, which the checker's `guarded` reports.
 */
export function readCommitEvent(e: TraceEvent): CommitEvent {
  const c = checked(e);
  switch (c.kind) {
    case "2pc.begin":
    case "3pc.begin": {
      const txn = stringField(c, "txn");
      const participants = stringListField(c, "participants");
      if (participants.length === 0) throw new MalformedEvent(c, "participants", participants, "a non-empty list of participants");
      return { kind: "begin", txn, participants };
    }
    case "2pc.vote":
    case "3pc.vote": {
      const txn = stringField(c, "txn");
      const vote = oneOfField(c, "vote", ["yes", "no"] as const);
      return { kind: "vote", txn, vote, locks: stringListField(c, "locks") };
    }
    case "2pc.decision":
    case "3pc.decision": {
      const txn = stringField(c, "txn");
      const word = oneOfField(c, "decision", OUTCOME_WORDS);
      return { kind: "decision", txn, decision: outcome(word), word };
    }
    case "2pc.apply":
    case "3pc.apply": {
      const txn = stringField(c, "txn");
      const word = oneOfField(c, "outcome", OUTCOME_WORDS);
      return { kind: "apply", txn, outcome: outcome(word), word, by: stringField(c, "by") };
    }
    case "2pc.recover":
    case "3pc.recover": {
      if (oneOfField(c, "role", ["coordinator", "participant"] as const) === "coordinator") return { kind: "recover-coordinator", decisions: pairsField(c, "decisions") };
      const inDoubt = stringListField(c, "inDoubt");
      return { kind: "recover-participant", inDoubt, outcomes: pairsField(c, "outcomes") };
    }
    case "2pc.request":
    case "3pc.request":
      return { kind: "request", txn: stringField(c, "txn") };
    case "2pc.result":
    case "3pc.result":
      return { kind: "result", txn: stringField(c, "txn"), outcome: stringField(c, "outcome") };
    default:
      throw new Error(`readCommitEvent was given ${e.kind} (#${e.index}), which isCommitKind does not accept`);
  }
}

export function secs(us: number): string {
  return `${(us / 1e6).toFixed(3)} s`;
}
