/**
 * The messages of three-phase commit, named as in the book (2.1.2): canCommit (the inquiry) and
 * each participant's "vote" (Yes/No); preCommit and its "ack"; doCommit or "abort" and the final
 * "ack" (which carries the outcome the participant applied — it may have decided alone on a
 * timeout). "stateRequest"/"state" are the termination protocol: a participant whose timer
 * fired, or a coordinator recovering, asks the others how far they got.
 */
import type { TxnRequest } from "../atomic-commit/config.js";

export type Decision3pc = "commit" | "abort";

/** How far a participant got with a transaction. */
export type ParticipantState3pc = "unknown" | "uncertain" | "precommitted" | "committed" | "aborted";

export type ThreePhaseMessage =
  | ({ kind: "canCommit" } & TxnRequest)
  | { kind: "vote"; txn: string; vote: "yes" | "no" }
  | { kind: "preCommit"; txn: string }
  | { kind: "ack"; txn: string; of: "preCommit" | "doCommit" | "abort"; outcome?: Decision3pc }
  | { kind: "doCommit"; txn: string }
  | { kind: "abort"; txn: string }
  | { kind: "stateRequest"; txn: string; state: ParticipantState3pc | "coordinator" }
  | { kind: "state"; txn: string; state: ParticipantState3pc };

/**
 * The broken twin (`--variant`): commit-uncertain — a participant that voted Yes but never got
 * preCommit commits on timeout (as if it had), so a transaction some participant voted No on,
 * or that the coordinator aborted, commits somewhere.
 * And `book-timeouts`: the book's timeout rules alone, without the termination protocol (an
 * uncertain participant aborts on timeout without asking its peers) — not a bug the book
 * admits, but the measurements in docs/protocols.md show where it breaks atomicity.
 */
export const THREE_PC_VARIANTS = ["commit-uncertain", "book-timeouts"] as const;
export type ThreePcVariant = (typeof THREE_PC_VARIANTS)[number];
