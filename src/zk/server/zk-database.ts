/**
 * `ZKDatabase` and `FileTxnSnapLog`: the in-memory DataTree plus its durable form on the
 * node's simulated disk — a transaction log (`version-2/log.<zxid>`) and snapshots
 * (`version-2/snapshot.<zxid>`), as ZooKeeper lays them out.
 *
 * Recovery (`loadDataBase`): the newest valid snapshot, then every logged txn with a larger
 * zxid, in zxid order, stopping at the first torn record (a crash in the middle of a write —
 * ZooKeeper's log reader stops at a bad checksum the same way). A txn is durable once the log
 * fsync covering it completes; the server acknowledges a write only after that.
 *
 * Snapshots are fuzzy (fuzzy-snapshot.ts): as `SyncRequestProcessor` does, after a randomised
 * number of logged txns (more than snapCount/2 + a roll in [0, snapCount/2)) the log rolls and a
 * snapshot starts in the background while txns go on being applied — at most one at a time
 * ("Too busy to snap, skipping"). Its file is named by the zxid at its start but may hold
 * effects of later txns, so the replay tolerates txns already applied: their NODEEXISTS and
 * NONODE results are ignored, like `FileTxnSnapLog.processTransaction`, and the DataTree's
 * cversion/pzxid guards and the NODEEXISTS fixup (ZOOKEEPER-1046, -3249, -3145) keep the
 * parents' Stat right.
 */
