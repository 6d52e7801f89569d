/**
 * Snapshot files and the fuzzy snapshot, as ZooKeeper takes it (`SyncRequestProcessor` starts a
 * "Snapshot Thread" running `FileTxnSnapLog.save` → `DataTree.serialize`).
 *
 * A fuzzy snapshot is not taken at one instant. It is named by the tree's lastProcessedZxid when
 * it starts (and holds the session table as it was then), then walks the tree depth-first, a
 * chunk of nodes per step of its own activity, while the server goes on applying txns between
 * steps. Each node is copied as it is when the walk reaches it, with the children it has then:
 * a node created under a parent the walk has passed is missing, a node created under one it has
 * not reached is there, a node deleted before the walk reaches it is missing. So the file may
 * hold effects of txns later than its name; recovery replays the log from the name on and must
 * tolerate txns whose effect is already in the tree (see `FileTxnSnapLog.restore`).
 *
 * File layout on the simulated disk (`version-2/snapshot.<zxid>`): a header record (zxid and
 * sessions), one record per chunk of nodes, then an end record. A file without its end record
 * (a crash in the middle, or an unsynced write lost) is not a valid snapshot and recovery skips
 * it, like Java's `SnapStream.isValidSnapshot`. The file is fsynced at the end: Java leaves
 * periodic snapshots to the OS's write-back, which the simulated disk does not have.
 *
 * Determinism: steps are timers of the node's own context, the walk visits children in sorted
 * order, and nothing here draws randomness.
 */
import { isTorn, type NodeDisk, type NodeContext, type TimerHandle } from "../../world/index.js";
import { zxidHex, type SessionId, type Zxid } from "../proto/records.js";
import { snapshotNodeOf, type DataTree, type DataTreeSnapshot, type SnapshotNode } from "./data-tree.js";
import { childPath } from "../proto/path-utils.js";

export const SNAP_PREFIX = "version-2/snapshot.";

type SessionEntry = { sessionId: SessionId; timeoutMs: number };

/** The records of a snapshot file, in order: header, node chunks, end. */
export type SnapshotFileRecord =
  | { kind: "snapshot.header"; zxid: Zxid; sessions: SessionEntry[] }
  | { kind: "snapshot.nodes"; nodes: SnapshotNode[] }
  | { kind: "snapshot.end"; nodeCount: number };

/** How fast the snapshot activity serializes: `chunkNodes` nodes every `chunkIntervalUs`. */
export interface SnapshotPacing {
  chunkNodes: number;
  chunkIntervalUs: number;
  /**
   * A deliberately broken snapshot policy (never in normal runs): `done-reported-failed`, a
   * snapshot reports a failed write once its end record is written, before its fsync;
   * `never-taken`, every trigger is skipped as if a valid snapshot of the current zxid existed.
   */
  snapshotCanary?: "done-reported-failed" | "never-taken";
}

export function snapshotFileName(zxid: Zxid): string {
  return `${SNAP_PREFIX}${zxid.toString(16)}`;
}

/**
 * `DataTree.serializeNode` as a resumable pre-order walk: a node is copied when the walk reaches
 * it, and its children *then* are the ones visited later (a child gone by its turn is skipped).
 */
export class DataTreeWalk {
  private readonly pending: string[] = ["/"];

  constructor(private readonly tree: DataTree) {}

  get done(): boolean {
    return this.pending.length === 0;
  }

  /** Copies up to `maxNodes` more nodes as they are now. */
  next(maxNodes: number): SnapshotNode[] {
    const out: SnapshotNode[] = [];
    while (out.length < maxNodes && this.pending.length > 0) {
      const path = this.pending.pop()!;
      const node = this.tree.getNode(path);
      if (node === undefined) continue; // deleted after its parent was copied
      out.push(snapshotNodeOf(path, node));
      const names = node.children.toArray(); // the set's order, as Java's serializeNode walks it
      for (let i = names.length - 1; i >= 0; i--) this.pending.push(childPath(path, names[i]!));
    }
    return out;
  }
}

/** Writes the records of one snapshot file; false once a write failed (the file stays invalid). */
class SnapshotFileWriter {
  readonly name: string;
  private nodeCount = 0;
  ok = true;

  constructor(
    private readonly disk: NodeDisk,
    zxid: Zxid,
    sessions: SessionEntry[],
  ) {
    this.name = snapshotFileName(zxid);
    const header: SnapshotFileRecord = { kind: "snapshot.header", zxid, sessions };
    this.ok = disk.replace(this.name, [header], [32 + 12 * sessions.length]).ok;
  }

