/**
 * The trace annotations of three-phase commit (types only), as `ctx.annotate(kind, fields)`
 * writes them; the checkers under src/check/protocols read them without importing this code.
 */
import "../../sim/trace-schema.js";

export interface ThreePhaseCommitTraceEvents {
  "3pc.request": { txn: string; key: string; value: string | number };
  "3pc.result": { txn: string; outcome: string; waitedMs: number };
  /** The coordinator's begin record is durable; it sends canCommit. */
  "3pc.begin": { txn: string; client: string; key: string; value: string | number; participants: string[] };
  /** A participant's answer to canCommit (Yes takes the key's lock). */
  "3pc.vote": { txn: string; vote: "yes" | "no"; locks: string[]; reason: string };
  /** The coordinator enters a phase: "preCommit" once its preCommit record is durable. */
  "3pc.phase": { txn: string; phase: "preCommit" };
  /** A participant executed the transaction on preCommit; its undo/redo record is durable. */
  "3pc.precommit": { txn: string };
  /** The coordinator's decision, durable, as it announces it (doCommit or abort). */
  "3pc.decision": { txn: string; decision: "commit" | "abort"; reason: string };
  /** A participant applied an outcome (durable) and released its lock. */
  "3pc.apply": { txn: string; outcome: "commit" | "abort"; by: "doCommit" | "abort" | "vote-no" | "timeout" | "termination" };
  /** A participant's timer fired while it waited for the coordinator. */
  "3pc.timeout": { txn: string; state: "uncertain" | "precommitted"; action: string; locks: string[] };
  "3pc.end": { txn: string; outcome: "commit" | "abort" | "inconsistent" };
  "3pc.recover":
    | { role: "coordinator"; decisions: [string, "commit" | "abort"][]; learning: string[]; presumedAbort: string[] }
    | { role: "participant"; inDoubt: string[]; locks: string[]; outcomes: [string, "commit" | "abort"][] };
}

declare module "../../sim/trace-schema.js" {
  interface TraceAnnotations extends ThreePhaseCommitTraceEvents {}
}
