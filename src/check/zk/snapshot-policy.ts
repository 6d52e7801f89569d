/**
 * zk.snapshot-policy: a server's periodic snapshots keep 3.8's policy (docs/zookeeper.md §7.7).
 *
 * ZooKeeper 3.8's SyncRequestProcessor starts a snapshot after snapCount/2 + a random roll of
 * logged txns, on one snapshot thread at a time (a second trigger while that thread is alive is
 * skipped, "Too busy to snap"); the thread writes the file and ends, failing only when a write
 * fails. The simulated server also skips a trigger when a valid snapshot of the tree's
 * lastProcessedZxid already exists (nothing applied since: rewriting that file in place could
 * leave no valid one). Three statements of that, each read from the trace alone:
 *
 * - **one writer**: a snapshot that finishes (`zk.snapshot.done`) is the server's latest one
 *   started (`zk.snapshot.start`) and not finished yet. A finish of an older one means two
 *   snapshot writers ran at once (a start that did not stop the one before).
 * - **a failure is a failed write**: a snapshot reported failed (`err`) had a write of its file
 *   refused by the disk (`disk.enospc` on that file, on that server, since its start). A
 *   snapshot reported failed without one is a completed snapshot reported failed — or one reported
 *   before its fsync finished.
 * - **a skip for an existing snapshot has one**: a trigger skipped because "a valid snapshot of
 *   this zxid exists" comes when the server holds a snapshot file (`disk.replace` of
 *   `version-2/snapshot.<zxid>`, not deleted since) of a zxid at or above the last txn the server
 *   applied (`zk.apply`) since it started, was truncated, loaded a SNAP or reloaded its disk
 *   (a role's end, `zab.recovered`). A skip without one is a
 *   server that stopped taking snapshots: its log grows without bound and a restart replays all
 *   of it.
 *
 * Not stated: how often snapshots come (that needs the run's snapCount, which the trace does not
 * carry). Soundness: every statement is judged on what the trace shows for sure — a file counted
 * as present may be torn or purged (then a skip is not judged), an applied txn only raises the
 * server's lastProcessedZxid until a truncation, a SNAP or a restart (each resets what is known).
 *
 * State: per server, the running snapshot's zxid text and file name, whether a write of it was
 * refused, the last applied zxid (text: parsed only at a skip) and its snapshot files' zxids (the
 * few that purge retains). Per event O(1) but for a skip (the server's snapshot files).
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { detailOf, guarded, optionalStringField, stringField, zxidValue } from "../event-reader.js";

/** Where a server writes its snapshot files: `version-2/snapshot.<zxid in hex>` (ZooKeeper's data dir layout). */
const SNAP_PREFIX = "version-2/snapshot.";

/** The skip reason of a trigger that found a valid snapshot of the current zxid (ZKDatabase.startSnapshot). */
export const SKIP_VALID_SNAPSHOT_EXISTS = "a valid snapshot of this zxid exists";

const KINDS = ["zk.snapshot.start", "zk.snapshot.done", "zk.snapshot.skipped", "zk.apply", "disk.enospc", "disk.replace", "disk.delete", "crash", "restart", "zab.truncate", "zab.snap.load", "zab.recovered", "zab.role.ended"] as const;
type Kind = KindsOf<typeof KINDS>;

interface ServerSnapshots {
  /** The latest snapshot started and not finished: its zxid text ("0x…") and file name. */
  running: { zxid: string; file: string; refused: boolean } | undefined;
  /** The last txn applied since the start, a truncation or a SNAP (zxid text), if any. */
  lastApplied: string | undefined;
  /** Snapshot files on the disk (created, not deleted): their zxids. */
  files: Set<bigint>;
}

export class SnapshotPolicyChecker implements Checker<Kind> {
  readonly name = "zk.snapshot-policy";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly servers = new Map<string, ServerSnapshots>();

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "zk.apply":
        this.server(e.node).lastApplied = stringField(e, "zxid");
        return;
      case "disk.replace":
      case "disk.delete":
      case "disk.enospc":
        return this.onDisk(e);
      case "crash":
      case "restart": {
        const s = this.servers.get(e.node);
        if (s !== undefined) {
          s.running = undefined;
          s.lastApplied = undefined;
        }
        return;
      }
      case "zab.truncate":
      case "zab.snap.load":
      case "zab.recovered":
      case "zab.role.ended":
        this.server(e.node).lastApplied = undefined;
        return;
      case "zk.snapshot.start": {
        const zxid = stringField(e, "zxid");
        // A start while one runs: the older one must stop (ZKDatabase.startSnapshot aborts it).
        this.server(e.node).running = { zxid, file: `${SNAP_PREFIX}${zxid.slice(2)}`, refused: false };
        return;
      }
      case "zk.snapshot.done":
        return this.onDone(e as TraceEvent<"zk.snapshot.done">);
      case "zk.snapshot.skipped":
        return this.onSkipped(e as TraceEvent<"zk.snapshot.skipped">);
    }
  }

  private onDisk(e: TraceEvent<"disk.replace" | "disk.delete" | "disk.enospc">): void {
    const file = detailOf(e);
    if (!file.startsWith(SNAP_PREFIX)) return;
    const s = this.server(e.node);
    if (e.kind === "disk.enospc") {
      if (s.running !== undefined && s.running.file === file) s.running.refused = true;
      return;
    }
    const zxid = zxidValue(e, "detail", `0x${file.slice(SNAP_PREFIX.length)}`);
    if (e.kind === "disk.replace") s.files.add(zxid);
    else s.files.delete(zxid);
  }

  private onDone(e: TraceEvent<"zk.snapshot.done">): void {
    const s = this.server(e.node);
    const zxid = stringField(e, "zxid");
    const err = optionalStringField(e, "err");
    const running = s.running;
    s.running = undefined;
    if (running === undefined || running.zxid !== zxid) {
      const latest = running === undefined ? "none was running" : `the latest started is ${running.zxid}`;
      this.log.add(e, `${e.node} finished snapshot ${zxid}, but ${latest}: two snapshot writers at once (a new snapshot must stop the one before)`);
      return;
    }
    if (err !== undefined && !running.refused) {
      this.log.add(e, `${e.node} reported snapshot ${zxid} failed (${err}), but no write of ${running.file} was refused since it started: a snapshot that did not fail reported as failed`);
    }
  }

  private onSkipped(e: TraceEvent<"zk.snapshot.skipped">): void {
    if (stringField(e, "reason") !== SKIP_VALID_SNAPSHOT_EXISTS) return;
    const s = this.server(e.node);
    if (s.lastApplied === undefined) return;
    const applied = zxidValue(e, "lastApplied", s.lastApplied);
    for (const z of s.files) if (z >= applied) return;
    this.log.add(e, `${e.node} skipped a snapshot because "${SKIP_VALID_SNAPSHOT_EXISTS}", but it applied ${s.lastApplied} and holds no snapshot file of that zxid or later: the server stopped taking snapshots`);
  }

  private server(node: string): ServerSnapshots {
    let s = this.servers.get(node);
    if (s === undefined) {
      s = { running: undefined, lastApplied: undefined, files: new Set() };
      this.servers.set(node, s);
    }
    return s;
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
