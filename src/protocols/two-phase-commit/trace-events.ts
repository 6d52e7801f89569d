/**
 * The trace annotations of two-phase commit (types only), `ctx.annotate(kind, fields)` as the
 * protocol writes them; the checkers under src/check/protocols read them without importing this
 * code. "Durable" below means the record was fsynced before the event.
 */
import "../../sim/trace-schema.js";

export interface TwoPhaseCommitTraceEvents {
  /** A client submits a transaction. */
  "2pc.request": { txn: string; key: string; value: string | number };
  /** A client hears the outcome, after `waitedMs`. */
  "2pc.result": { txn: string; outcome: string; waitedMs: number };
  /** The coordinator's begin record is durable; it sends the transaction inquiry (prepare). */
  "2pc.begin": { txn: string; client: string; key: string; value: string | number; participants: string[] };
  /** A participant's vote; a Yes is sent only after its undo/redo (prepared) record is durable. */
  "2pc.vote": { txn: string; vote: "yes" | "no"; locks: string[]; reason: string };
  /** The coordinator's decision, durable, as it announces it; `votedNo`: the participant whose No vote a rollback rests on. */
  "2pc.decision": { txn: string; decision: "commit" | "rollback"; reason: string; votedNo?: string };
  /** A participant applied an outcome (durable) and released its locks. */
  "2pc.apply": { txn: string; outcome: "commit" | "rollback"; by: "coordinator" | "peer" | "vote-no" | "termination" | "timeout" };
  /** A participant that voted Yes is still waiting for the decision, holding locks. */
  "2pc.in-doubt": { txn: string; locks: string[]; waitingFor: string[] };
  /** A decision arrived for a transaction this participant has no record of. */
  "2pc.forgotten": { txn: string; decision: "commit" | "rollback" };
  /** Every participant acknowledged: the transaction is complete. */
  "2pc.end": { txn: string; outcome: "commit" | "rollback" };
  /** A restart read its log back. */
  "2pc.recover":
    | { role: "coordinator"; decisions: [string, "commit" | "rollback"][]; presumedAbort: string[] }
    | { role: "participant"; inDoubt: string[]; locks: string[]; outcomes: [string, "commit" | "rollback"][] };
}

declare module "../../sim/trace-schema.js" {
  interface TraceAnnotations extends TwoPhaseCommitTraceEvents {}
}
