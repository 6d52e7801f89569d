import { describe, expect, it } from "vitest";
import { makeZxid as z } from "../../../../src/zk/proto/records.js";
import type { Zxid } from "../../../../src/zk/proto/records.js";
import { chooseSyncMode, type LeaderHistory } from "../../../../src/zk/server/quorum/sync-mode.js";

/** A leader whose committed log holds exactly `zxids` and whose tree is at the last of them. */
function leader(...zxids: Zxid[]): LeaderHistory {
  const last = zxids[zxids.length - 1]!;
  return { lastProcessedZxid: last, minCommittedLog: zxids[0]!, maxCommittedLog: last, committedLog: zxids.map((zxid) => ({ header: { zxid } })) };
}

describe("ensemble: sync: LearnerHandler.syncFollower's choice (3.8)", () => {
  // Epoch 1 ran to (1,2); epochs 2 and 3 committed after it.
  const history = leader(z(1, 1), z(1, 2), z(2, 1), z(2, 2), z(3, 1));

  it("ensemble: sync: a learner in sync gets an empty DIFF", () => {
    expect(chooseSyncMode(z(3, 1), history)).toEqual({ mode: "DIFF", zxid: z(3, 1), queueFrom: z(3, 1) });
  });

  it("ensemble: sync: a learner whose last zxid is in the committed log gets DIFF from there", () => {
    expect(chooseSyncMode(z(1, 2), history)).toEqual({ mode: "DIFF", zxid: z(3, 1), queueFrom: z(1, 2) });
  });

  it("ensemble: sync: a learner beyond the committed log is truncated to its end", () => {
    expect(chooseSyncMode(z(1, 4), leader(z(1, 1), z(1, 2), z(1, 3)))).toEqual({ mode: "TRUNC", zxid: z(1, 3), queueFrom: z(1, 3) });
  });

  it("ensemble: sync: a learner with an extra txn of an epoch the leader has left gets SNAP, not TRUNC across the boundary", () => {
    // (1,3) is not in the leader's history; the next txn there is (2,1), of another epoch.
    expect(chooseSyncMode(z(1, 3), history)).toEqual({ mode: "SNAP", zxid: z(3, 1), queueFrom: z(3, 1) });
  });

  it("ensemble: sync: a missing txn whose successor in the leader's log is of the same epoch is truncated to the txn before", () => {
    // The rule as 3.8 codes it; with one leader per epoch a real history hardly ever shows this gap.
    expect(chooseSyncMode(z(2, 6), leader(z(2, 4), z(2, 5), z(2, 7), z(3, 1)))).toEqual({ mode: "TRUNC", zxid: z(2, 5), queueFrom: z(2, 5) });
  });

  it("ensemble: sync: a learner at a bare new-epoch zxid (e,0) gets DIFF, never TRUNC", () => {
    expect(chooseSyncMode(z(2, 0), history)).toEqual({ mode: "DIFF", zxid: z(3, 1), queueFrom: z(2, 0) });
    expect(chooseSyncMode(z(4, 0), history).mode).toBe("SNAP"); // beyond the log: 3.8's "unhandled scenario"
  });

  it("ensemble: sync: a learner older than the committed log gets SNAP", () => {
    expect(chooseSyncMode(z(1, 0) - 1n, leader(z(1, 5), z(1, 6))).mode).toBe("SNAP");
    expect(chooseSyncMode(0n, leader(z(1, 5), z(1, 6))).mode).toBe("SNAP");
  });

  it("ensemble: sync: re-injected ZOOKEEPER-1154 DIFFs a learner whose last zxid is not in the history", () => {
    expect(chooseSyncMode(z(1, 3), history, true)).toEqual({ mode: "DIFF", zxid: z(3, 1), queueFrom: z(1, 3) });
  });
});
