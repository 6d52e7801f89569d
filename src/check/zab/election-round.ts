/**
 * FastLeaderElection's rounds, read from the trace: a LOOKING voter's proposal moves only to a
 * vote of its own round. 3.8's lookForLeader takes a LOOKING notification of a newer round by
 * joining that round (the notification's vote or its own initial one), one of its round when the
 * vote beats its proposal, and drops one of an older round ("Notification election epoch is
 * smaller than logicalclock"): a vote cast in an earlier round may name a candidate that has
 * since crashed, been truncated or moved on, and only its sender's vote of the current round
 * counts.
 *
 * Evidence: every proposal a voter sends while LOOKING is annotated first (`fle.vote`, with the
 * round it sends it in: FastLeaderElection changes its round only together with its proposal). So
 * when a voter moves to another server's candidate (leader, zxid) in round r, some voter must
 * have announced that (leader, zxid) in round r before. A voter's first `fle.vote` after
 * `zab.phase` ELECTION is its own (an observer's, for nobody, makes it no voter: observers adopt
 * the voters' answers, which are their current votes, and are not judged); a vote for itself is
 * never judged (its own initial vote, proposed again when it joins a newer round).
 *
 * State is bounded: the votes announced in the last ROUNDS_KEPT rounds; a vote of a round
 * forgotten is not judged.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { guarded, intField, numberField, stringField } from "../event-reader.js";

/** How many rounds' announced votes are remembered. */
export const ROUNDS_KEPT = 64;

const KINDS = ["zab.phase", "fle.vote", "crash"] as const;
type Kind = KindsOf<typeof KINDS>;

export class ElectionRoundChecker implements Checker<Kind> {
  readonly name = "zab.election-round";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  /** By node: whether its current election is a voter's (undefined until its first vote). */
  private readonly voter = new Map<string, boolean | undefined>();
  /** Round → the `leader:zxid` votes voters announced in it, oldest round first. */
  private readonly announced = new Map<number, Set<string>>();

  onEvent(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "zab.phase":
        guarded(this.log, e, this, this.onPhase);
        return;
      case "fle.vote":
        guarded(this.log, e, this, this.onVote);
        return;
      case "crash":
        this.voter.delete(e.node);
        return;
    }
  }

  private onPhase(e: TraceEvent): void {
    if (stringField(e, "phase") === "ELECTION") this.voter.set(e.node, undefined);
  }

  private onVote(e: TraceEvent): void {
    if (!this.voter.has(e.node)) return; // no election of this server began in the trace
    const sid = intField(e, "sid");
    const leader = numberField(e, "proposedLeader");
    const zxidText = stringField(e, "zxid");
    const round = intField(e, "electionEpoch");
    let isVoter = this.voter.get(e.node);
    if (isVoter === undefined) {
      // The initial vote: a voter's is for itself; an observer's is for nobody (Long.MIN_VALUE).
      isVoter = leader === sid && !zxidText.includes("-");
      this.voter.set(e.node, isVoter);
    }
    if (!isVoter) return;
    const key = `${leader}:${zxidText}`;
    const votes = this.announced.get(round);
    if (leader !== sid && !(votes?.has(key) ?? false) && this.remembers(round)) {
      this.log.add(
        e,
        `FLE moved a vote to a candidate of another round: ${e.node} (sid ${sid}) proposes sid ${leader} with last zxid ${zxidText} in round ${round}, ` +
          `but no voter announced that vote in round ${round}; lookForLeader drops LOOKING notifications of an older round ` +
          `(only a vote of the current round, or of a newer one it joins, moves the proposal)`,
      );
    }
    this.announce(round, key);
  }

  /** False for a round older than every round kept once the bound is reached (not judged). */
  private remembers(round: number): boolean {
    if (this.announced.size < ROUNDS_KEPT || this.announced.has(round)) return true;
    for (const r of this.announced.keys()) if (r < round) return true;
    return false;
  }

  private announce(round: number, key: string): void {
    if (!this.remembers(round)) return; // a forgotten round stays forgotten
    let votes = this.announced.get(round);
    if (votes === undefined) {
      this.announced.set(round, (votes = new Set()));
      if (this.announced.size > ROUNDS_KEPT) {
        let oldest = Infinity;
        for (const r of this.announced.keys()) if (r < oldest) oldest = r;
        this.announced.delete(oldest);
      }
    }
    votes.add(key);
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
