import { describe, expect, it } from "vitest";
import { CommittedDurabilityChecker } from "../../../src/check/zab/committed-durability.js";
import { runChecker, TraceBuilder, z } from "./trace-builder.js";
import { zk4785 } from "./scenarios.js";

function check(t: TraceBuilder) {
  return runChecker(new CommittedDurabilityChecker(), t.events);
}

describe("check: zab: committed durability", () => {
  it("ZOOKEEPER-4785: the new leader lacks the committed (1,3) → LeaderLogCompleteness, then its TRUNC → CommittedLogDurability", () => {
    const v = check(zk4785());
    // The TRUNC happens during synchronisation, before the NEWLEADER quorum establishes s1.
    expect(v).toHaveLength(2);
    expect(v[0]!.checker).toBe("zab.committed-durability");
    expect(v[1]!.message).toContain("LeaderLogCompleteness violated: s1 (sid 1) established epoch 3 with history up to 0x100000002 (1,2)");
    expect(v[1]!.message).toContain("missing 1 committed txn: 0x100000003 (1,3) (committed by s3 (sid 3)");
    expect(v[0]!.message).toContain("CommittedLogDurability violated: s2 (sid 2) truncated its log to 0x100000002 (1,2) on the order of its leader s1 (sid 1), removing committed 0x100000003 (1,3)");
  });

  it("ZOOKEEPER-3911/4646: a learner ACKs NEWLEADER before its DIFF txn is durable; after its restart it leads without it", () => {
    // s1 has (1,2) uncommitted; s1 leads epoch 2 with s3 (DIFF (1,2)): the NEWLEADER quorum commits
    // it. s3 logged it only asynchronously and crashes first; s1 crashes; s3 (currentEpoch 2)
    // beats s2 (currentEpoch 1) and leads epoch 3 without (1,2).
    const t = new TraceBuilder().boot(1, 2, 3);
    t.elect(1, [2, 3], 1, z(0, 0)).broadcast(1, z(1, 1), "a", [1, 2, 3]);
    t.propose(1, 1, z(1, 2), "b").logTxn(1, z(1, 2), "b").crash(2).crash(3).state(1, "LOOKING");
    t.restart(3).recovered(3, z(1, 1), 1);
    t.elect(1, [3], 2, z(1, 2), () => t.sync(3, 1, "DIFF", z(1, 1), z(1, 2)));
    t.crash(3).crash(1).restart(3).recovered(3, z(1, 1), 2).restart(2).recovered(2, z(1, 1), 1);
    t.elect(3, [2], 3, z(1, 1));
    const v = check(t);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toContain("LeaderLogCompleteness violated: s3 (sid 3) established epoch 3");
    expect(v[0]!.message).toContain("0x100000002 (1,2) (in the initial history of s1 (sid 1), established epoch 2");
    expect(v[0]!.message).toContain("never logged by it");
  });

  it("ZOOKEEPER-4643 shape: a committed txn the new leader had logged but lost at its recovery: the recovery is named", () => {
    const t = new TraceBuilder().boot(1, 2, 3);
    t.elect(3, [1, 2], 1, z(0, 0)).broadcast(3, z(1, 1), "a", [3, 1, 2]).broadcast(3, z(1, 2), "b", [3, 2], [3, 2]);
    t.crash(3).state(1, "LOOKING").state(2, "LOOKING");
    t.elect(2, [1], 2, z(1, 2), () => t.sync(1, 2, "DIFF", z(1, 1), z(1, 2)).logTxn(1, z(1, 2), "b"));
    t.crash(1).restart(1).recovered(1, z(1, 1), 2).crash(2).restart(3).recovered(3, z(1, 2), 1);
    t.elect(1, [3], 3, z(1, 1), () => t.sync(3, 1, "TRUNC", z(1, 2), z(1, 1)).truncate(3, z(1, 1)));
    const v = check(t);
    expect(v).toHaveLength(2);
    expect(v[0]!.message).toContain("CommittedLogDurability violated: s3 (sid 3) truncated its log");
    expect(v[1]!.message).toContain("LeaderLogCompleteness violated: s1 (sid 1) established epoch 3");
    expect(v[1]!.message).toContain("lost when s1 (sid 1) recovered with lastZxid 0x100000001 (1,1)");
  });

  it("truncating an uncommitted txn is fine", () => {
    const t = new TraceBuilder().boot(1, 2, 3);
    t.elect(1, [2, 3], 1, z(0, 0)).broadcast(1, z(1, 1), "a", [1, 2, 3]);
    t.propose(1, 1, z(1, 2), "b").logTxn(1, z(1, 2), "b").logTxn(2, z(1, 2), "b").truncate(2, z(1, 1));
    expect(check(t)).toEqual([]);
  });

  it("a TRUNC chosen while the txn was still an outstanding proposal, committed before the TRUNC arrives, is fine (reconfig-swarm seed 10839)", () => {
    // s3 logged (1,2) but its ACK never reached s1; s3 comes back, s1 chooses TRUNC to (1,1)
    // (above its committed log), then commits (1,2) with s2's ACK; the TRUNC reaches s3 after
    // that, and s1 forwards (1,2) again behind it (Leader.startForwarding).
    const committedLate = (commitFirst: boolean) => {
      const t = new TraceBuilder().boot(1, 2, 3);
      t.elect(1, [2, 3], 1, z(0, 0)).broadcast(1, z(1, 1), "a", [1, 2, 3]);
      t.propose(1, 1, z(1, 2), "b").durable(1, z(1, 2)).logTxn(1, z(1, 2), "b").durable(3, z(1, 2)).logTxn(3, z(1, 2), "b");
      t.durable(2, z(1, 2)).logTxn(2, z(1, 2), "b").ack(1, 1, z(1, 2)).ack(1, 2, z(1, 2));
      if (commitFirst) t.commit(1, z(1, 2));
      t.sync(3, 1, "TRUNC", z(1, 2), z(1, 1));
      if (!commitFirst) t.commit(1, z(1, 2));
      return check(t.truncate(3, z(1, 1)).durable(3, z(1, 2)).logTxn(3, z(1, 2), "b"));
    };
    expect(committedLate(false)).toEqual([]);
    // The same TRUNC chosen after the commit removes a committed txn.
    const v = committedLate(true);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toContain("CommittedLogDurability violated: s3 (sid 3) truncated its log to 0x100000001 (1,1) on the order of its leader s1 (sid 1), removing committed 0x100000002 (1,2)");
  });

  it("a follower truncated of a txn another server delivered → CommittedLogDurability", () => {
    const t = new TraceBuilder().boot(1, 2, 3);
    t.elect(1, [2, 3], 1, z(0, 0)).broadcast(1, z(1, 1), "a", [1, 2, 3], [1]).truncate(3, z(0, 0));
    const v = check(t);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toContain("removing committed 0x100000001 (1,1) (committed by s1 (sid 1)");
  });

  it("ZOOKEEPER-2845: a leader whose tree lags its log establishes a history shorter than its log → HistoryConsistency", () => {
    const t = new TraceBuilder().boot(1, 2, 3);
    t.elect(1, [2, 3], 1, z(0, 0)).broadcast(1, z(1, 1), "a", [1, 2, 3]);
    t.propose(1, 1, z(1, 2), "b").logTxn(2, z(1, 2), "b").logTxn(3, z(1, 2), "b").crash(1);
    for (const s of [2, 3]) t.state(s, "LOOKING");
    t.elect(2, [3], 2, z(1, 1));
    const v = check(t);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toContain("HistoryConsistency violated: s2 (sid 2) established epoch 2 with history up to 0x100000001 (1,1), but its txn log also holds 0x100000002 (1,2)");
  });
});
