import { describe, expect, it } from "vitest";
import { LeadershipChecker } from "../../../src/check/zab/leadership.js";
import { ZxidUniquenessChecker } from "../../../src/check/zab/zxid-uniqueness.js";
import { runChecker, TraceBuilder, z } from "./trace-builder.js";

/**
 * ZOOKEEPER-335 (pre-Zab-1.0: the new epoch is epoch(lastLoggedZxid)+1, persisted nowhere):
 * s1 leads epoch 1 and crashes; s2 picks epoch 2, logs (2,1) and crashes before sending it;
 * s3's last zxid is still (1,1), so it also picks epoch 2 and logs a different (2,1).
 */
function zk335(): TraceBuilder {
  const t = new TraceBuilder().boot(1, 2, 3, 4, 5);
  t.elect(1, [2, 3, 4, 5], 1, z(0, 0));
  t.broadcast(1, z(1, 1), "create /a", [1, 2, 3, 4, 5]);
  t.crash(1);
  for (const s of [2, 3, 4, 5]) t.state(s, "LOOKING").phase(s, "ELECTION", 1);
  t.elect(2, [4, 5], 2, z(1, 1)).propose(2, 2, z(2, 1), "create /x").logTxn(2, z(2, 1), "create /x").crash(2);
  t.elect(3, [4, 5], 2, z(1, 1)).propose(3, 2, z(2, 1), "create /y").logTxn(3, z(2, 1), "create /y");
  return t;
}

describe("check: zab: leadership", () => {
  it("ZOOKEEPER-335: two servers establish epoch 2 → Leadership2, naming both and the epoch", () => {
    const v = runChecker(new LeadershipChecker(), zk335().events);
    expect(v).toHaveLength(1);
    expect(v[0]!.checker).toBe("zab.leadership");
    expect(v[0]!.message).toContain("Leadership2 violated: epoch 2 was established by two leaders");
    expect(v[0]!.message).toContain("s2 (sid 2)");
    expect(v[0]!.message).toContain("s3 (sid 3)");
  });

  it("ZOOKEEPER-335: the two (2,1) txns break the zxid → txn mapping", () => {
    const v = runChecker(new ZxidUniquenessChecker(), zk335().events);
    expect(v).toHaveLength(1);
    expect(v[0]!.checker).toBe("zab.zxid-uniqueness");
    expect(v[0]!.message).toContain("ZxidUniqueness violated: zxid 0x200000001 (2,1)");
    expect(v[0]!.message).toContain('"create /x" at s2 (sid 2)');
    expect(v[0]!.message).toContain('"create /y" at s3 (sid 3)');
  });

  it("two servers LEADING in BROADCAST for the same epoch at once → Leadership1", () => {
    const t = new TraceBuilder().boot(1, 2, 3);
    t.state(1, "LEADING").phase(1, "BROADCAST", 4).state(2, "LEADING").phase(2, "SYNCHRONIZATION", 4);
    const v = runChecker(new LeadershipChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toContain("Leadership1 violated");
    expect(v[0]!.message).toContain("epoch 4");
  });

  it("a leader that crashed or stepped down does not count against its successor of another epoch, nor a stale phase", () => {
    const t = new TraceBuilder().boot(1, 2, 3);
    t.state(1, "LEADING").phase(1, "BROADCAST", 1).state(1, "LOOKING");
    // s2 was a follower in BROADCAST of epoch 1 and now leads: its old phase must not count.
    t.state(2, "FOLLOWING").phase(2, "BROADCAST", 1).state(2, "LEADING");
    t.state(3, "LEADING").phase(3, "BROADCAST", 1).crash(3);
    t.state(1, "LEADING").phase(1, "BROADCAST", 2);
    expect(runChecker(new LeadershipChecker(), t.events)).toEqual([]);
  });
});
