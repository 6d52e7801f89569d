import { describe, expect, it } from "vitest";
import { ReplicaLogs } from "../../../src/check/zab/replica-log.js";
import type { TxnEntry } from "../../../src/check/zab/txn-history.js";

/** The txn at (epoch, counter), named after it. */
function t(epoch: number, counter: number, txn = `t${epoch}.${counter}`): TxnEntry {
  return { zxid: (BigInt(epoch) << 32n) | BigInt(counter), txn };
}
const zx = (epoch: number, counter: number) => t(epoch, counter).zxid;
const names = (h: readonly TxnEntry[]) => h.map((e) => e.txn);

describe("zab replica log: one model of each server's log and tree", () => {
  it("logs and deliveries: a delivery at or below the tree's zxid is refused", () => {
    const m = new ReplicaLogs();
    m.log("s1", t(1, 1));
    m.log("s1", t(1, 2));
    expect(m.deliver("s1", t(1, 1))).toBe(true);
    expect(m.deliver("s1", t(1, 1))).toBe(false);
    expect(m.deliver("s1", t(1, 2))).toBe(true);
    const r = m.replica("s1");
    expect(names(r.logged.entries)).toEqual(["t1.1", "t1.2"]);
    expect(names(r.applied.entries)).toEqual(["t1.1", "t1.2"]);
    expect(r.treeZxid).toBe(zx(1, 2));
    // A second write of one zxid replaces the first in the log.
    m.log("s1", t(1, 2, "other"));
    expect(names(r.logged.entries)).toEqual(["t1.1", "other"]);
  });

  it("recovery: a txn appended but never announced as logged is held when the recovery reaches it (its fsync completed while the process could not say so)", () => {
    // zab-crash-windows seed 932: s5 paused with (1,2)'s fsync in flight; it completed; s5 crashed as it resumed.
    const run = (appended: boolean) => {
      const m = new ReplicaLogs();
      m.proposed(zx(1, 1), "t1.1");
      m.proposed(zx(1, 2), "t1.2");
      m.appended("s5", zx(1, 1));
      m.log("s5", t(1, 1));
      if (appended) m.appended("s5", zx(1, 2));
      m.recovered("s5", zx(1, 2), []);
      return names(m.replica("s5").applied.entries);
    };
    expect(run(true)).toEqual(["t1.1", "t1.2"]);
    // Without the append the model has no evidence of (1,2): the gap stays (as before).
    expect(run(false)).toEqual(["t1.1"]);
    // An append the recovery does not reach was lost with the crash.
    const m = new ReplicaLogs();
    m.proposed(zx(1, 2), "t1.2");
    m.log("s5", t(1, 1));
    m.appended("s5", zx(1, 2));
    m.recovered("s5", zx(1, 1), []);
    expect(names(m.replica("s5").logged.entries)).toEqual(["t1.1"]);
  });

  it("recovery: the log keeps what is ≤ lastZxid (the rest is returned as lost), the tree becomes that log, the fill closes gaps", () => {
    const m = new ReplicaLogs();
    for (const e of [t(1, 1), t(1, 2), t(1, 3)]) m.log("s1", e);
    m.deliver("s1", t(1, 1));
    expect(names(m.recovered("s1", zx(1, 2), []))).toEqual(["t1.3"]);
    const r = m.replica("s1");
    expect(names(r.logged.entries)).toEqual(["t1.1", "t1.2"]);
    expect(names(r.applied.entries)).toEqual(["t1.1", "t1.2"]);
    expect(r.treeZxid).toBe(zx(1, 2));
    // A server the trace never showed logging anything: its history up to lastZxid is the fill.
    m.recovered("s2", zx(1, 2), [t(1, 1), t(1, 2), t(1, 3)]);
    expect(names(m.replica("s2").applied.entries)).toEqual(["t1.1", "t1.2"]);
    // Nothing at or below the recovery point is delivered again.
    expect(m.deliver("s2", t(1, 2))).toBe(false);
    expect(m.deliver("s2", t(1, 3))).toBe(true);
  });

  it("truncation cuts log and tree back, returns what it removed, and replays the kept log into the tree", () => {
    const m = new ReplicaLogs();
    for (const e of [t(1, 1), t(1, 2), t(1, 3)]) m.log("s1", e);
    m.deliver("s1", t(1, 1));
    expect(names(m.truncate("s1", zx(1, 2)))).toEqual(["t1.3"]);
    const r = m.replica("s1");
    expect(names(r.logged.entries)).toEqual(["t1.1", "t1.2"]);
    expect(names(r.applied.entries)).toEqual(["t1.1", "t1.2"]);
    expect(r.treeZxid).toBe(zx(1, 2));
  });

  it("a truncation a crash took back: the removed records are held again when the recovery reaches them, not once a later logged txn shows the log durable past them", () => {
    // zab-crash-windows seed 10581: s3 truncated (1,3) away at a TRUNC and crashed before any
    // fsync of its log; it recovered at (1,3) and led with it.
    const run = (after: (m: ReplicaLogs) => void, lastZxid: bigint) => {
      const m = new ReplicaLogs();
      for (const e of [t(1, 1), t(1, 2), t(1, 3), t(2, 1)]) m.proposed(e.zxid, e.txn);
      for (const e of [t(1, 1), t(1, 2), t(1, 3)]) {
        m.appended("s3", e.zxid);
        m.log("s3", e);
        m.deliver("s3", e);
      }
      m.truncate("s3", zx(1, 2));
      after(m);
      m.recovered("s3", lastZxid, []);
      return names(m.replica("s3").applied.entries);
    };
    expect(run(() => {}, zx(1, 3))).toEqual(["t1.1", "t1.2", "t1.3"]);
    // The truncation held: the recovery does not reach the removed record.
    expect(run(() => {}, zx(1, 2))).toEqual(["t1.1", "t1.2"]);
    // A txn logged after the truncation: the log is durable past the removed record, which stays gone.
    expect(run((m) => m.log("s3", t(2, 1)), zx(2, 1))).toEqual(["t1.1", "t1.2", "t2.1"]);
  });

  it("a sync fast-forwards the learner's tree through its own log up to the zxid it reported, and names its leader", () => {
    const m = new ReplicaLogs();
    for (const e of [t(1, 1), t(1, 2), t(1, 3)]) m.log("s2", e);
    m.deliver("s2", t(1, 1));
    m.sync("s1", "s2", zx(1, 2));
    const r = m.replica("s2");
    expect(r.syncLeader).toBe("s1");
    expect(names(r.applied.entries)).toEqual(["t1.1", "t1.2"]);
    expect(r.treeZxid).toBe(zx(1, 2));
    // Only logged txns are replayed: a tree claiming a zxid it never logged keeps the hole.
    m.sync("s1", "s2", zx(1, 9));
    expect(names(r.applied.entries)).toEqual(["t1.1", "t1.2", "t1.3"]);
    expect(r.treeZxid).toBe(zx(1, 9));
  });

  it("an established leader's tree holds its whole log up to lastZxid", () => {
    const m = new ReplicaLogs();
    for (const e of [t(1, 1), t(1, 2)]) m.log("s1", e);
    m.established("s1", zx(1, 2));
    expect(names(m.replica("s1").applied.entries)).toEqual(["t1.1", "t1.2"]);
  });

  it("a SNAP copies the sync leader's tree (its applied history, then its logged tail) up to the snapshot's zxid; without a known leader, the fill", () => {
    const m = new ReplicaLogs();
    for (const e of [t(1, 1), t(1, 2), t(2, 1)]) m.log("s1", e);
    m.deliver("s1", t(1, 1));
    m.log("s3", t(1, 1));
    m.log("s3", t(1, 4, "uncommitted"));
    m.sync("s1", "s3", zx(1, 4));
    m.snapLoad("s3", zx(1, 2), [t(1, 1), t(1, 2, "fill")]);
    const r = m.replica("s3");
    expect(names(r.logged.entries)).toEqual(["t1.1", "t1.2"]);
    expect(names(r.applied.entries)).toEqual(["t1.1", "t1.2"]);
    expect(r.treeZxid).toBe(zx(1, 2));
    m.snapLoad("s4", zx(1, 2), [t(1, 1), t(1, 2, "fill")]);
    expect(names(m.replica("s4").applied.entries)).toEqual(["t1.1", "fill"]);
  });

  it("a learner that drops an unpersisted SNAP and reloads from disk (zab.recovered) is back at its disk state, not at the snapshot (docs/bug-power.md, seed 3344)", () => {
    const m = new ReplicaLogs();
    m.log("s1", t(1, 1));
    m.log("s1", t(1, 2));
    m.deliver("s1", t(1, 1));
    m.deliver("s1", t(1, 2));
    m.log("s2", t(1, 1));
    m.sync("s1", "s2", zx(1, 1));
    m.snapLoad("s2", zx(1, 2), []);
    expect(m.replica("s2").treeZxid).toBe(zx(1, 2));
    // The snapshot was never persisted: the log on disk still ends at (1,1).
    m.recovered("s2", zx(1, 1), []);
    const r = m.replica("s2");
    expect(r.treeZxid).toBe(zx(1, 1));
    expect(names(r.applied.entries)).toEqual(["t1.1"]);
    expect(m.deliver("s2", t(1, 2))).toBe(true);
  });

  it("without histories, how far each tree got follows the same rules and nothing is kept", () => {
    const full = new ReplicaLogs();
    const bare = new ReplicaLogs({ histories: false });
    const steps: ((m: ReplicaLogs) => unknown)[] = [
      (m) => m.log("s1", t(1, 1)),
      (m) => m.deliver("s1", t(1, 1)),
      (m) => m.deliver("s1", t(1, 1)),
      (m) => m.sync("s2", "s1", zx(1, 3)),
      (m) => m.truncate("s1", zx(1, 2)),
      (m) => m.recovered("s1", zx(1, 5), []),
      (m) => m.snapLoad("s1", zx(2, 1), []),
      (m) => m.established("s1", zx(2, 4)),
    ];
    for (const step of steps) {
      step(full);
      step(bare);
      expect(bare.replica("s1").treeZxid).toBe(full.replica("s1").treeZxid);
    }
    expect(bare.replica("s1").logged.length + bare.replica("s1").applied.length).toBe(0);
  });
});
