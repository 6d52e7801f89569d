/**
 * Txn log files cut in place. A file whose only record a crash tore: the next incarnation's
 * first append of that zxid re-creates the file (Java's `FileTxnLog.append` opens `log.<zxid>`
 * with a truncating `FileOutputStream`), so what it logs there is read back after the next
 * restart. Before, the append went behind the torn record, where the reader (which stops at the
 * tear) never looks: zab-random-faults seeds 10367 and 10498 lost committed txns so. And a TRUNC
 * on a full disk: `FileTxnLog.truncate` shrinks the file (`setLength`), which needs no space.
 * Before, the shrink was refused as a write (ENOSPC), the reload found the txns still logged, and
 * the learner gave up the sync "below a snapshot" it did not have (seed 10706). Since a leader
 * writes a clean snapshot as it starts leading, a TRUNC may cut txns a snapshot holds: the
 * snapshot goes too. And a role change keeps the committed log, as a restart does not.
 */
import { describe, expect, it } from "vitest";
import { isTorn } from "../../../src/sim/disk.js";
import { Simulator } from "../../../src/sim/simulator.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import { makeZxid } from "../../../src/zk/proto/records.js";
import type { TxnEntry } from "../../../src/zk/proto/txn.js";
import { ZKDatabase } from "../../../src/zk/server/zk-database.js";

const entry = (epoch: number, counter: number): TxnEntry => ({
  header: { clientId: 1n, cxid: counter, zxid: makeZxid(epoch, counter), time: 0, type: OpCode.error },
  txn: { kind: "ErrorTxn", err: 0 },
});

function oneServer(): { sim: Simulator; db: () => ZKDatabase } {
  const sim = new Simulator({ seed: 1 });
  let db!: ZKDatabase;
  sim.addNode("s1", (ctx) => {
    db = new ZKDatabase(ctx, {}, { snapCount: 1_000_000, chunkNodes: 500, chunkIntervalUs: 1_000 });
    db.loadDataBase();
    return {};
  }, { tearProbability: 1 });
  sim.start("s1");
  return { sim, db: () => db };
}

describe("txn log: files cut in place", () => {
  it("a file left holding a torn record is re-created by the next append of its zxid, and what is logged there survives a restart", () => {
    const { sim, db } = oneServer();
    const log = (...entries: TxnEntry[]) => {
      for (const e of entries) expect(db().append(e).ok).toBe(true);
      db().snapLog.flush(() => undefined);
      sim.runSync({ untilUs: sim.nowUs + 100_000 });
    };

    log(entry(1, 1), entry(1, 2));
    db().snapLog.rollLog(); // the next txn starts its own file, log.100000003
    expect(db().append(entry(1, 3)).ok).toBe(true); // never fsynced: the crash tears it
    sim.restart("s1");
    const disk = sim.node("s1").disk;
    expect(disk.read("version-2/log.100000003").map(isTorn)).toEqual([true]);
    expect(db().snapLog.lastLoggedZxid()).toBe(makeZxid(1, 2));

    log(entry(1, 3), entry(2, 1)); // the same txn again (a DIFF from the leader), then the next epoch's
    expect(disk.read("version-2/log.100000003").map(isTorn)).toEqual([false, false]);
    sim.restart("s1");
    expect(db().snapLog.lastLoggedZxid()).toBe(makeZxid(2, 1));
    expect(db().loadDataBase()).toBe(4); // no snapshot: all four txns replayed from the logs
    expect(db().lastProcessedZxid).toBe(makeZxid(2, 1));
  });

  it("a TRUNC on a full disk shrinks the log (no space needed) and stays truncated across a restart", () => {
    const { sim, db } = oneServer();
    for (let i = 1; i <= 5; i++) expect(db().append(entry(1, i)).ok).toBe(true);
    db().snapLog.flush(() => undefined);
    sim.runSync({ untilUs: 100_000 });
    sim.node("s1").disk.setFull(true);
    db().truncateLog(makeZxid(1, 3));
    db().loadDataBase();
    expect(db().lastProcessedZxid).toBe(makeZxid(1, 3));
    sim.runSync({ untilUs: 200_000 }); // the truncation's fsync
    sim.restart("s1");
    expect(db().snapLog.lastLoggedZxid()).toBe(makeZxid(1, 3));
  });

  /** Five txns logged and applied, then a consistent snapshot of them (a leader's at `Leader.lead`). */
  function snapshotOfFive(): { sim: Simulator; db: () => ZKDatabase } {
    const server = oneServer();
    for (let i = 1; i <= 5; i++) {
      expect(server.db().append(entry(1, i)).ok).toBe(true);
      server.db().processTxn(entry(1, i));
    }
    server.db().snapLog.flush(() => undefined);
    expect(server.db().takeSnapshotNow()).toBe(true);
    server.sim.runSync({ untilUs: 100_000 });
    return server;
  }

  it("a TRUNC below a snapshot of the txns it cuts removes that snapshot: the reload holds the truncated log, across a restart too", () => {
    const { sim, db } = snapshotOfFive();
    db().truncateLog(makeZxid(1, 3));
    db().loadDataBase();
    expect(db().lastProcessedZxid).toBe(makeZxid(1, 3));
    sim.runSync({ untilUs: 200_000 });
    sim.restart("s1");
    expect(db().lastProcessedZxid).toBe(makeZxid(1, 3));
  });

  it("after a role the committed log is kept below the newest snapshot (fastForwardDataBase); a restart's starts above it", () => {
    const { sim, db } = snapshotOfFive();
    db().reloadAfterRole();
    expect(db().committedLog.map((e) => e.header.zxid)).toEqual([1, 2, 3, 4, 5].map((i) => makeZxid(1, i)));
    sim.restart("s1");
    expect(db().lastProcessedZxid).toBe(makeZxid(1, 5));
    expect(db().committedLog).toEqual([]);
  });
});
