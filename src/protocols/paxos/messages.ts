/**
 * Single-decree Paxos (the book's 2.2): the messages between proposers, acceptors and
 * learners, named as the book names them, and the ballot (proposal number) arithmetic.
 *
 * Ballots: proposer i of P (0-based) uses only the numbers round·P + i + 1 (round ≥ 0), so
 * two proposers never issue the same number (the book: "a proposer must never produce two
 * proposals with the same number") and the owner of a ballot is (ballot − 1) mod P.
 * Ballot 0 means "none": nothing promised or accepted yet.
 */

/** A value a proposer may propose (the book's Value): a string or a number. */
export type PaxosValue = string | number;

/** Phase 1a: "promise not to accept any proposal numbered below `ballot`". */
export interface Prepare {
  kind: "prepare";
  ballot: number;
}

/** Phase 1b: the promise, with the highest-numbered proposal the acceptor has accepted (ballot 0: none). */
export interface Promise_ {
  kind: "promise";
  ballot: number;
  acceptedBallot: number;
  acceptedValue: PaxosValue | null;
}

/** Phase 2a: "accept the proposal [ballot, value]". */
export interface Accept {
  kind: "accept";
  ballot: number;
  value: PaxosValue;
}

/** Phase 2b: the acceptor accepted [ballot, value]; sent to the proposer and every learner. */
export interface Accepted {
  kind: "accepted";
  ballot: number;
  value: PaxosValue;
}

/** A refusal: the acceptor has promised `promised` > `ballot` (an optimisation the book allows). */
export interface Nack {
  kind: "nack";
  ballot: number;
  promised: number;
}

/** A proposer that saw a majority accept tells a learner the chosen value. */
export interface Chosen {
  kind: "chosen";
  value: PaxosValue;
}

/** A learner's answer to `chosen`: the value is durable in its learner state. */
export interface Learned {
  kind: "learned";
  value: PaxosValue;
}

export type PaxosMessage = Prepare | Promise_ | Accept | Accepted | Nack | Chosen | Learned;

/** The majority of `n` acceptors: any two majorities share an acceptor. */
export function majority(n: number): number {
  return Math.floor(n / 2) + 1;
}

/** The ballot of proposer `index` (0-based, of `proposers`) in `round`. */
export function ballotOf(round: number, index: number, proposers: number): number {
  return round * proposers + index + 1;
}

/** The round a ballot belongs to. */
export function roundOf(ballot: number, proposers: number): number {
  return Math.floor((ballot - 1) / proposers);
}

export function isPaxosMessage(m: unknown): m is PaxosMessage {
  if (typeof m !== "object" || m === null) return false;
  switch ((m as { kind?: unknown }).kind) {
    case "prepare":
    case "promise":
    case "accept":
    case "accepted":
    case "nack":
    case "chosen":
    case "learned":
      return true;
    default:
      return false;
  }
}
