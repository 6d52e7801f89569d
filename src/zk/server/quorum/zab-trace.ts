/**
 * The trace annotations every quorum server writes about txns, for the ZAB checkers: the txn
 * digest that tells two txns with one zxid apart, the "deliver" of a committed txn, and the
 * sampled whole-tree digest. Shared by the leader, the learners and their sync processors.
 */
import { hashStructure } from "../../../base/structure-hash.js";
import { zxidCounter, zxidHex, type Zxid } from "../../proto/records.js";
import type { TxnEntry } from "../../proto/txn.js";
import type { NodeContext } from "../../../world/index.js";
import { RecentMemo } from "../recent-memo.js";
import type { ZooKeeperServer } from "../zoo-keeper-server.js";

/** A short digest of a txn's content, so checkers can tell two txns with one zxid apart. */
export function txnDigest(entry: TxnEntry): string {
  return txnDigests.get(entry);
}
// Memoised: one entry object travels to every server and is annotated at propose, log and
// deliver on each of them, all within a few txns of each other.
const txnDigests = new RecentMemo<TxnEntry, string>(
  16,
  (entry) => hashStructure(entry.txn).toString(16) + ":" + entry.header.clientId.toString(16) + ":" + entry.header.cxid,
);

/**
 * Announces the txns of `batch` (ascending zxids) as durably logged ("zab.log") as the fsyncs
 * covering them complete. The result is called with the zxid up to which the log is durable
 * (`commit`'s `onLogDurable`, once per log file) or with none once all of it is: a commit that
 * spans a log roll makes the older file durable first, and a crash before the newer file's fsync
 * keeps those txns — a txn really on disk must have been announced, or it looks missing to the
 * checkers after the restart. Each txn is announced once.
 */
export function loggedAnnouncer(ctx: NodeContext, sid: number, batch: readonly TxnEntry[]): (durableZxid?: Zxid) => void {
  let next = 0;
  return (durableZxid) => {
    for (; next < batch.length; next++) {
      const e = batch[next]!;
      if (durableZxid !== undefined && e.header.zxid > durableZxid) return;
      ctx.annotate("zab.log", { sid, zxid: zxidHex(e.header.zxid), txn: txnDigest(e) });
    }
  };
}

/**
 * A quorum server delivered a committed txn: the ZAB "deliver", and (when `withDigest`, i.e.
 * announced right after applying) a sampled tree digest.
 */
export function annotateDelivery(zks: ZooKeeperServer, entry: TxnEntry, withDigest = true): void {
  const zxid = zxidHex(entry.header.zxid);
  zks.ctx.annotate("zab.deliver", { sid: zks.config.serverId, zxid, txn: txnDigest(entry) });
  if (withDigest && isDigestSample(entry.header.zxid)) zks.ctx.annotate("zab.digest", { sid: zks.config.serverId, zxid, digest: zks.zkDb.dataTree.digest() });
}

/**
 * Every server annotates its whole-tree digest after applying every 16th zxid of an epoch, for
 * the identical-trees checker (a full digest per txn would dominate the run time).
 */
export function isDigestSample(zxid: Zxid): boolean {
  return zxidCounter(zxid) % 16 === 0;
}
