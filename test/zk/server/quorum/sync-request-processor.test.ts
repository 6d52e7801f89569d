import { describe, expect, it } from "vitest";
import { SyncRequestProcessor } from "../../../../src/zk/server/quorum/sync-request-processor.js";
import type { QuorumPeer } from "../../../../src/zk/server/quorum/quorum-peer.js";
import type { TxnEntry } from "../../../../src/zk/proto/txn.js";
import { makeZxid, type Zxid } from "../../../../src/zk/proto/records.js";

/** A peer whose log records appends and whose fsyncs complete when the test says so. */
function peerWithLog() {
  const appended: Zxid[] = [];
  const fsyncs: (() => void)[] = [];
  /** Per commit: what its per-log-file callback is told (a roll splits a commit over two files). */
  const fileFsyncs: ((lastZxid: Zxid) => void)[] = [];
  const logged: string[] = [];
  const peer = {
    myid: 1,
    zkDb: {
      append: (entry: TxnEntry) => {
        appended.push(entry.header.zxid);
        return { ok: true };
      },
      commit: (onDone: () => void, onLogDurable?: (lastZxid: Zxid) => void) => {
        fsyncs.push(onDone);
        fileFsyncs.push(onLogDurable ?? (() => undefined));
      },
    },
    ctx: {
      annotate: (kind: string, fields: { zxid: string }) => {
        if (kind === "zab.log") logged.push(fields.zxid);
      },
    },
  } as unknown as QuorumPeer;
  return { peer, appended, fsyncs, fileFsyncs, logged };
}

const entry = (zxid: Zxid): TxnEntry => ({ header: { clientId: 1n, cxid: 1, zxid, time: 0, type: 2 }, txn: { kind: "DeleteTxn", path: "/a" } }) as TxnEntry;

describe("SyncRequestProcessor asserts its own pre- and post-conditions", () => {
  it("ACKs a txn only once its fsync has completed, in zxid order", () => {
    const { peer, appended, fsyncs } = peerWithLog();
    const acks: Zxid[] = [];
    const sync = new SyncRequestProcessor(peer, (zxid) => acks.push(zxid), () => undefined);
    sync.logRequest(entry(makeZxid(1, 1)), true);
    sync.logRequest(entry(makeZxid(1, 2)), true); // waits for the first fsync
    expect(acks).toEqual([]);
    fsyncs.shift()!();
    expect(acks).toEqual([makeZxid(1, 1)]);
    fsyncs.shift()!();
    expect(acks).toEqual([makeZxid(1, 1), makeZxid(1, 2)]);
    expect(appended).toEqual([makeZxid(1, 1), makeZxid(1, 2)]);
  });

  it("refuses to log a txn out of zxid order (an assertion, not a checker: it stops the run)", () => {
    const { peer, fsyncs } = peerWithLog();
    const sync = new SyncRequestProcessor(peer, () => undefined, () => undefined);
    sync.logRequest(entry(makeZxid(2, 5)), true);
    fsyncs.shift()!();
    expect(() => sync.logRequest(entry(makeZxid(2, 4)), true)).toThrow(/invariant violated: server 1 logs 0x200000004 after 0x200000005: not in zxid order/);
  });

  it("announces the txns of an older log file as logged when its fsync completes, before the newer file's (zab-fuzzy-snapshots seed 7)", () => {
    // A shutdown flush whose txns straddle a log roll: (1,2) in the old file, (1,3) and (1,4) in
    // the new one. The old file's fsync completes and the peer crashes before the new one's: (1,2)
    // is on disk and the peer recovers it, so it must have been announced ("zab.log"), or the
    // checkers see a recovered txn they never saw logged (a false hole after the restart).
    const { peer, fsyncs, fileFsyncs, logged } = peerWithLog();
    const sync = new SyncRequestProcessor(peer, () => undefined, () => undefined);
    sync.logRequest(entry(makeZxid(1, 1)), true); // its fsync is in flight
    for (const c of [2, 3, 4]) sync.logRequest(entry(makeZxid(1, c)), true); // queued meanwhile
    sync.shutdown();
    expect(fsyncs).toHaveLength(2);
    fileFsyncs[1]!(makeZxid(1, 2)); // the old file is durable; the crash takes the new one
    expect(logged).toEqual(["0x100000002"]);
    fileFsyncs[1]!(makeZxid(1, 4));
    fsyncs[1]!();
    expect(logged).toEqual(["0x100000002", "0x100000003", "0x100000004"]); // each announced once
  });
});
