/**
 * Reading the 2PC/3PC annotations ("2pc.*", "3pc.*") out of the trace for the commit checkers.
 * The field names are compile-checked against the trace schema (the types of
 * src/protocols/*-commit/trace-events.ts); no protocol code is imported:
 * a checker must not share code with what it checks. A malformed event throws `MalformedEvent` (check/event-reader),
 * which the checker's `guarded` reports as a violation rather than skipping the event.
 *
 * Outcomes are compared on one scale: 2PC's "rollback" and 3PC's "abort" are both an abort.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { MalformedEvent, oneOfField, optionalStringField, presentField, stringField, stringListField, type FieldName } from "../event-reader.js";

export type Outcome = "commit" | "abort";

export type CommitEvent =
  | { kind: "begin"; txn: string; participants: string[] }
  | { kind: "vote"; txn: string; vote: "yes" | "no"; locks: string[] }
  | { kind: "decision"; txn: string; decision: Outcome; word: string; votedNo: string | undefined }
  | { kind: "apply"; txn: string; outcome: Outcome; word: string; by: string }
  | { kind: "recover-coordinator"; decisions: Map<string, Outcome> }
  | { kind: "recover-participant"; inDoubt: string[]; outcomes: Map<string, Outcome> }
  | { kind: "request"; txn: string }
  | { kind: "result"; txn: string; outcome: string };

/** The annotation kinds the commit checkers read, of both protocols. */
export const COMMIT_KINDS = [
  "2pc.begin", "2pc.vote", "2pc.decision", "2pc.apply", "2pc.recover", "2pc.request", "2pc.result",
  "3pc.begin", "3pc.vote", "3pc.decision", "3pc.apply", "3pc.recover", "3pc.request", "3pc.result",
] as const;
export type CommitKind = (typeof COMMIT_KINDS)[number];
const COMMIT_KIND_SET: ReadonlySet<string> = new Set(COMMIT_KINDS);

/** True for the annotation kinds the commit checkers read. */
export function isCommitEvent(e: TraceEvent): e is TraceEvent<CommitKind> {
  return COMMIT_KIND_SET.has(e.kind);
}

export function protocolOf(kind: string): string {
  return kind.slice(0, 3).toUpperCase();
}

function outcome(word: "commit" | "rollback" | "abort"): Outcome {
  return word === "commit" ? "commit" : "abort";
}

const OUTCOME_WORDS = ["commit", "rollback", "abort"] as const;

/** A recovery's `[txn, outcome]` list: the reader has no pair reader, so this one checks the shape itself. */
function pairsField<E extends TraceEvent>(e: E, field: FieldName<E>): Map<string, Outcome> {
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
export function readCommitEvent(e: TraceEvent<CommitKind>): CommitEvent {
  switch (e.kind) {
    case "2pc.begin":
    case "3pc.begin": {
      const txn = stringField(e, "txn");
      const participants = stringListField(e, "participants");
      if (participants.length === 0) throw new MalformedEvent(e, "participants", participants, "a non-empty list of participants");
      return { kind: "begin", txn, participants };
    }
    case "2pc.vote":
    case "3pc.vote": {
      const txn = stringField(e, "txn");
      const vote = oneOfField(e, "vote", ["yes", "no"] as const);
      return { kind: "vote", txn, vote, locks: stringListField(e, "locks") };
    }
    case "2pc.decision":
    case "3pc.decision": {
      const txn = stringField(e, "txn");
      const word = oneOfField(e, "decision", OUTCOME_WORDS);
      return { kind: "decision", txn, decision: outcome(word), word, votedNo: optionalStringField(e, "votedNo") };
    }
    case "2pc.apply":
    case "3pc.apply": {
      const txn = stringField(e, "txn");
      const word = oneOfField(e, "outcome", OUTCOME_WORDS);
      return { kind: "apply", txn, outcome: outcome(word), word, by: stringField(e, "by") };
    }
    case "2pc.recover":
    case "3pc.recover": {
      if (oneOfField(e, "role", ["coordinator", "participant"] as const) === "coordinator") return { kind: "recover-coordinator", decisions: pairsField(e, "decisions") };
      const inDoubt = stringListField(e, "inDoubt");
      return { kind: "recover-participant", inDoubt, outcomes: pairsField(e, "outcomes") };
    }
    case "2pc.request":
    case "3pc.request":
      return { kind: "request", txn: stringField(e, "txn") };
    case "2pc.result":
    case "3pc.result":
      return { kind: "result", txn: stringField(e, "txn"), outcome: stringField(e, "outcome") };
  }
}

export function secs(us: number): string {
  return `${(us / 1e6).toFixed(3)} s`;
}
