import { describe, expect, it } from "vitest";
import { Simulator } from "../../../src/sim/simulator.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import { makeZxid } from "../../../src/zk/proto/records.js";
import type { TxnEntry } from "../../../src/zk/proto/txn.js";
import { ZKDatabase } from "../../../src/zk/server/zk-database.js";

const entry = (counter: number): TxnEntry => ({ header: { clientId: 1n, cxid: counter, zxid: makeZxid(1, counter), time: 0, type: OpCode.error }, txn: { kind: "ErrorTxn", err: 0 } });

/** Five rounds of three logged (and applied) txns, each round ended by a snapshot and a roll. */
function fiveSnapshots(): { db: ZKDatabase; sim: Simulator } {
  const sim = new Simulator({ seed: 1 });
  let db!: ZKDatabase;
  sim.addNode("s1", (ctx) => {
    db = new ZKDatabase(ctx, {}, { snapCount: 1_000_000, chunkNodes: 500, chunkIntervalUs: 1_000 });
    return {};
  });
  sim.start("s1");
  for (let i = 1; i <= 15; i++) {
    const e = entry(i);
    expect(db.append(e).ok).toBe(true);
    db.dataTree.processTxn(e.header, e.txn);
    if (i % 3 === 0) db.snapLog.save(db.dataTree);
  }
  db.snapLog.flush(() => undefined); // every log committed (a log still being written is never purged)
  sim.runSync({ untilUs: 1_000_000 });
  return { db, sim };
}

describe("txn-log purge (PurgeTxnLog.purge, autopurge.snapRetainCount)", () => {
  it("keeps the newest N snapshots and the logs from the one holding the oldest of them; a restart still recovers everything", () => {
    const { db, sim } = fiveSnapshots();
    const names = () => db.snapLog["disk"].list().filter((n: string) => n.startsWith("version-2/")).sort();
    expect(names().filter((n: string) => n.includes("snapshot"))).toHaveLength(5);
    db.snapLog.purge(3);
    sim.runSync({ untilUs: 2_000_000 });
    // Snapshots at txns 9, 12, 15 stay; logs from log.(1,7) (txns 7-9, holding snapshot 9) on.
    expect(names()).toEqual(["version-2/log.100000007", "version-2/log.10000000a", "version-2/log.10000000d", "version-2/snapshot.100000009", "version-2/snapshot.10000000c", "version-2/snapshot.10000000f"]);
    db.loadDataBase();
    expect(db.lastProcessedZxid).toBe(makeZxid(1, 15));
    db.snapLog.purge(3); // nothing more to purge
    sim.runSync({ untilUs: 3_000_000 });
    expect(names()).toHaveLength(6);
  });
});
