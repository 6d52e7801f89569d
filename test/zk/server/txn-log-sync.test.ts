import { describe, expect, it } from "vitest";
import { Simulator } from "../../../src/sim/simulator.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import { makeZxid, type Zxid } from "../../../src/zk/proto/records.js";
import type { TxnEntry } from "../../../src/zk/proto/txn.js";
import { ZKDatabase } from "../../../src/zk/server/zk-database.js";
import { preallocatedLogLength } from "../../../src/zk/server/file-txn-snap-log.js";

const MiB = 1024 * 1024;
const z = (counter: number): Zxid => makeZxid(1, counter);
const entry = (counter: number): TxnEntry => ({ header: { clientId: 1n, cxid: counter, zxid: z(counter), time: 0, type: OpCode.error }, txn: { kind: "ErrorTxn", err: 0 } });
const counters = (txns: readonly TxnEntry[]) => txns.map((t) => Number(t.header.zxid & 0xffffffffn));

/**
 * A leader's database whose txn log is three files: log.(1,1) with txns 1–3, log.(1,4) with
 * 4–6 and log.(1,7) with 7–9 (each roll is what a snapshot trigger does).
 */
function threeLogFiles(snapshotSizeFactor?: number): ZKDatabase {
  const sim = new Simulator({ seed: 1 });
  let db!: ZKDatabase;
  sim.addNode("s1", (ctx) => {
    db = new ZKDatabase(ctx, {}, { snapCount: 1_000_000, chunkNodes: 500, chunkIntervalUs: 1_000, ...(snapshotSizeFactor !== undefined ? { snapshotSizeFactor } : {}) });
    return {};
  });
  sim.start("s1");
  for (let i = 1; i <= 9; i++) {
    expect(db.append(entry(i)).ok).toBe(true);
    if (i % 3 === 0) db.snapLog.rollLog();
  }
  return db;
}

describe("txn-log sync: the leader's on-disk catch-up (ZKDatabase.getProposalsFromTxnLog, 3.8)", () => {
  it("a txn log file is preallocated in 64 MiB blocks, so its length is never just its content", () => {
    expect(preallocatedLogLength(0)).toBe(16 + 64 * MiB);
    expect(preallocatedLogLength(1000)).toBe(16 + 64 * MiB);
    // Within 4 KiB of the end, the next write extends the file by another block.
    expect(preallocatedLogLength(64 * MiB - 4096)).toBe(16 + 128 * MiB);
  });

  it("readTxnLog starts at the file holding the zxid and counts the size of the files after it", () => {
    const log = threeLogFiles().snapLog;
    const oneFile = preallocatedLogLength(0);
    const from5 = log.readTxnLog(z(5));
    expect(counters(from5.txns)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(from5.storageBytes).toBe(oneFile); // log.(1,7) only: the iterator already opened log.(1,4)
    expect(log.readTxnLog(z(8)).storageBytes).toBe(0);
    // A file starting exactly at the zxid brings the one before it too (FileTxnIterator.init).
    const from4 = log.readTxnLog(z(4));
    expect(counters(from4.txns)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(from4.storageBytes).toBe(2 * oneFile);
  });

  it("without a snapshot the size limit is 0, which means unlimited: every file is read", () => {
    const db = threeLogFiles();
    expect(db.txnLogSizeLimitBytes()).toBe(0);
    expect(counters(db.proposalsFromTxnLog(z(2)))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("with a snapshot the log after the first file must be at most a third of its size: only the newest file passes", () => {
    const db = threeLogFiles();
    db.takeSnapshotNow();
    const limit = db.txnLogSizeLimitBytes();
    expect(limit).toBe(Math.floor(db.snapLog.newestSnapshotBytes() * 0.33));
    expect(limit).toBeGreaterThan(0);
    expect(db.proposalsFromTxnLog(z(5))).toEqual([]); // log.(1,7) after it: 64 MiB, over the limit
    expect(counters(db.proposalsFromTxnLog(z(8)))).toEqual([7, 8, 9]);
  });

  it("a log that does not reach back to the zxid gives nothing (the learner gets a SNAP)", () => {
    const db = threeLogFiles();
    // (0,5) is older than the first logged txn (1,1): "unable to find proposals from txnlog".
    expect(counters(db.snapLog.readTxnLog(makeZxid(0, 5)).txns)[0]).toBe(1);
    expect(db.proposalsFromTxnLog(makeZxid(0, 5))).toEqual([]);
  });

  it("a negative snapshotSizeFactor turns txn-log sync off", () => {
    const db = threeLogFiles(-1);
    expect(db.txnLogSyncEnabled).toBe(false);
    expect(db.proposalsFromTxnLog(z(8))).toEqual([]);
    expect(threeLogFiles().txnLogSyncEnabled).toBe(true);
  });
});
