/**
 * Reading the 2PC/3PC annotations ("2pc.*", "3pc.*") out of the trace for the commit checkers.
 * It repeats the field shapes the protocols write (documented in
 * src/protocols/*-commit/trace-events.ts) without importing the protocols: a checker must not
 * share code with what it checks. A malformed event is returned as a string (the problem),
 * which the checker reports as a violation rather than skipping the event.
 *
 * Outcomes are compared on one scale: 2PC's "rollback" and 3PC's "abort" are both an abort.
 */
import type { TraceEvent } from "../../sim/trace.js";

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

function outcome(v: unknown): Outcome | undefined {
  if (v === "commit") return "commit";
  if (v === "rollback" || v === "abort") return "abort";
  return undefined;
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : undefined;
}

function pairs(v: unknown): Map<string, Outcome> | undefined {
  if (!Array.isArray(v)) return undefined;
  const m = new Map<string, Outcome>();
  for (const p of v) {
    if (!Array.isArray(p) || typeof p[0] !== "string" || outcome(p[1]) === undefined) return undefined;
    m.set(p[0], outcome(p[1])!);
  }
  return m;
}

/** The event in the checkers' terms, or a sentence saying what is wrong with it. */
export function readCommitEvent(e: TraceEvent): CommitEvent | string {
  const f = e.fields ?? {};
  const what = e.kind.slice(4);
  const txn = f.txn;
  const bad = (field: string) => `malformed ${e.kind} event #${e.index} on ${e.node}: field "${field}" is ${JSON.stringify(f[field])}`;
  if (what !== "recover" && typeof txn !== "string") return bad("txn");
  const t = txn as string;
  switch (what) {
    case "begin": {
      const participants = strings(f.participants);
      return participants === undefined || participants.length === 0 ? bad("participants") : { kind: "begin", txn: t, participants };
    }
    case "vote": {
      const locks = strings(f.locks);
      if (f.vote !== "yes" && f.vote !== "no") return bad("vote");
      return locks === undefined ? bad("locks") : { kind: "vote", txn: t, vote: f.vote, locks };
    }
    case "decision": {
      const d = outcome(f.decision);
      return d === undefined ? bad("decision") : { kind: "decision", txn: t, decision: d, word: String(f.decision) };
    }
    case "apply": {
      const o = outcome(f.outcome);
      return o === undefined ? bad("outcome") : { kind: "apply", txn: t, outcome: o, word: String(f.outcome), by: String(f.by) };
    }
    case "recover": {
      if (f.role === "coordinator") {
        const decisions = pairs(f.decisions);
        return decisions === undefined ? bad("decisions") : { kind: "recover-coordinator", decisions };
      }
      const inDoubt = strings(f.inDoubt);
      const outcomes = pairs(f.outcomes);
      if (inDoubt === undefined) return bad("inDoubt");
      return outcomes === undefined ? bad("outcomes") : { kind: "recover-participant", inDoubt, outcomes };
    }
    case "request":
      return { kind: "request", txn: t };
    case "result":
      return { kind: "result", txn: t, outcome: String(f.outcome) };
    default:
      return `unexpected commit event kind ${e.kind} (#${e.index})`;
  }
}

export function secs(us: number): string {
  return `${(us / 1e6).toFixed(3)} s`;
}
