/**
 * `FileTxnSnapLog`: a server's durable state on its simulated disk, laid out as ZooKeeper lays
 * it out: txn log files (`version-2/log.<zxid>`, preallocated in 64 MiB blocks) and snapshot
 * files (`version-2/snapshot.<zxid>`). Appends are durable once the fsync covering them
 * completes; reading the log stops at the first torn record, as Java's reader stops at a bad
 * checksum. `ZKDatabase` (zk-database.ts) keeps the in-memory tree over it.
 */
import { isTorn, type NodeDisk, type DiskResult } from "../../world/index.js";
import type { TxnEntry } from "../proto/txn.js";
import { zxidHex, type Zxid } from "../proto/records.js";
import { Code } from "../proto/error-code.js";
import { txnEntrySize } from "../proto/codec-txn.js";
import { DataTree, type DataTreeOptions, type DataTreeSnapshot } from "./data-tree.js";
import { SNAP_PREFIX, readSnapshotFile, snapshotFileName, writeSnapshotNow } from "./fuzzy-snapshot.js";
import { RecentMemo } from "./recent-memo.js";

export const LOG_PREFIX = "version-2/log.";
export { SNAP_PREFIX };
/** Per-record overhead of the txn log: checksum (8), length (4), end-of-record byte (1). */
const LOG_RECORD_OVERHEAD_BYTES = 13;

/**
 * How a replay treats a logged txn that fails on the restored tree. "tolerant" is ZooKeeper's;
 * "strict" (a canary) takes such a txn for corruption and stops replaying there, as a recovery
 * that assumed consistent snapshots would.
 */
export type ReplayMode = "tolerant" | "strict";

/**
 * A txn's log record size. Memoised: every server of an ensemble logs the very same entry
 * object, so recent entries spare two of the three sizing passes.
 */
const loggedSizes = new RecentMemo<TxnEntry, number>(16, (entry) => txnEntrySize(entry) + LOG_RECORD_OVERHEAD_BYTES);

function zxidOfFile(name: string, prefix: string): Zxid {
  return BigInt(`0x${name.slice(prefix.length)}`);
}

function fileName(prefix: string, zxid: Zxid): string {
  return `${prefix}${zxid.toString(16)}`;
}

export class FileTxnSnapLog {
  private currentLog: string | undefined;
  /**
   * Log files appended to since the last commit (a roll can leave txns in the previous one), each
   * with the last zxid appended to it: files hold ascending zxids, older files lower ones.
   */
  private readonly dirtyLogs = new Map<string, Zxid>();

  constructor(private readonly disk: NodeDisk) {}

  /** Log and snapshot files present, each sorted by zxid. */
  private files(prefix: string): { name: string; zxid: Zxid }[] {
    return this.disk
      .list()
      .filter((f) => f.startsWith(prefix))
      .map((name) => ({ name, zxid: zxidOfFile(name, prefix) }))
      .sort((a, b) => (a.zxid < b.zxid ? -1 : a.zxid > b.zxid ? 1 : 0));
  }

  /**
   * Appends a txn to the current log. A new log file starts at its zxid and, as Java's
   * `FileTxnLog.append` opens it with `new FileOutputStream(file)`, empties whatever file of
   * that name is there: a crash can leave `log.<zxid>` holding only a torn record of that very
   * txn, and the next incarnation's first append re-creates the file rather than writing behind
   * the tear, where no reader would ever find it.
   */
  append(entry: TxnEntry): DiskResult {
    if (this.currentLog === undefined) {
      this.currentLog = fileName(LOG_PREFIX, entry.header.zxid);
      this.disk.truncate(this.currentLog, 0);
    }
    this.dirtyLogs.set(this.currentLog, entry.header.zxid);
    // Labelled with the zxid: the trace then says which fsync made which txn durable (zab.durable-ack).
    return this.disk.append(this.currentLog, entry, loggedSizes.get(entry), zxidHex(entry.header.zxid));
  }

  /**
   * fsyncs every log written since the last commit, in file order (`FileTxnLog.commit` forces its
   * streams one after another); `onDone` runs when all of it is durable. `onLogDurable(lastZxid)`
   * runs as each file's fsync completes: every txn appended up to `lastZxid` is then on disk even
   * if a crash loses the files after it — a caller announcing what is logged must say so then.
   */
  commit(onDone: () => void, onLogDurable?: (lastZxid: Zxid) => void): void {
    const dirty = this.dirtyLogs.size;
    if (dirty === 0) {
      onDone();
      return;
    }
    this.commitsInFlight++;
    if (dirty === 1) {
      // The common case (no roll since the last commit): one file, no copy of the map.
      const log = this.currentLog!;
      const lastZxid = this.dirtyLogs.get(log);
      if (lastZxid !== undefined) {
        this.dirtyLogs.clear();
        this.disk.fsync(log, () => {
          onLogDurable?.(lastZxid);
          onDone();
          this.commitDone();
        });
        return;
      }
    }
    const logs = [...this.dirtyLogs];
    this.dirtyLogs.clear();
    let pending = logs.length;
    for (const [log, lastZxid] of logs) {
      this.disk.fsync(log, () => {
        onLogDurable?.(lastZxid);
        if (--pending > 0) return;
        onDone();
        this.commitDone();
      });
    }
  }

