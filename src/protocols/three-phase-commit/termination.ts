/**
 * The termination protocol of 3PC (Skeen 1981; Bernstein, Hadzilacos and Goodman, "Concurrency
 * Control and Recovery in Database Systems", 7.5): what participants do when the coordinator
 * falls silent. This module holds its rules and its ballot arithmetic; participant.ts runs it.
 *
 * - Election. A participant whose timer fires starts a termination round with a ballot above
 *   every one it knows; participants join the highest ballot they hear of. Ballots are disjoint
 *   per participant and, within a round number, ordered so that the lowest-numbered participant
 *   (p1 before p2) wins: the recovery coordinator is the lowest operational participant, as in
 *   the literature. A participant that joined ballot b no longer accepts a preCommit from an
 *   older ballot (the coordinator's is 0): what it reported to round b stays true.
 * - Decision (the recovery coordinator, from the states its round collected; only operational
 *   participants count — one that crashed during the transaction is excluded):
 *     TR1 some participant aborted            → abort
 *     TR2 some participant committed          → commit
 *     TR3 every one uncertain (or not voted)  → abort
 *     TR4 some precommitted, none committed   → preCommit to the uncertain ones; once each has
 *                                               acknowledged (or failed), commit.
 *   Committing only after every operational participant is precommitted is what keeps a later
 *   round, run by whoever is left, from deciding abort (TR3).
 * - Recovery. A participant rebuilt from its log after a crash is no longer operational for the
 *   transactions it was in doubt about: it takes no part in rounds and decides only on an
 *   outcome someone knows. If every participant is back and none is operational, and the
 *   coordinator is back and undecided (total failure), nobody can decide any more but they:
 *   then it applies the same rules to everyone's state (TR3/TR4 without the preCommit round:
 *   all of them are recovered, and each applies the same rule to the same states).
 *
 * The book's bare rules (a precommitted participant commits on its timeout, an uncertain one
 * aborts) are the `book-timeouts` twin. Under partitions the two sides of a cut elect their
 * own recovery coordinators and may decide differently: 3PC's documented flaw (book 2.1.2).
 */
import type { Decision3pc, ParticipantState3pc } from "./messages.js";

/** A participant's answer in a termination round, or to a recovered site's question. */
export interface StateAnswer {
  state: ParticipantState3pc;
  /** The highest ballot the answerer has joined. */
  ballot: number;
  /** Rebuilt from its log after a crash: not operational, its state does not count in a round. */
  recovered: boolean;
}

export type TerminationRule = "TR1" | "TR2" | "TR3" | "TR4";

/** TR1–TR4 over the states of a round's operational members (the recovery coordinator's own included). */
export function terminationRule(states: readonly ParticipantState3pc[]): { rule: TerminationRule; decision: Decision3pc } {
  if (states.includes("aborted")) return { rule: "TR1", decision: "abort" };
  if (states.includes("committed")) return { rule: "TR2", decision: "commit" };
  if (states.includes("precommitted")) return { rule: "TR4", decision: "commit" };
  return { rule: "TR3", decision: "abort" };
}

/** Orders participant ids p1 < p2 < … < p10 (by length, then text). */
function byId(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The ballot arithmetic: ballot = round·N + (N − rank), with rank the participant's position
 * (0 for the lowest id) among all N participants. Disjoint per participant; in one round the
 * lowest id has the highest ballot.
 */
export class Ballots {
  private readonly n: number;
  private readonly offset: number;

  constructor(self: string, peers: readonly string[]) {
    const all = [self, ...peers].sort(byId);
    this.n = all.length;
    this.offset = this.n - all.indexOf(self);
  }

  /** A ballot of this participant above `seen` (0: none seen yet): the first of the next round. */
  above(seen: number): number {
    const round = seen === 0 ? 0 : Math.floor((seen - 1) / this.n) + 1;
    return round * this.n + this.offset;
  }
}