  chunk(nodes: SnapshotNode[]): void {
    if (!this.ok || nodes.length === 0) return;
    let size = 0;
    for (const n of nodes) size += 64 + n.path.length + (n.data?.length ?? 0) + 16 * n.acl.length;
    this.nodeCount += nodes.length;
    const rec: SnapshotFileRecord = { kind: "snapshot.nodes", nodes };
    this.ok = this.disk.append(this.name, rec, size).ok;
  }

  /** Appends the end record and fsyncs; `onDone` runs once the whole file is durable. */
  end(onDone?: () => void): number {
    if (!this.ok) return this.nodeCount;
    const rec: SnapshotFileRecord = { kind: "snapshot.end", nodeCount: this.nodeCount };
    this.ok = this.disk.append(this.name, rec, 16).ok;
    if (this.ok) this.disk.fsync(this.name, onDone);
    return this.nodeCount;
  }
}

/**
 * A consistent snapshot written at once (a learner's snapshot at NEWLEADER: nothing applies
 * meanwhile); `onDone` runs once it is durable. False when a write failed (the file stays
 * invalid and `onDone` never runs).
 */
export function writeSnapshotNow(disk: NodeDisk, tree: DataTree, onDone?: () => void): boolean {
  const snap = tree.serialize();
  const file = new SnapshotFileWriter(disk, snap.lastProcessedZxid, snap.sessions);
  file.chunk(snap.nodes);
  file.end(onDone);
  return file.ok;
}

/**
 * A fuzzy snapshot in progress: named and its sessions copied at construction, then one chunk
 * per `chunkIntervalUs` until the walk is done; `onFinished` runs when the file is durable
 * (or at once if a write failed: Java's snapshot thread logs the exception and ends).
 */
export class FuzzySnapshot {
  readonly zxid: Zxid;
  private readonly walk: DataTreeWalk;
  private readonly file: SnapshotFileWriter;
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: NodeContext,
    tree: DataTree,
    private readonly pacing: SnapshotPacing,
    private readonly onFinished: () => void,
  ) {
    this.zxid = tree.lastProcessedZxid;
    this.walk = new DataTreeWalk(tree);
    this.file = new SnapshotFileWriter(ctx.disk, this.zxid, tree.serializeSessions());
    ctx.annotate("zk.snapshot.start", { zxid: zxidHex(this.zxid) });
    this.schedule();
  }

  get fileName(): string {
    return this.file.name;
  }

  /** Stops the walk (its tree was replaced); the file stays without its end record. */
  abort(): void {
    this.stopped = true;
    this.ctx.cancelTimer(this.timer);
  }

  private schedule(): void {
    this.timer = this.ctx.setTimer(this.pacing.chunkIntervalUs, () => this.step(), "snapshot-chunk");
  }

  private step(): void {
    if (this.stopped) return;
    this.file.chunk(this.walk.next(this.pacing.chunkNodes));
    if (!this.file.ok) return this.finish("write failed");
    if (!this.walk.done) return this.schedule();
    const nodes = this.file.end(() => this.finish(undefined, nodes));
    if (!this.file.ok) this.finish("write failed");
    else if (this.pacing.snapshotCanary === "done-reported-failed") this.finish("write failed");
  }

  private finish(err: string | undefined, nodes?: number): void {
    if (this.stopped) return;
    this.stopped = true;
    this.ctx.annotate("zk.snapshot.done", { zxid: zxidHex(this.zxid), nodes, err });
    this.onFinished();
  }
}

/** The tree image of a valid snapshot file, or undefined (torn, unfinished, not a snapshot). */
export function readSnapshotFile(records: readonly unknown[]): DataTreeSnapshot | undefined {
  const header = records[0] as SnapshotFileRecord | undefined;
  const end = records[records.length - 1] as SnapshotFileRecord | undefined;
  if (header?.kind !== "snapshot.header" || end?.kind !== "snapshot.end") return undefined;
  const nodes: SnapshotNode[] = [];
  for (const rec of records.slice(1, -1)) {
    if (isTorn(rec) || (rec as SnapshotFileRecord).kind !== "snapshot.nodes") return undefined;
    for (const n of (rec as Extract<SnapshotFileRecord, { kind: "snapshot.nodes" }>).nodes) nodes.push(n);
  }
  if (nodes.length !== end.nodeCount) return undefined;
  return { lastProcessedZxid: header.zxid, nodes, sessions: header.sessions };
}
