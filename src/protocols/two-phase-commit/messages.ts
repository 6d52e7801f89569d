/**
 * The messages of two-phase commit, named as in the book (2.1.1): phase 1 is the transaction
 * inquiry ("prepare": the coordinator sends the transaction and asks whether it can commit) and
 * each participant's "vote" (Yes or No); phase 2 is "commit" or "rollback" and each
 * participant's "ack". "decisionRequest" is an in-doubt participant asking for the outcome (the
 * coordinator, or with the cooperative termination protocol every other participant too).
 */
import type { TxnRequest } from "../atomic-commit/config.js";

export type Decision2pc = "commit" | "rollback";

export type TwoPhaseMessage =
  | ({ kind: "prepare" } & TxnRequest)
  | { kind: "vote"; txn: string; vote: "yes" | "no" }
  | { kind: "commit"; txn: string }
  | { kind: "rollback"; txn: string }
  | { kind: "ack"; txn: string }
  | { kind: "decisionRequest"; txn: string };

/**
 * The broken twins (`--variant`), each a mistake a checker must catch:
 * - abort-in-doubt: a participant that voted Yes rolls back alone when the decision is late;
 * - commit-on-timeout: a coordinator that counts a missing vote as Yes;
 * - decide-before-log: a coordinator that announces its decision before it is durable;
 * - vote-before-log: a participant that votes Yes before its prepared state is durable;
 * - no-presumed-abort: a recovered coordinator leaves a transaction begun but undecided in its
 *   log undecided for ever (its participants stay in doubt after every fault has healed).
 */
export const TWO_PC_VARIANTS = ["abort-in-doubt", "commit-on-timeout", "decide-before-log", "vote-before-log", "no-presumed-abort"] as const;
export type TwoPcVariant = (typeof TWO_PC_VARIANTS)[number];