  private commitDone(): void {
    if (--this.commitsInFlight === 0 && this.whenIdle.length > 0) for (const fn of this.whenIdle.splice(0)) fn();
  }

  private commitsInFlight = 0;
  private readonly whenIdle: (() => void)[] = [];

  /**
   * `SyncRequestProcessor.shutdown`'s final `flush()`: commits what is unsynced and runs `onDone`
   * once no log fsync is in flight any more — every txn appended so far is durable. At once when
   * nothing is pending (then nothing waits: the common case costs no time).
   */
  flush(onDone: () => void): void {
    if (this.dirtyLogs.size > 0) this.commit(() => {});
    if (this.commitsInFlight === 0) return onDone();
    this.whenIdle.push(onDone);
  }

  /** The next append starts a new log file (after a snapshot). */
  rollLog(): void {
    this.currentLog = undefined;
  }

  /**
   * Writes a consistent snapshot of `tree` at once, named by its last processed zxid, then rolls
   * the log; `onDone` once it is durable. False when the write failed (`onDone` never runs).
   */
  save(tree: DataTree, onDone?: () => void): boolean {
    const ok = writeSnapshotNow(this.disk, tree, onDone);
    this.rollLog();
    return ok;
  }

  hasValidSnapshot(zxid: Zxid): boolean {
    return readSnapshotFile(this.disk.read(snapshotFileName(zxid))) !== undefined;
  }

  /**
   * Restores the newest valid snapshot and replays the logs after its zxid. A fuzzy snapshot may
   * already hold some of those txns' effects: their failures (NODEEXISTS, NONODE) are ignored.
   * `snapshotZxid` is the restored snapshot's (0 without one): the replay starts above it.
   */
  restore(opts: DataTreeOptions, mode: ReplayMode = "tolerant"): { tree: DataTree; replayed: TxnEntry[]; snapshotZxid: Zxid } {
    const newest = this.newestValidSnapshot();
    const tree = newest === undefined ? new DataTree(opts) : DataTree.deserialize(newest.image, opts);
    const snapshotZxid = tree.lastProcessedZxid;
    const replayed: TxnEntry[] = [];
    for (const entry of this.loggedTxns()) {
      if (entry.header.zxid <= tree.lastProcessedZxid) continue;
      const r = tree.processTxn(entry.header, entry.txn);
      if (mode === "strict" && (r.err === Code.NODEEXISTS || r.err === Code.NONODE) && !isLoggedError(entry)) break;
      replayed.push(entry);
    }
    return { tree, replayed, snapshotZxid };
  }

  /** Every intact logged txn in log order (stops within a log at its first torn record). */
  loggedTxns(): TxnEntry[] {
    return this.intactTxns(this.files(LOG_PREFIX).map((f) => f.name));
  }

  /** The intact txns of these log files, in order (each file up to its first torn record). */
  private intactTxns(logs: readonly string[]): TxnEntry[] {
    const out: TxnEntry[] = [];
    for (const name of logs) {
      for (const rec of this.disk.read(name)) {
        if (isTorn(rec)) break;
        out.push(rec as TxnEntry);
      }
    }
    return out;
  }

  /** `findMostRecentSnapshot`: the newest snapshot file that is valid, with its image. */
  private newestValidSnapshot(): { name: string; image: DataTreeSnapshot } | undefined {
    for (const snap of this.files(SNAP_PREFIX).reverse()) {
      const image = readSnapshotFile(this.disk.read(snap.name));
      if (image !== undefined) return { name: snap.name, image };
    }
    return undefined;
  }

  /**
   * `readTxnLog(zxid, fastForward = false)` of 3.8's FileTxnIterator: the log files from the one
   * that starts at or before `zxid` on (a file starting exactly at `zxid` brings the one before
   * it too), their intact txns in log order from the first, and `getStorageSize()`: the lengths
   * of those files except the first, which the iterator has already opened (a quirk kept as is).
   */
  readTxnLog(zxid: Zxid): { txns: TxnEntry[]; storageBytes: number } {
    const newestFirst = this.files(LOG_PREFIX).reverse();
    const stored: string[] = [];
    for (const f of newestFirst) {
      stored.push(f.name);
      if (f.zxid < zxid) break;
    }
    stored.reverse();
    const txns = this.intactTxns(stored);
    let storageBytes = 0;
    for (const name of stored.slice(1)) storageBytes += preallocatedLogLength(this.disk.sizeOf(name));
    return { txns, storageBytes };
  }

