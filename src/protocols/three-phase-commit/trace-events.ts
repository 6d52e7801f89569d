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
  /**
   * A participant applied an outcome (durable) and released its lock. `by`: the coordinator's
   * doCommit / abort, its own No, its own timeout (the book-timeouts twin), its own decision as
   * the recovery coordinator (termination), the recovery coordinator's word (backup), or an
   * outcome a peer reported (peer).
   */
  "3pc.apply": { txn: string; outcome: "commit" | "abort"; by: "doCommit" | "abort" | "vote-no" | "timeout" | "termination" | "backup" | "peer" };
  /** A participant's timer fired while it waited for the coordinator. */
  "3pc.timeout": { txn: string; state: "uncertain" | "precommitted"; action: string; locks: string[] };
  /**
   * A recovery coordinator decides a termination round (ballot > 0) from the states of its
   * operational members (`states`, its own first; `excluded`: peers that did not answer or were
   * recovered), by rule TR1–TR4; or, after a total failure, a recovered participant applies the
   * same rules to everyone's state (`recovered`, ballot 0).
   */
  "3pc.terminate": { txn: string; ballot: number; states: [string, string][]; excluded: string[]; rule: "TR1" | "TR2" | "TR3" | "TR4"; decision: "commit" | "abort"; recovered: boolean };
  "3pc.end": { txn: string; outcome: "commit" | "abort" | "inconsistent" };
  "3pc.recover":
    | { role: "coordinator"; decisions: [string, "commit" | "abort"][]; learning: string[]; presumedAbort: string[] }
    | { role: "participant"; inDoubt: string[]; locks: string[]; outcomes: [string, "commit" | "abort"][] };
}

declare module "../../sim/trace-schema.js" {
  interface TraceAnnotations extends ThreePhaseCommitTraceEvents {}
}
