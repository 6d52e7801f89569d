/**
 * `ZKDatabase` and `FileTxnSnapLog` (file-txn-snap-log.ts): the in-memory DataTree plus its
 * durable form on the node's simulated disk — a transaction log (`version-2/log.<zxid>`) and
 * snapshots (`version-2/snapshot.<zxid>`), as ZooKeeper lays them out.
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
import type { DiskResult, NodeContext, RandomStream } from "../../world/index.js";
import type { TxnEntry } from "../proto/txn.js";
import type { Zxid } from "../proto/records.js";
import { DataTree, type DataTreeOptions, type ProcessTxnResult } from "./data-tree.js";
import { FuzzySnapshot, type SnapshotPacing } from "./fuzzy-snapshot.js";
import { FileTxnSnapLog, type ReplayMode } from "./file-txn-snap-log.js";


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
  private readonly snapRng: RandomStream;
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
    this.reload();
    return this.txnsSinceSnapshot;
  }

  /** `loadDataBase`'s work; returns the restored snapshot's zxid. */
  private reload(): Zxid {
    this.abortSnapshot();
    const { tree, replayed, snapshotZxid } = this.snapLog.restore(this.treeOptions, this.snapshots.replay);
    this.dataTree = tree;
    this.txnsSinceSnapshot = replayed.length;
    // As Java's commitProposalPlaybackListener: only txns replayed on top of the snapshot. Log
    // entries the snapshot already covers may sit behind a gap (a SNAP sync leaves the old log
    // in place), so a DIFF or TRUNC computed from them could skip committed txns.
    this.committedLog = replayed.slice(-COMMIT_LOG_COUNT);
    return snapshotZxid;
  }

  /**
   * The tree when a role ends, the fixed 3.8 way: reloaded from disk (the same tree as Java's
   * `fastForwardDataBase` replaying the log onto the one in memory, which is a prefix of the
   * log there), with the committed log Java keeps — the in-memory one, to which the fast-forward
   * only appends the txns it replays. A reload alone would keep only the txns above the newest
   * snapshot, and the leader takes one each time it starts leading (`Leader.lead`), so a
   * re-elected leader would forget the history it can DIFF from. Kept entries the disk does not
   * reach are dropped, and all of them when the snapshot covers txns they do not (a gap).
   */
  reloadAfterRole(): void {
    const kept = this.committedLog;
    const snapshotZxid = this.reload();
    const older = kept.filter((e) => e.header.zxid <= this.lastProcessedZxid);
    const tail = older.length > 0 ? older[older.length - 1]!.header.zxid : undefined;
    if (tail === undefined || tail < snapshotZxid) return;
    this.committedLog = [...older, ...this.committedLog.filter((e) => e.header.zxid > tail)].slice(-COMMIT_LOG_COUNT);
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
    if (this.snapshots.snapshotCanary === "never-taken") return this.ctx.annotate("zk.snapshot.skipped", { reason: "a valid snapshot of this zxid exists" });
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

  /**
   * A consistent snapshot written at once (a learner's at NEWLEADER): replaces a fuzzy one.
   * `onDone` runs once it is durable; false when the write failed (then it never runs).
   */
  takeSnapshotNow(onDone?: () => void): boolean {
    this.abortSnapshot();
    return this.snapLog.save(this.dataTree, onDone);
  }

  /** Removes logged txns above `zxid` (TRUNC); a snapshot in progress of the old tree stops. */
  truncateLog(zxid: Zxid, keepSnapshots = false): void {
    this.abortSnapshot();
    this.snapLog.truncateLog(zxid, keepSnapshots);
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

  /** fsyncs the txn log (see `FileTxnSnapLog.commit`: `onLogDurable` as each log file is durable). */
  commit(onDone: () => void, onLogDurable?: (lastZxid: Zxid) => void): void {
    this.snapLog.commit(onDone, onLogDurable);
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
