import { describe, expect, it } from "vitest";
import { ElectionMostRecentChecker, INITS_KEPT } from "../../../src/check/zab/election-most-recent.js";
import { TraceBuilder, runChecker, z } from "./trace-builder.js";
import { expectCaughtAlone } from "./canary-alone.js";

/** Java's Long.MIN_VALUE as an observer proposes it (leader and zxid). */
const NOBODY = -(2 ** 63);
const NOBODY_ZXID = "0x-8000000000000000"; // zxidHex(Long.MIN_VALUE), as the model writes it

/** FastLeaderElection's annotations on top of the ZAB builder. */
class Election extends TraceBuilder {
  /** `sid` starts an election with currentEpoch `epoch` and last logged zxid `zxid` (round `round`). */
  look(sid: number, epoch: number, zxid: string, round = 1): this {
    return this.phase(sid, "ELECTION", epoch).vote(sid, sid, zxid, round);
  }
  vote(sid: number, leader: number, zxid: string, round: number): this {
    return this.event("fle.vote", `s${sid}`, { sid, proposedLeader: leader, zxid, electionEpoch: round, state: "LOOKING" });
  }
  elected(sid: number, leader: number, zxid: string, round: number): this {
    return this.event("fle.elected", `s${sid}`, { sid, leader, zxid, state: sid === leader ? "LEADING" : "FOLLOWING", electionEpoch: round });
  }
}

const check = (b: TraceBuilder) => runChecker(new ElectionMostRecentChecker(), b.events).map((v) => v.message);

describe("check: zab.election-most-recent", () => {
  it("a voter with a longer log that votes for a higher sid with a shorter one, which is then elected, is a violation", () => {
    const b = new Election().look(1, 1, z(1, 7)).look(2, 1, z(1, 2)).vote(1, 2, z(1, 2), 1).elected(2, 2, z(1, 2), 1).elected(1, 2, z(1, 2), 1);
    const v = check(b);
    expect(v).toHaveLength(1); // reported once, though two servers decided
    expect(v[0]).toMatch(/^FLE elected a leader less recent than one of its voters: s2 decided for s2 \(sid 2\) in round 1 with \(currentEpoch 1, last zxid 0x100000002 \(1,2\)\), but s1 voted for it in that round holding \(currentEpoch 1, last zxid 0x100000007 \(1,7\)\)/);
  });

  it("the correct order passes: the longer log wins, then the higher epoch beats a higher zxid, then equal histories go to the higher sid", () => {
    expect(check(new Election().look(1, 1, z(1, 7)).look(2, 1, z(1, 2)).vote(2, 1, z(1, 7), 1).elected(1, 1, z(1, 7), 1).elected(2, 1, z(1, 7), 1))).toEqual([]);
    // s2's currentEpoch 2 (it ACKed epoch 2's NEWLEADER with nothing new) beats s1's epoch-1 txns.
    expect(check(new Election().look(1, 1, z(1, 9)).look(2, 2, z(1, 3)).vote(1, 2, z(1, 3), 1).elected(2, 2, z(1, 3), 1).elected(1, 2, z(1, 3), 1))).toEqual([]);
    expect(check(new Election().look(1, 1, z(1, 4)).look(2, 1, z(1, 4)).vote(1, 2, z(1, 4), 1).elected(2, 2, z(1, 4), 1))).toEqual([]);
  });

  it("a voter whose currentEpoch is higher may not elect a candidate of a lower epoch, whatever its zxid", () => {
    const b = new Election().look(1, 2, z(1, 3)).look(2, 1, z(1, 9)).vote(1, 2, z(1, 9), 1).elected(2, 2, z(1, 9), 1);
    expect(check(b)).toHaveLength(1);
  });

  it("only votes of the decided round count, and a server's next election or crash forgets its votes", () => {
    // s1 voted for s2 in round 1, but the decision is in round 2, where s1 did not vote for it.
    expect(check(new Election().look(1, 1, z(1, 7)).look(2, 1, z(1, 2), 2).vote(1, 2, z(1, 2), 1).elected(2, 2, z(1, 2), 2))).toEqual([]);
    expect(check(new Election().look(1, 1, z(1, 7)).look(2, 1, z(1, 2)).vote(1, 2, z(1, 2), 1).crash(1).elected(2, 2, z(1, 2), 1))).toEqual([]);
    expect(check(new Election().look(1, 1, z(1, 7)).look(2, 1, z(1, 2)).vote(1, 2, z(1, 2), 1).look(1, 1, z(1, 1), 1).elected(2, 2, z(1, 2), 1))).toEqual([]);
  });

  it("an observer (its first vote is for nobody) is no voter; a vote of unknown origin is not judged", () => {
    const observer = new Election().look(1, 1, z(1, 2)).phase(4, "ELECTION", 1).vote(4, NOBODY, NOBODY_ZXID, 1).vote(4, 1, z(1, 2), 1).elected(1, 1, z(1, 2), 1);
    expect(check(observer)).toEqual([]);
    // No election of s2 ever started with last zxid (1,2): the candidate's epoch is unknown.
    expect(check(new Election().look(1, 1, z(1, 7)).look(2, 1, z(1, 5)).vote(1, 2, z(1, 2), 1).elected(2, 2, z(1, 2), 1))).toEqual([]);
  });

  it("a candidate seen with one zxid at several epochs is judged at the highest (lenient)", () => {
    const b = new Election().look(2, 1, z(1, 2)).look(2, 3, z(1, 2)).look(1, 2, z(2, 5)).vote(1, 2, z(1, 2), 1).elected(2, 2, z(1, 2), 1);
    expect(check(b)).toEqual([]);
    // Bounded: the oldest remembered initial votes are forgotten.
    const many = new Election();
    for (let i = 0; i <= INITS_KEPT; i++) many.look(2, 1, z(1, i));
    many.look(1, 1, z(1, 500)).vote(1, 2, z(1, 0), 1).elected(2, 2, z(1, 0), 1);
    expect(check(many)).toEqual([]);
  });

  it("the fle-ignores-zxid canary is caught in zab-election-longest-log by zab.election-most-recent alone; the scenario passes without it", async () => {
    await expectCaughtAlone("zab-election-longest-log", 1, "fle-ignores-zxid", "zab.election-most-recent");
  });
});
