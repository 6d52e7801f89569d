/**
 * `ZKDatabase` and `FileTxnSnapLog`: the in-memory DataTree plus its durable form on the
 * node's simulated disk — a transaction log (`version-2/log.<zxid>`) and snapshots
 * (`version-2/snapshot.<zxid>`), as ZooKeeper lays them out.
 *
 * Recovery (`loadDataBase`): the newest intact snapshot, then every logged txn with a larger
 * zxid, in zxid order, stopping at the first torn record (a crash in the middle of a write —
 * ZooKeeper's log reader stops at a bad checksum the same way). A txn is durable once the log
 * fsync covering it completes; the server acknowledges a write only after that.
 *
 * Snapshots here are taken synchronously, so they are consistent (the degenerate case of
 * ZooKeeper's fuzzy snapshot); replaying txns over one is idempotent either way.
 */
import type { NodeDisk, DiskResult } from "../../sim/disk.js";
import { isTorn } from "../../sim/disk.js";
import type { TxnEntry } from "../proto/txn.js";
import type { Zxid } from "../proto/records.js";
import { txnEntrySize } from "../proto/codec.js";
import { DataTree, type DataTreeOptions, type DataTreeSnapshot, type ProcessTxnResult } from "./data-tree.js";

export const LOG_PREFIX = "version-2/log.";
export const SNAP_PREFIX = "version-2/snapshot.";
/** Per-record overhead of the txn log: checksum (8), length (4), end-of-record byte (1). */
const LOG_RECORD_OVERHEAD_BYTES = 13;

interface SnapshotRecord {
  kind: "snapshot";
  zxid: Zxid;
  tree: DataTreeSnapshot;
}

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
    return this.disk.append(this.currentLog, entry, txnEntrySize(entry) + LOG_RECORD_OVERHEAD_BYTES);
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

  /** Writes a snapshot of `tree` named by its last processed zxid, then rolls the log. */
  save(tree: DataTree, onDone?: () => void): void {
    const zxid = tree.lastProcessedZxid;
    const record: SnapshotRecord = { kind: "snapshot", zxid, tree: tree.serialize() };
    const size = tree.approximateDataSize() + 64 * tree.nodeCount() + 64;
    const name = fileName(SNAP_PREFIX, zxid);
    this.disk.replace(name, [record], [size]);
    this.disk.fsync(name, onDone);
    this.rollLog();
  }

  /** Restores the newest intact snapshot and replays the logs after it. */
  restore(opts: DataTreeOptions): { tree: DataTree; replayed: TxnEntry[] } {
    let tree = new DataTree(opts);
    for (const snap of this.files(SNAP_PREFIX).reverse()) {
      const rec = this.disk.read(snap.name)[0];
      if (rec === undefined || isTorn(rec)) continue;
      tree = DataTree.deserialize((rec as SnapshotRecord).tree, opts);
      tree.lastProcessedZxid = (rec as SnapshotRecord).zxid;
      break;
    }
    const replayed: TxnEntry[] = [];
    for (const entry of this.loggedTxns()) {
      if (entry.header.zxid <= tree.lastProcessedZxid) continue;
      tree.processTxn(entry.header, entry.txn);
      replayed.push(entry);
    }
    return { tree, replayed };
  }

  /** Every intact logged txn in log order (stops within a log at its first torn record). */
  loggedTxns(): TxnEntry[] {
    const out: TxnEntry[] = [];
    for (const log of this.files(LOG_PREFIX)) {
      for (const rec of this.disk.read(log.name)) {
        if (isTorn(rec)) break;
        out.push(rec as TxnEntry);
      }
    }
    return out;
  }

  /** The zxid of the last intact logged txn (0 when none). */
  lastLoggedZxid(): Zxid {
    const txns = this.loggedTxns();
    return txns.length === 0 ? 0n : txns[txns.length - 1]!.header.zxid;
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

/** How many recent committed txns the leader keeps for DIFF sync (`zookeeper.commitLogCount`). */
export const COMMIT_LOG_COUNT = 500;

export class ZKDatabase {
  dataTree: DataTree;
  readonly snapLog: FileTxnSnapLog;
  private txnsSinceSnapshot = 0;
  /** The last COMMIT_LOG_COUNT applied txns, for DIFF/TRUNC sync (`committedLog`). */
  committedLog: TxnEntry[] = [];

  constructor(
    disk: NodeDisk,
    private readonly treeOptions: DataTreeOptions,
    /** Take a snapshot after this many logged txns (`snapCount`). */
    private readonly snapCount: number,
  ) {
    this.snapLog = new FileTxnSnapLog(disk);
    this.dataTree = new DataTree(treeOptions);
  }

  /** Rebuilds the tree from disk; returns the number of txns replayed from the log. */
  loadDataBase(): number {
    const { tree, replayed } = this.snapLog.restore(this.treeOptions);
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

  /** Logs a txn (not yet durable: see `commit`). */
  append(entry: TxnEntry): DiskResult {
    const r = this.snapLog.append(entry);
    if (r.ok) this.txnsSinceSnapshot++;
    return r;
  }

  commit(onDone: () => void): void {
    this.snapLog.commit(onDone);
  }

  /** Runs `onDone` once every txn appended so far is durable (see `FileTxnSnapLog.flush`). */
  flush(onDone: () => void): void {
    this.snapLog.flush(onDone);
  }

  processTxn(entry: TxnEntry): ProcessTxnResult {
    const result = this.dataTree.processTxn(entry.header, entry.txn);
    this.committedLog.push(entry);
    if (this.committedLog.length > COMMIT_LOG_COUNT) this.committedLog.shift();
    return result;
  }

  /** Called after applying: snapshot when the log has grown past snapCount. */
  maybeSnapshot(): void {
    if (this.txnsSinceSnapshot < this.snapCount) return;
    this.txnsSinceSnapshot = 0;
    this.snapLog.save(this.dataTree);
  }
}
