import { describe, expect, it } from "vitest";
import { ElectionRoundChecker, ROUNDS_KEPT } from "../../../src/check/zab/election-round.js";
import { TraceBuilder, runChecker, z } from "./trace-builder.js";
import { expectCaughtAlone } from "./canary-alone.js";

/** Java's Long.MIN_VALUE as an observer proposes it (leader and zxid). */
const NOBODY = -(2 ** 63);
const NOBODY_ZXID = "0x-8000000000000000";

/** FastLeaderElection's annotations on top of the ZAB builder. */
class Election extends TraceBuilder {
  /** `sid` starts an election with last logged zxid `zxid` in round `round` (its initial vote). */
  look(sid: number, zxid: string, round = 1): this {
    return this.phase(sid, "ELECTION", 1).vote(sid, sid, zxid, round);
  }
  vote(sid: number, leader: number, zxid: string, round: number): this {
    return this.event("fle.vote", `s${sid}`, { sid, proposedLeader: leader, zxid, electionEpoch: round, state: "LOOKING" });
  }
}

const check = (b: TraceBuilder) => runChecker(new ElectionRoundChecker(), b.events).map((v) => v.message);

describe("check: zab.election-round", () => {
  it("a voter that moves to a vote announced only in an older round is a violation", () => {
    // s3 proposed itself in round 1, then went down; s1 and s2 are in round 2 when s1 takes s3's old vote.
    const b = new Election().look(3, z(1, 9), 1).look(1, z(1, 5), 2).look(2, z(1, 5), 2).vote(1, 3, z(1, 9), 2);
    const v = check(b);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatch(/^FLE moved a vote to a candidate of another round: s1 \(sid 1\) proposes sid 3 with last zxid 0x100000009 in round 2, but no voter announced that vote in round 2/);
  });

  it("a vote of the same round, or of a newer round the voter joins, passes; so does a voter's own vote proposed again", () => {
    expect(check(new Election().look(1, z(1, 5)).look(2, z(1, 5)).vote(1, 2, z(1, 5), 1))).toEqual([]);
    // s2 is in round 3; s1 (round 1) joins round 3 with s2's vote, then with its own initial vote again.
    expect(check(new Election().look(2, z(1, 7), 3).look(1, z(1, 5), 1).vote(1, 2, z(1, 7), 3).vote(1, 1, z(1, 5), 3))).toEqual([]);
    // A vote passed on: s2 took s3's round-1 vote, s1 takes it from s2.
    expect(check(new Election().look(3, z(1, 9)).look(2, z(1, 5)).vote(2, 3, z(1, 9), 1).look(1, z(1, 5)).vote(1, 3, z(1, 9), 1))).toEqual([]);
  });

  it("the same candidate with another zxid is another vote", () => {
    const b = new Election().look(3, z(1, 9)).look(1, z(1, 5)).vote(1, 3, z(1, 8), 1);
    expect(check(b)).toHaveLength(1);
  });

  it("an observer (its first vote is for nobody) is not judged, and its votes announce nothing", () => {
    const b = new Election().look(1, z(1, 5)).phase(4, "ELECTION", 1).vote(4, NOBODY, NOBODY_ZXID, 2).vote(4, 1, z(1, 5), 2).look(2, z(1, 5), 2).vote(2, 1, z(1, 5), 2);
    const v = check(b);
    expect(v).toHaveLength(1); // s2's move to s1's round-1 vote, which only the observer named in round 2
    expect(v[0]).toMatch(/^FLE moved a vote to a candidate of another round: s2/);
  });

  it("a server whose election began before the trace, or that crashed, is not judged until its next election", () => {
    expect(check(new Election().vote(1, 3, z(1, 9), 2))).toEqual([]);
    expect(check(new Election().look(1, z(1, 5), 2).crash(1).vote(1, 3, z(1, 9), 2))).toEqual([]);
  });

  it("bounded: a vote of a round older than every round kept is not judged; a newer round is", () => {
    const manyRounds = (): Election => {
      const b = new Election();
      for (let r = 1; r <= ROUNDS_KEPT + 1; r++) b.look(1, z(1, r), r);
      return b;
    };
    expect(check(new Election().look(2, z(1, 1), 1).vote(2, 3, z(1, 9), 1))).toHaveLength(1);
    expect(check(manyRounds().look(2, z(1, 1), 1).vote(2, 3, z(1, 9), 1))).toEqual([]);
    expect(check(manyRounds().look(2, z(1, 1), ROUNDS_KEPT + 2).vote(2, 3, z(1, 9), ROUNDS_KEPT + 2))).toHaveLength(1);
  });

  it("the fle-counts-old-rounds canary is caught in zab-rolling-restart by zab.election-round alone; the scenario passes without it", async () => {
    await expectCaughtAlone("zab-rolling-restart", 1, "fle-counts-old-rounds", "zab.election-round");
  });
});
