/**
 * A quorum peer's `SyncRequestProcessor` with the processor after it (`SendAckRequestProcessor`
 * on a follower, `AckRequestProcessor` on the leader), an activity of its own: `logRequest`
 * queues a proposal; the processor appends what is queued to the txn log, fsyncs it as one
 * group, then acknowledges each. While an fsync is in flight new requests wait in the queue, not
 * yet written (Java's thread is blocked in `commit()`): one fsync covers everything that queued
 * up meanwhile, so a slow disk delays the log by one fsync, not by one fsync per txn.
 *
 * `shutdown` (`SyncRequestProcessor.shutdown`: join the thread, then `flush()`; on a follower
 * since the ZOOKEEPER-4712 fix): what is queued is written out first, so the tree the peer
 * reloads right after includes it; no more acknowledgements go out, but what reaches the disk
 * is still announced as logged — log file by file, as each fsync completes (a flush straddling a
 * roll can be cut by a crash after the older file is durable). With `keepsRunning` (ZK-4712: 3.8.0's `Follower.shutdown`
 * leaves the sync thread running) it goes on writing in the background after the role ended,
 * after the peer reloaded its tree.
 *
 * Asserted as it runs: txns are logged in zxid order, and an ACK goes out only for a txn whose
 * fsync has completed — except in the `follower-ack-before-fsync` canary (`acksBeforeFsync`),
 * which ACKs each txn as soon as it is appended, for `zab.durable-ack` to catch.
 */
import { invariant } from "../../../base/errors.js";
import { zxidHex, type Zxid } from "../../proto/records.js";
import type { TxnEntry } from "../../proto/txn.js";
import type { QuorumPeer } from "./quorum-peer.js";
import { loggedAnnouncer } from "./zab-trace.js";

export class SyncRequestProcessor {
  /** Queued txns, and per txn whether it is ACKed once durable (two arrays: no object per request). */
  private queue: TxnEntry[] = [];
  private queueAcks: boolean[] = [];
  private flushing = false;
  private stopped = false;
  private readonly whenIdle: (() => void)[] = [];
  /** The last zxid appended to the log, and the last one whose fsync completed. */
  private appendedZxid: Zxid = 0n;
  private durableZxid: Zxid = 0n;

  constructor(
    private readonly peer: QuorumPeer,
    private readonly sendAck: (zxid: Zxid) => void,
    private readonly writeFailed: (err: string) => void,
    private readonly keepsRunning = false,
    private readonly acksBeforeFsync = false,
  ) {}

  logRequest(entry: TxnEntry, ack: boolean): void {
    if (this.stopped) return;
    this.queue.push(entry);
    this.queueAcks.push(ack);
    if (!this.flushing) this.flush();
  }

  /** Runs `fn` once everything handed over so far is durable and its ACKs are sent. */
  afterFlush(fn: () => void): void {
    if (!this.flushing && this.queue.length === 0) return fn();
    this.whenIdle.push(fn);
  }

  private flush(): void {
    const batch = this.queue;
    const acks = this.queueAcks;
    this.queue = [];
    this.queueAcks = [];
    if (!this.append(batch)) return;
    this.flushing = true;
    // The canary: broken on purpose, every ACK of the batch goes out before its fsync.
    if (this.acksBeforeFsync) for (let i = 0; i < batch.length; i++) if (acks[i]) this.sendAck(batch[i]!.header.zxid);
    const announce = loggedAnnouncer(this.peer.ctx, this.peer.myid, batch);
    this.peer.zkDb.commit(() => {
      this.flushing = false;
      this.durableZxid = batch[batch.length - 1]!.header.zxid;
      announce();
      for (let i = 0; i < batch.length; i++) {
        if (!acks[i] || this.stopped || this.acksBeforeFsync) continue;
        const zxid = batch[i]!.header.zxid;
        invariant(zxid <= this.durableZxid, () => `server ${this.peer.myid} ACKs ${zxidHex(zxid)} before its fsync`);
        this.sendAck(zxid);
      }
      if (this.queue.length > 0) return this.flush();
      if (this.whenIdle.length > 0) for (const fn of this.whenIdle.splice(0)) fn();
    }, announce);
  }

  private append(batch: readonly TxnEntry[]): boolean {
    for (const entry of batch) {
      const zxid = entry.header.zxid;
      invariant(zxid > this.appendedZxid, () => `server ${this.peer.myid} logs ${zxidHex(zxid)} after ${zxidHex(this.appendedZxid)}: not in zxid order`);
      this.appendedZxid = zxid;
      const w = this.peer.zkDb.append(entry);
      if (!w.ok) {
        this.writeFailed(w.err);
        return false;
      }
    }
    return true;
  }

  shutdown(): void {
    if (this.keepsRunning) return;
    this.stopped = true;
    this.whenIdle.length = 0;
    const rest = this.queue;
    this.queue = [];
    this.queueAcks = [];
    if (rest.length === 0 || !this.append(rest)) return;
    // Announced file by file, as the fsyncs complete (see `loggedAnnouncer`).
    const announce = loggedAnnouncer(this.peer.ctx, this.peer.myid, rest);
    this.peer.zkDb.commit(() => announce(), announce);
  }
}