import type { NodeDisk, DiskResult } from "../../sim/disk.js";
import { isTorn } from "../../sim/disk.js";
import type { NodeContext } from "../../sim/node-context.js";
import type { Rng } from "../../sim/rng.js";
import type { TxnEntry } from "../proto/txn.js";
import type { Zxid } from "../proto/records.js";
import { Code } from "../proto/error-code.js";
import { txnEntrySize } from "../proto/codec.js";
import { DataTree, type DataTreeOptions, type DataTreeSnapshot, type ProcessTxnResult } from "./data-tree.js";
import { FuzzySnapshot, SNAP_PREFIX, readSnapshotFile, snapshotFileName, writeSnapshotNow, type SnapshotPacing } from "./fuzzy-snapshot.js";
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
  /** Log files appended to since the last commit (a roll can leave txns in the previous one). */
  private readonly dirtyLogs = new Set<string>();

  constructor(private readonly disk: NodeDisk) {}

  /** Log and snapshot files present, each sorted by zxid. */
  private files(prefix: string): { name: string; zxid: Zxid }[] {
    return this.disk
      .list()
      .filter((f) => f.startsWith(prefix))
      .map((name) => ({ name, zxid: zxidOfFile(name, prefix) }))
      .sort((a, b) => (a.zxid < b.zxid ? -1 : a.zxid > b.zxid ? 1 : 0));
  }

  /** Appends a txn to the current log (a new log file starts at its zxid). */
  append(entry: TxnEntry): DiskResult {
    if (this.currentLog === undefined) this.currentLog = fileName(LOG_PREFIX, entry.header.zxid);
    this.dirtyLogs.add(this.currentLog);
    return this.disk.append(this.currentLog, entry, loggedSizes.get(entry));
  }

  /** fsyncs every log written since the last commit; `onDone` runs when all of it is durable. */
  commit(onDone: () => void): void {
    const logs = [...this.dirtyLogs];
    this.dirtyLogs.clear();
    if (logs.length === 0) {
      onDone();
      return;
    }
    this.commitsInFlight++;
    let pending = logs.length;
    for (const log of logs) {
      this.disk.fsync(log, () => {
        if (--pending > 0) return;
        onDone();
        if (--this.commitsInFlight === 0) for (const fn of this.whenIdle.splice(0)) fn();
      });
    }
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

  /** Writes a consistent snapshot of `tree` at once, named by its last processed zxid, then rolls the log. */
  save(tree: DataTree, onDone?: () => void): void {
    writeSnapshotNow(this.disk, tree, onDone);
    this.rollLog();
  }

  hasValidSnapshot(zxid: Zxid): boolean {
    return readSnapshotFile(this.disk.read(snapshotFileName(zxid))) !== undefined;
  }

  /**
   * Restores the newest valid snapshot and replays the logs after its zxid. A fuzzy snapshot may
   * already hold some of those txns' effects: their failures (NODEEXISTS, NONODE) are ignored.
   */
  restore(opts: DataTreeOptions, mode: ReplayMode = "tolerant"): { tree: DataTree; replayed: TxnEntry[] } {
    const newest = this.newestValidSnapshot();
    const tree = newest === undefined ? new DataTree(opts) : DataTree.deserialize(newest.image, opts);
    const replayed: TxnEntry[] = [];
    for (const entry of this.loggedTxns()) {
      if (entry.header.zxid <= tree.lastProcessedZxid) continue;
      const r = tree.processTxn(entry.header, entry.txn);
      if (mode === "strict" && (r.err === Code.NODEEXISTS || r.err === Code.NONODE) && !isLoggedError(entry)) break;
      replayed.push(entry);
    }
    return { tree, replayed };
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

  /** Removes every logged txn with a zxid above `zxid` (ZAB's TRUNC). */
  truncateLog(zxid: Zxid): void {
    for (const log of this.files(LOG_PREFIX)) {
      const recs = this.disk.read(log.name);
      const keep = [];
      const sizes = [];
      for (const rec of recs) {
        if (isTorn(rec) || (rec as TxnEntry).header.zxid > zxid) break;
        keep.push(rec);
        sizes.push(txnEntrySize(rec as TxnEntry) + LOG_RECORD_OVERHEAD_BYTES);
      }
      if (keep.length === recs.length) continue;
      if (keep.length === 0) this.disk.remove(log.name);
      else this.disk.replace(log.name, keep, sizes);
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
function isLoggedError(entry: TxnEntry): boolean {
  return entry.txn.kind === "ErrorTxn" || (entry.txn.kind === "MultiTxn" && entry.txn.txns.some((t) => t.txn.kind === "ErrorTxn"));
}

/** How many recent committed txns the leader keeps for DIFF sync (`zookeeper.commitLogCount`). */
export const COMMIT_LOG_COUNT = 500;

/** When and how fast snapshots are taken. */
export interface SnapshotConfig extends SnapshotPacing {
  /** `snapCount`: a snapshot starts after snapCount/2 + [0, snapCount/2) logged txns. */
  snapCount: number;
  /** A canary may replay strictly; ZooKeeper's replay is tolerant. */
  replay?: ReplayMode;
  /**
   * `zookeeper.snapshotSizeFactor`: a learner older than the committed log is caught up from
   * the txn log when that is at most this fraction of the newest snapshot's size; negative
   * turns txn-log sync off. Default 0.33.
   */
  snapshotSizeFactor?: number;
  /**
   * `autopurge.snapRetainCount`: after each snapshot, keep this many snapshots and the logs they
   * need (`FileTxnSnapLog.purge`). 0 (the default, as `autopurge.purgeInterval=0`): keep all.
   */
  purgeSnapRetainCount?: number;
}

export const DEFAULT_SNAPSHOT_SIZE_FACTOR = 0.33;

export class ZKDatabase {
  dataTree: DataTree;
  readonly snapLog: FileTxnSnapLog;
  private txnsSinceSnapshot = 0;
  /** Logged txns that start the next snapshot: snapCount/2 + `SyncRequestProcessor.randRoll`. */
  private snapThreshold: number;
  private readonly snapRng: Rng;
  private readonly snapshotSizeFactor: number;
  private snapshotInProgress: FuzzySnapshot | undefined;
  /** The last COMMIT_LOG_COUNT applied txns, for DIFF/TRUNC sync (`committedLog`). */
  committedLog: TxnEntry[] = [];

  constructor(
    private readonly ctx: NodeContext,
    private readonly treeOptions: DataTreeOptions,
    private readonly snapshots: SnapshotConfig,
  ) {
    this.snapLog = new FileTxnSnapLog(ctx.disk);
    this.dataTree = new DataTree(treeOptions);
    this.snapRng = ctx.rng.fork("snapshot");
    this.snapshotSizeFactor = snapshots.snapshotSizeFactor ?? DEFAULT_SNAPSHOT_SIZE_FACTOR;
    this.snapThreshold = this.rollSnapshotThreshold();
  }

  /** Rebuilds the tree from disk; returns the number of txns replayed from the log. */
  loadDataBase(): number {
    this.abortSnapshot();
    const { tree, replayed } = this.snapLog.restore(this.treeOptions, this.snapshots.replay);
    this.dataTree = tree;
    this.txnsSinceSnapshot = replayed.length;
    // As Java's commitProposalPlaybackListener: only txns replayed on top of the snapshot. Log
    // entries the snapshot already covers may sit behind a gap (a SNAP sync leaves the old log
    // in place), so a DIFF or TRUNC computed from them could skip committed txns.
    this.committedLog = replayed.slice(-COMMIT_LOG_COUNT);
    return replayed.length;
  }

  /** Replaces the tree (SNAP sync): the committed log restarts at the snapshot. */
  setTree(tree: DataTree): void {
    this.abortSnapshot();
    this.dataTree = tree;
    this.committedLog = [];
  }

  get minCommittedLog(): Zxid {
    return this.committedLog.length > 0 ? this.committedLog[0]!.header.zxid : this.lastProcessedZxid;
  }

  get maxCommittedLog(): Zxid {
    return this.committedLog.length > 0 ? this.committedLog[this.committedLog.length - 1]!.header.zxid : this.lastProcessedZxid;
  }

  get lastProcessedZxid(): Zxid {
    return this.dataTree.lastProcessedZxid;
  }

  /**
   * Logs a txn (not yet durable: see `commit`). Then, as SyncRequestProcessor after each append:
   * once enough txns are logged, roll the log and start a fuzzy snapshot.
   */
  append(entry: TxnEntry): DiskResult {
    const r = this.snapLog.append(entry);
    if (!r.ok) return r;
    this.txnsSinceSnapshot++;
    if (this.txnsSinceSnapshot > this.snapThreshold) {
      this.snapThreshold = this.rollSnapshotThreshold();
      this.txnsSinceSnapshot = 0;
      this.snapLog.rollLog();
      if (this.snapshotInProgress === undefined) this.startSnapshot();
      else this.ctx.annotate("zk.snapshot.skipped", { reason: "too busy to snap" });
    }
    return r;
  }

  /**
   * `ZooKeeperServer.takeSnapshot` in its own activity: a fuzzy snapshot of the current tree.
   * Not when a valid snapshot of the same name exists (nothing applied since): rewriting that
   * file in place would leave no valid one behind if this walk were stopped half-way.
   */
  startSnapshot(): void {
    this.abortSnapshot();
    if (this.snapLog.hasValidSnapshot(this.dataTree.lastProcessedZxid)) {
      this.ctx.annotate("zk.snapshot.skipped", { reason: "a valid snapshot of this zxid exists" });
      return;
    }
    const snap = new FuzzySnapshot(this.ctx, this.dataTree, this.snapshots, () => {
      if (this.snapshotInProgress === snap) this.snapshotInProgress = undefined;
      // ZooKeeper's DatadirCleanupManager purges on a timer of hours; here the purge runs when
      // a snapshot ends, which is when there is something new to purge.
      const retain = this.snapshots.purgeSnapRetainCount ?? 0;
      if (retain > 0) this.snapLog.purge(retain);
    });
    this.snapshotInProgress = snap;
  }

  /** The fuzzy snapshot being written, if any (for tests and the UI). */
  get snapshotRunning(): FuzzySnapshot | undefined {
    return this.snapshotInProgress;
  }

  /** A consistent snapshot written at once (a learner's at NEWLEADER): replaces a fuzzy one. */
  takeSnapshotNow(onDone?: () => void): void {
    this.abortSnapshot();
    this.snapLog.save(this.dataTree, onDone);
  }

  /** Removes logged txns above `zxid` (TRUNC); a snapshot in progress of the old tree stops. */
  truncateLog(zxid: Zxid): void {
    this.abortSnapshot();
    this.snapLog.truncateLog(zxid);
  }

  private abortSnapshot(): void {
    this.snapshotInProgress?.abort();
    this.snapshotInProgress = undefined;
  }

  /** snapCount/2 + `randRoll = nextInt(snapCount / 2)`. */
  private rollSnapshotThreshold(): number {
    const half = Math.floor(this.snapshots.snapCount / 2);
    return half + (half <= 1 ? 0 : this.snapRng.int(0, half - 1));
  }

  commit(onDone: () => void): void {
    this.snapLog.commit(onDone);
  }

  /** Runs `onDone` once every txn appended so far is durable (see `FileTxnSnapLog.flush`). */
  flush(onDone: () => void): void {
    this.snapLog.flush(onDone);
  }

  /** `isTxnLogSyncEnabled`: snapshotSizeFactor ≥ 0. */
  get txnLogSyncEnabled(): boolean {
    return this.snapshotSizeFactor >= 0;
  }

  /** `calculateTxnLogSizeLimit`: the newest snapshot's size times the factor (0, unlimited, without one). */
  txnLogSizeLimitBytes(): number {
    return Math.floor(this.snapLog.newestSnapshotBytes() * this.snapshotSizeFactor);
  }

  /**
   * `getProposalsFromTxnLog(startZxid, calculateTxnLogSizeLimit())` for the sync of a learner
   * older than the committed log: the logged txns from the file holding `startZxid` on, or none
   * when txn-log sync is off, the log does not reach back to `startZxid` ("unable to find
   * proposals from txnlog"), or the files after the first are over the size limit.
   */
  proposalsFromTxnLog(startZxid: Zxid): TxnEntry[] {
    if (!this.txnLogSyncEnabled) return [];
    const sizeLimit = this.txnLogSizeLimitBytes();
    const { txns, storageBytes } = this.snapLog.readTxnLog(startZxid);
    if (txns.length > 0 && txns[0]!.header.zxid > startZxid) return [];
    if (sizeLimit > 0 && storageBytes > sizeLimit) return [];
    return txns;
  }

  processTxn(entry: TxnEntry): ProcessTxnResult {
    const result = this.dataTree.processTxn(entry.header, entry.txn);
    this.committedLog.push(entry);
    if (this.committedLog.length > COMMIT_LOG_COUNT) this.committedLog.shift();
    return result;
  }
}
