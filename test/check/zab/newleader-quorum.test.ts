import { describe, expect, it } from "vitest";
import { asEvent, type LooseEvent } from "../../helpers/loose-events.js";
import { NewLeaderQuorumChecker } from "../../../src/check/zab/newleader-quorum.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { runChecker, z } from "./trace-builder.js";
import { expectCaughtAlone } from "./canary-alone.js";

/** The kernel's message events and the few annotations the checker reads; connection `c` links learner s<c> to the leader. */
class Sync {
  readonly events: TraceEvent[] = [];
  private push(e: Omit<LooseEvent, "index" | "atUs">): this {
    this.events.push(asEvent({ index: this.events.length, atUs: (this.events.length + 1) * 1000, ...e }));
    return this;
  }
  /** Voters start an election with a vote for themselves; an observer's first vote is for nobody. */
  voters(...sids: number[]): this {
    for (const sid of sids) this.push({ kind: "fle.vote", node: `s${sid}`, fields: { sid, proposedLeader: sid, zxid: z(0, 0), electionEpoch: 1, state: "LOOKING" } });
    return this;
  }
  observer(sid: number): this {
    return this.push({ kind: "fle.vote", node: `s${sid}`, fields: { sid, proposedLeader: -(2 ** 63), zxid: "-0x8000000000000000", electionEpoch: 1, state: "LOOKING" } });
  }
  discovery(leader: number, epoch: number): this {
    return this.push({ kind: "zab.phase", node: `s${leader}`, fields: { sid: leader, phase: "DISCOVERY", epoch } });
  }
  newLeader(leader: number, ...learners: number[]): this {
    for (const l of learners) this.push({ kind: "send", node: `s${leader}`, peer: `s${l}`, id: 2, detail: "NEWLEADER", conn: l });
    return this;
  }
  ack(leader: number, ...learners: number[]): this {
    for (const l of learners) this.push({ kind: "deliver", node: `s${leader}`, peer: `s${l}`, id: 3, detail: "ACK", conn: l });
    return this;
  }
  crash(sid: number): this {
    return this.push({ kind: "crash", node: `s${sid}` });
  }
  established(leader: number, epoch: number): this {
    return this.push({ kind: "zab.leader.established", node: `s${leader}`, fields: { sid: leader, epoch, lastZxid: z(0, 0) } });
  }
}

const check = (s: Sync) => runChecker(new NewLeaderQuorumChecker(), s.events).map((v) => v.message);

describe("check: zab.newleader-quorum", () => {
  it("established with the NEWLEADER ACKs of a majority of the voters (its own included) passes; with fewer it is a violation", () => {
    expect(check(new Sync().voters(1, 2, 3, 4, 5).discovery(5, 1).newLeader(5, 1, 2, 3, 4).ack(5, 3, 4).established(5, 1))).toEqual([]);
    expect(check(new Sync().voters(1, 2, 3, 4, 5).discovery(5, 1).newLeader(5, 1, 2, 3, 4).ack(5, 3).established(5, 1))).toEqual([
      "s5 was established as leader of epoch 1 with the NEWLEADER ACKs of 2 of 5 voters (itself, s3); a leader starts serving only once a quorum (3) has ACKed its NEWLEADER (Zab phase 2, Leader.waitForNewLeaderAck)",
    ]);
    expect(check(new Sync().voters(1, 2, 3).discovery(3, 1).newLeader(3, 1, 2).ack(3, 1).established(3, 1))).toEqual([]);
  });

  it("an ACK counts only as the first after NEWLEADER on its connection; an observer's (its first vote is for nobody) does not count", () => {
    // s3's ACK came before its NEWLEADER: not a NEWLEADER ACK; s4's second ACK adds nothing.
    expect(check(new Sync().voters(1, 2, 3, 4, 5).discovery(5, 1).ack(5, 3).newLeader(5, 3, 4).ack(5, 4, 4).established(5, 1))).toHaveLength(1);
    const observed = new Sync().voters(1, 2, 3).observer(4).discovery(3, 1).newLeader(3, 4).ack(3, 4).established(3, 1);
    expect(check(observed)).toHaveLength(1);
    expect(check(new Sync().voters(1, 2, 3).observer(4).discovery(3, 1).newLeader(3, 1, 4).ack(3, 4, 1).established(3, 1))).toEqual([]);
  });

  it("a new leadership (DISCOVERY) or a crash of the leader forgets the ACKs of the previous one", () => {
    expect(check(new Sync().voters(1, 2, 3).discovery(3, 1).newLeader(3, 1).ack(3, 1).discovery(3, 2).established(3, 2))).toHaveLength(1);
    expect(check(new Sync().voters(1, 2, 3).discovery(3, 1).newLeader(3, 1).ack(3, 1).crash(3).established(3, 2))).toHaveLength(1);
  });

  it("the established-without-quorum canary is caught in zab-follower-restart-trunc by zab.newleader-quorum alone; the scenario passes without it", async () => {
    await expectCaughtAlone("zab-follower-restart-trunc", 1, "established-without-quorum", "zab.newleader-quorum");
  });
});
