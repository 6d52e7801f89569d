/**
 * The messages of three-phase commit, named as in the book (2.1.2): canCommit (the inquiry) and
 * each participant's "vote" (Yes/No); preCommit and its "ack"; doCommit or "abort" and the final
 * "ack" (which carries the outcome the participant applied — it may have learned it from the
 * termination protocol). "stateRequest"/"state" are the termination protocol (termination.ts):
 * a participant whose timer fired starts a round (`ballot` > 0) and asks the others how far they
 * got; a recovered participant or coordinator only asks (`ballot` 0). A preCommit carries the
 * ballot of whoever sent it: 0 for the coordinator, the round's for a recovery coordinator.
 */
import type { TxnRequest } from "../atomic-commit/config.js";

export type Decision3pc = "commit" | "abort";

/** How far a participant got with a transaction. */
export type ParticipantState3pc = "unknown" | "uncertain" | "precommitted" | "committed" | "aborted";

export type ThreePhaseMessage =
  | ({ kind: "canCommit" } & TxnRequest)
  | { kind: "vote"; txn: string; vote: "yes" | "no" }
  | { kind: "preCommit"; txn: string; ballot: number }
  | { kind: "ack"; txn: string; of: "preCommit" | "doCommit" | "abort"; outcome?: Decision3pc; ballot?: number }
  | { kind: "doCommit"; txn: string }
  | { kind: "abort"; txn: string }
  | { kind: "stateRequest"; txn: string; ballot: number; state: ParticipantState3pc | "coordinator" }
  | { kind: "state"; txn: string; state: ParticipantState3pc; ballot: number; recovered: boolean };

/**
 * The broken twins (`--variant`): commit-uncertain — a participant that voted Yes but never got
 * preCommit commits on timeout (as if it had), so a transaction some participant voted No on,
 * or that the coordinator aborted, commits somewhere.
 * `book-timeouts`: the book's timeout rules alone, without the termination protocol (an
 * uncertain participant aborts on timeout without asking its peers) — not a bug the book
 * admits, but the measurements in docs/protocols.md show where it breaks atomicity.
 * `recovered-ignores-coordinator`: after a total failure, a recovered participant applies the
 * termination rule once its peers are back, without waiting to hear that the coordinator is
 * undecided — whose log may hold a decision nobody received.
 */
export const THREE_PC_VARIANTS = ["commit-uncertain", "book-timeouts", "recovered-ignores-coordinator"] as const;
export type ThreePcVariant = (typeof THREE_PC_VARIANTS)[number];
