import { describe, expect, it } from "vitest";
import { makeZxid as z } from "../../../../src/zk/proto/records.js";
import type { Zxid } from "../../../../src/zk/proto/records.js";
import { chooseSyncMode, type LeaderHistory, type Logged, type SyncChoice } from "../../../../src/zk/server/quorum/sync-mode.js";

const txn = (zxid: Zxid): Logged => ({ header: { zxid } });

/** A leader whose committed log holds exactly `zxids` and whose tree is at the last of them. */
function leader(...zxids: Zxid[]): LeaderHistory {
  const last = zxids[zxids.length - 1]!;
  return { lastProcessedZxid: last, minCommittedLog: zxids[0]!, maxCommittedLog: last, committedLog: zxids.map(txn) };
}

/** The choice as [mode, zxid, the zxids of the txns that follow]. */
function summary(c: SyncChoice): [string, Zxid, Zxid[], boolean] {
  return [c.mode, c.zxid, c.proposals.map((p) => p.header.zxid), c.fromTxnLog];
}

describe("ensemble: sync: LearnerHandler.syncFollower's choice (3.8)", () => {
  // Epoch 1 ran to (1,2); epochs 2 and 3 committed after it.
  const history = leader(z(1, 1), z(1, 2), z(2, 1), z(2, 2), z(3, 1));

  it("ensemble: sync: a learner in sync gets an empty DIFF", () => {
    expect(summary(chooseSyncMode(z(3, 1), history))).toEqual(["DIFF", z(3, 1), [], false]);
  });

  it("ensemble: sync: a learner whose last zxid is in the committed log gets DIFF from there", () => {
    expect(summary(chooseSyncMode(z(1, 2), history))).toEqual(["DIFF", z(3, 1), [z(2, 1), z(2, 2), z(3, 1)], false]);
  });

  it("ensemble: sync: a learner beyond the committed log is truncated to its end", () => {
    expect(summary(chooseSyncMode(z(1, 4), leader(z(1, 1), z(1, 2), z(1, 3))))).toEqual(["TRUNC", z(1, 3), [], false]);
  });

  it("ensemble: sync: a learner with an extra txn of an epoch the leader has left gets SNAP, not TRUNC across the boundary", () => {
    // (1,3) is not in the leader's history; the next txn there is (2,1), of another epoch.
    expect(summary(chooseSyncMode(z(1, 3), history))).toEqual(["SNAP", z(3, 1), [], false]);
  });

  it("ensemble: sync: a missing txn whose successor in the leader's log is of the same epoch is truncated to the txn before", () => {
    // The rule as 3.8 codes it; with one leader per epoch a real history hardly ever shows this gap.
    expect(summary(chooseSyncMode(z(2, 6), leader(z(2, 4), z(2, 5), z(2, 7), z(3, 1))))).toEqual(["TRUNC", z(2, 5), [z(2, 7), z(3, 1)], false]);
  });

  it("ensemble: sync: a learner at a bare new-epoch zxid (e,0) gets DIFF, never TRUNC", () => {
    expect(summary(chooseSyncMode(z(2, 0), history))).toEqual(["DIFF", z(3, 1), [z(2, 1), z(2, 2), z(3, 1)], false]);
    expect(chooseSyncMode(z(4, 0), history).mode).toBe("SNAP"); // beyond the log: 3.8's "unhandled scenario"
  });

  it("ensemble: sync: a learner older than the committed log gets SNAP when there is no txn log to catch it up from", () => {
    expect(chooseSyncMode(z(1, 0) - 1n, leader(z(1, 5), z(1, 6))).mode).toBe("SNAP");
    expect(chooseSyncMode(0n, leader(z(1, 5), z(1, 6))).mode).toBe("SNAP");
  });

  it("ensemble: sync: re-injected ZOOKEEPER-1154 DIFFs a learner whose last zxid is not in the history", () => {
    expect(summary(chooseSyncMode(z(1, 3), history, true))).toEqual(["DIFF", z(3, 1), [z(2, 1), z(2, 2), z(3, 1)], false]);
  });

  describe("a learner older than the committed log: the on-disk txn log (§7.4 step 4)", () => {
    // The committed log holds (2,3)..(2,5) (a restarted leader keeps only what it replayed); the
    // txn log on disk holds (1,1)..(2,5).
    const onDisk = [z(1, 1), z(1, 2), z(1, 3), z(2, 1), z(2, 2), z(2, 3), z(2, 4), z(2, 5)].map(txn);
    const withLog = (fromLog: (zxid: Zxid) => readonly Logged[]): LeaderHistory => ({ ...leader(z(2, 3), z(2, 4), z(2, 5)), proposalsFromTxnLog: fromLog });

    it("ensemble: sync: DIFF with the txns read back from the log, then the committed log, each txn once", () => {
      const c = chooseSyncMode(z(1, 2), withLog(() => onDisk));
      expect(summary(c)).toEqual(["DIFF", z(2, 5), [z(1, 3), z(2, 1), z(2, 2), z(2, 3), z(2, 4), z(2, 5)], true]);
    });

    it("ensemble: sync: a same-epoch txn the leader's log lacks is truncated, as in the committed log", () => {
      // The learner's (1,4) was never committed. In the leader's log (2,1) follows (1,3): another
      // epoch, so SNAP. With (1,5) following instead, TRUNC to (1,3).
      expect(chooseSyncMode(z(1, 4), withLog(() => onDisk)).mode).toBe("SNAP");
      const sameEpoch = [z(1, 1), z(1, 3), z(1, 5), z(2, 3), z(2, 4), z(2, 5)].map(txn);
      expect(summary(chooseSyncMode(z(1, 4), withLog(() => sameEpoch)))).toEqual(["TRUNC", z(1, 3), [z(1, 5), z(2, 3), z(2, 4), z(2, 5)], true]);
    });

    it("ensemble: sync: a gap between the end of the txn log and the committed log falls back to SNAP (ZOOKEEPER-2418)", () => {
      const short = [z(1, 1), z(1, 2), z(1, 3), z(2, 1)].map(txn); // ends before (2,3), the committed log's first
      expect(summary(chooseSyncMode(z(1, 2), withLog(() => short)))).toEqual(["SNAP", z(2, 5), [], false]);
    });

    it("ensemble: sync: no txns from the log (off, too big, or not reaching back) means SNAP", () => {
      expect(chooseSyncMode(z(1, 2), withLog(() => [])).mode).toBe("SNAP");
      expect(chooseSyncMode(z(1, 2), leader(z(2, 3), z(2, 4), z(2, 5))).mode).toBe("SNAP");
    });

    it("ensemble: sync: the txn log is read only for a learner older than the committed log", () => {
      let reads = 0;
      const counting = withLog(() => (reads++, onDisk));
      chooseSyncMode(z(2, 4), counting); // within the committed log
      chooseSyncMode(z(2, 6), counting); // beyond it: TRUNC
      expect(reads).toBe(0);
      chooseSyncMode(z(1, 1), counting);
      expect(reads).toBe(1);
    });
  });
});