  /** The size of the newest valid snapshot file (`findMostRecentSnapshot`), 0 when there is none. */
  newestSnapshotBytes(): number {
    const newest = this.newestValidSnapshot();
    return newest === undefined ? 0 : this.disk.sizeOf(newest.name);
  }

  /** The zxid of the last intact logged txn (0 when none). */
  lastLoggedZxid(): Zxid {
    const txns = this.loggedTxns();
    return txns.length === 0 ? 0n : txns[txns.length - 1]!.header.zxid;
  }

  /**
   * `PurgeTxnLog.purge(snapRetainCount)`: keeps the newest `retain` valid snapshots, the log
   * files with txns after the oldest of them (and the one log file that starts at or before
   * it), and removes older snapshots and logs. What the servers hold on disk then stays bounded
   * on a long run, as it does on a deployment with `autopurge` on.
   */
  purge(retain: number): void {
    const valid = this.files(SNAP_PREFIX).filter((f) => readSnapshotFile(this.disk.read(f.name)) !== undefined);
    if (valid.length <= retain) return;
    const leastZxid = valid[valid.length - retain]!.zxid;
    // Unlinked at once, as `File.delete` does: the fsync makes the removal durable.
    const unlink = (name: string) => {
      this.disk.remove(name);
      this.disk.fsync(name);
    };
    for (const snap of this.files(SNAP_PREFIX)) if (snap.zxid < leastZxid) unlink(snap.name);
    const logs = this.files(LOG_PREFIX);
    let keepFrom = 0;
    for (let i = 0; i < logs.length; i++) if (logs[i]!.zxid <= leastZxid) keepFrom = i;
    for (const log of logs.slice(0, keepFrom)) if (log.name !== this.currentLog && !this.dirtyLogs.has(log.name)) unlink(log.name);
  }

  /**
   * Removes every logged txn with a zxid above `zxid` (ZAB's TRUNC). As `FileTxnLog.truncate`
   * cuts the file in place (`RandomAccessFile.setLength`) and deletes the later ones, a full disk
   * does not stop it.
   *
   * Snapshots named above `zxid` are removed too. 3.8 leaves them, and its reload after the
   * TRUNC then restores the newest one, txns above the truncation point included: a leader's
   * clean snapshot (`Leader.lead`) holds every txn in its log, committed or not, so a server that
   * was elected, failed to establish itself and later rejoins a leader without its last txns
   * keeps them in its tree (the class of ZOOKEEPER-1549, open upstream). Removing them is the
   * simulator's choice, not 3.8's: the rejoining server's tree is then its truncated log's.
   * `keepSnapshots` (the bug zoo's ZK-1549) leaves them, as 3.8.0 does. A learner synced by SNAP
   * may hold the txns up to `zxid` only in such a snapshot (its log stops below): the reload then
   * falls short of `zxid`, and the Learner syncs again from where its disk stands.
   */
  truncateLog(zxid: Zxid, keepSnapshots = false): void {
    for (const snap of this.files(SNAP_PREFIX)) {
      if (snap.zxid <= zxid || keepSnapshots) continue;
      this.disk.remove(snap.name);
      this.disk.fsync(snap.name);
    }
    for (const log of this.files(LOG_PREFIX)) {
      const recs = this.disk.read(log.name);
      let keep = 0;
      while (keep < recs.length && !isTorn(recs[keep]) && (recs[keep] as TxnEntry).header.zxid <= zxid) keep++;
      if (keep === recs.length) continue;
      if (keep === 0) this.disk.remove(log.name);
      else this.disk.truncate(log.name, keep);
      this.disk.fsync(log.name);
    }
    this.rollLog();
  }
}

/** `zookeeper.preAllocSize`: txn log files grow in blocks of 64 MiB. */
const LOG_PREALLOC_BYTES = 64 * 1024 * 1024;
/** The FileHeader at the start of every txn log file (magic, version, dbid). */
const LOG_FILE_HEADER_BYTES = 16;

/**
 * A txn log file's length on disk, which is what Java's size checks read: `FilePadding`
 * extends the file by a 64 MiB block whenever a write comes within 4 KiB of its end, so even
 * a log of a few txns is 64 MiB long.
 */
export function preallocatedLogLength(contentBytes: number): number {
  const position = LOG_FILE_HEADER_BYTES + contentBytes;
  let length = LOG_FILE_HEADER_BYTES + LOG_PREALLOC_BYTES;
  while (position + 4096 >= length) length += LOG_PREALLOC_BYTES;
  return length;
}

/** An error txn, or a multi whose error was decided at prep: it "fails" on every replay. */
export function isLoggedError(entry: TxnEntry): boolean {
  return entry.txn.kind === "ErrorTxn" || (entry.txn.kind === "MultiTxn" && entry.txn.txns.some((t) => t.txn.kind === "ErrorTxn"));
}
