import { describe, expect, it } from "vitest";
import { SyncRequestProcessor } from "../../../../src/zk/server/quorum/sync-request-processor.js";
import type { QuorumPeer } from "../../../../src/zk/server/quorum/quorum-peer.js";
import type { TxnEntry } from "../../../../src/zk/proto/txn.js";
import { makeZxid, type Zxid } from "../../../../src/zk/proto/records.js";

/** A peer whose log records appends and whose fsyncs complete when the test says so. */
function peerWithLog() {
  const appended: Zxid[] = [];
  const fsyncs: (() => void)[] = [];
  const peer = {
    myid: 1,
    zkDb: {
      append: (entry: TxnEntry) => {
        appended.push(entry.header.zxid);
        return { ok: true };
      },
      commit: (onDone: () => void) => fsyncs.push(onDone),
    },
    ctx: { annotate: () => undefined },
  } as unknown as QuorumPeer;
  return { peer, appended, fsyncs };
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
});
