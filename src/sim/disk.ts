/**
 * A node's disk: named files of records, each with a byte size, that survive crashes.
 *
 * Model: every mutation (append a record, replace the whole file) is an operation with a
 * sequence number. `fsync(file)` covers the operations issued before it and completes after
 * the fsync latency (fsyncs complete in issue order: the disk is one queue); only then are
 * those operations durable, and an explicit "disk.fsync.done" event is traced. A crash
 * reverts every file to its durable content: exactly the bytes not yet fsynced are lost.
 * Optionally the first unsynced append survives torn (a prefix of it, unreadable as a record),
 * the way a partial sector write looks to a log reader.
 *
 * Faults: slow fsync (a larger latency) and a full disk (writes fail with a typed ENOSPC
 * result — never an exception).
 */
import { UserInputError } from "./errors.js";
import type { Rng } from "./rng.js";
import type { SimEvent, Simulator } from "./simulator.js";
import type { NodeContext } from "./node-context.js";
import type * as world from "../world/index.js";
import { TornRecord, type DiskResult } from "../world/disk.js";

export { TornRecord, isTorn, type DiskResult } from "../world/disk.js";

export interface DiskConfig {
  fsyncLatencyUs: number;
  capacityBytes: number;
  /** Probability that, at a crash, the first unsynced append survives as a torn record. */
  tearProbability: number;
}

export const DEFAULT_DISK: DiskConfig = {
  fsyncLatencyUs: 2_000,
  capacityBytes: 1 << 30,
  tearProbability: 0,
};

type Op =
  | { seq: number; kind: "append"; record: unknown; sizeBytes: number }
  | { seq: number; kind: "replace"; records: unknown[]; sizes: number[] }
  | { seq: number; kind: "delete" };

class DiskFile {
  records: unknown[] = [];
  sizes: number[] = [];
  bytes = 0;
  durableRecords: unknown[] = [];
  durableSizes: number[] = [];
  durableBytes = 0;
  pending: Op[] = [];

  constructor(readonly name: string) {}
}

const OK: DiskResult = { ok: true };
const FULL: DiskResult = { ok: false, err: "ENOSPC" };

export class Disk {
  readonly config: DiskConfig;
  private readonly files = new Map<string, DiskFile>();
  private opSeq = 0;
  private lastFsyncDoneUs = 0;
  /** Crashes so far: an fsync issued before the latest one never completes. */
  private crashes = 0;
  private full = false;
  /** Every file's `bytes` summed, kept as they change (`setBytes`): an append checks the capacity against it. */
  private used = 0;

  constructor(
    private readonly sim: Simulator,
    readonly nodeId: string,
    private readonly rng: Rng,
    config: Partial<DiskConfig>,
  ) {
    this.config = { ...DEFAULT_DISK, ...config };
    validateDiskConfig(this.config);
    this.baseFsyncLatencyUs = this.config.fsyncLatencyUs;
  }

  private readonly baseFsyncLatencyUs: number;

  /** Clears disk faults: not full, the configured fsync latency again. */
  restore(): void {
    this.setFull(false);
    this.setFsyncLatency(this.baseFsyncLatencyUs);
  }

  /** A disk fault is in force (slow fsync or full). */
  get faulty(): boolean {
    return this.full || this.config.fsyncLatencyUs !== this.baseFsyncLatencyUs;
  }

  viewFor(ctx: NodeContext): NodeDisk {
    return new NodeDisk(this, ctx);
  }

  /** Bytes currently on the disk (page cache view, synced or not). */
  get usedBytes(): number {
    return this.used;
  }

  /** Sets a file's page-cache size, keeping `used` the sum of them all. */
  private setBytes(f: DiskFile, bytes: number): void {
    this.used += bytes - f.bytes;
    f.bytes = bytes;
  }

  list(): string[] {
    return [...this.files.keys()].filter((name) => this.files.get(name)!.records.length > 0 || this.files.get(name)!.pending.length > 0);
  }

  read(name: string): readonly unknown[] {
    return this.files.get(name)?.records ?? [];
  }

  exists(name: string): boolean {
    const f = this.files.get(name);
    return f !== undefined && (f.records.length > 0 || f.pending.some((op) => op.kind !== "delete"));
  }

  durableRecords(name: string): readonly unknown[] {
    return this.files.get(name)?.durableRecords ?? [];
  }

  /** The file's length in bytes, as the page cache sees it (0 when absent). */
  sizeOf(name: string): number {
    return this.files.get(name)?.bytes ?? 0;
  }

  /**
   * Appends a record. `label`: what the writer calls the record (a txn's zxid), traced as the
   * event's `record` field so that a checker can tell which append a later fsync covered.
   */
  append(name: string, record: unknown, sizeBytes: number, label?: string): DiskResult {
    if (this.full || this.usedBytes + sizeBytes > this.config.capacityBytes) return this.refuse(name, sizeBytes);
    const f = this.file(name);
    f.records.push(record);
    f.sizes.push(sizeBytes);
    this.setBytes(f, f.bytes + sizeBytes);
    f.pending.push({ seq: ++this.opSeq, kind: "append", record, sizeBytes });
    this.sim.trace.record(this.sim.nowUs, "disk.append", this.nodeId, undefined, sizeBytes, name, label === undefined ? undefined : { record: label });
    return OK;
  }

  /** Replaces the whole file (write-temp-then-rename): durable only after an fsync. */
  replace(name: string, records: unknown[], sizes: number[]): DiskResult {
    const f = this.file(name);
    const newBytes = sum(sizes);
    if (this.full || this.usedBytes - f.bytes + newBytes > this.config.capacityBytes) return this.refuse(name, newBytes);
    f.records = records.slice();
    f.sizes = sizes.slice();
    this.setBytes(f, newBytes);
    f.pending.push({ seq: ++this.opSeq, kind: "replace", records: f.records.slice(), sizes: f.sizes.slice() });
    this.sim.trace.record(this.sim.nowUs, "disk.replace", this.nodeId, undefined, newBytes, name);
    return OK;
  }

  /**
   * Cuts the file to its first `keep` records (`RandomAccessFile.setLength`, an O_TRUNC open):
   * shrinking a file in place needs no free space, so a full disk never refuses it. Durable
   * after an fsync, as a replace is (and traced as one: the file's content replaced by its prefix).
   */
  truncate(name: string, keep: number): void {
    const f = this.files.get(name);
    if (f === undefined || keep >= f.records.length) return;
    f.records = f.records.slice(0, keep);
    f.sizes = f.sizes.slice(0, keep);
    this.setBytes(f, sum(f.sizes));
    f.pending.push({ seq: ++this.opSeq, kind: "replace", records: f.records.slice(), sizes: f.sizes.slice() });
    this.sim.trace.record(this.sim.nowUs, "disk.replace", this.nodeId, undefined, f.bytes, name);
  }

  remove(name: string): void {
    const f = this.files.get(name);
    if (f === undefined) return;
    f.records = [];
    f.sizes = [];
    this.setBytes(f, 0);
    f.pending.push({ seq: ++this.opSeq, kind: "delete" });
    this.sim.trace.record(this.sim.nowUs, "disk.delete", this.nodeId, undefined, undefined, name);
  }

  /** Crashes of this disk so far. */
  get crashCount(): number {
    return this.crashes;
  }

  /** How many of `name`'s operations not yet durable an fsync issued at `mark` covers. */
  opsCoveredBy(name: string, mark: number): number {
    return this.files.get(name)?.pending.filter((op) => op.seq <= mark).length ?? 0;
  }

  /**
   * Every file as plain data, by name: its durable records, and the operations not yet
   * fsynced in order (what a crash now would lose). The model checker hashes a disk by it.
   */
  inspect(): { name: string; durable: readonly unknown[]; pending: readonly unknown[] }[] {
    return [...this.files.values()]
      .filter((f) => f.durableRecords.length > 0 || f.pending.length > 0)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((f) => ({ name: f.name, durable: f.durableRecords, pending: f.pending.map((op) => (op.kind === "append" ? { append: op.record } : op.kind === "replace" ? { replace: op.records } : { delete: true })) }));
  }

  /** When the fsyncs issued so far will all have completed (µs; the disk is one queue, latencies fixed at issue). */
  get fsyncQueueDrainsAtUs(): number {
    return this.lastFsyncDoneUs;
  }

  /** Makes everything written to `name` so far durable after the fsync latency, then calls back. */
  fsync(name: string, onDone: (() => void) | undefined, ctx: NodeContext | undefined): void {
    const mark = this.opSeq;
    const now = this.sim.nowUs;
    const doneAt = Math.max(now, this.lastFsyncDoneUs) + this.config.fsyncLatencyUs;
    this.lastFsyncDoneUs = doneAt;
    this.sim.trace.record(now, "disk.fsync", this.nodeId, undefined, mark, name);
    this.sim.schedule(doneAt, fsyncDone, { disk: this, name, mark, onDone, ctx, crashes: this.crashes });
  }

  /** @internal */
  completeFsync(name: string, mark: number, onDone: (() => void) | undefined, ctx: NodeContext | undefined, crashes: number): void {
    if (crashes !== this.crashes) return; // queued before a crash: it died with the queue
    const f = this.files.get(name);
    let bytes = 0;
    if (f !== undefined) {
      while (f.pending.length > 0 && f.pending[0]!.seq <= mark) {
        const op = f.pending.shift()!;
        bytes += applyDurable(f, op);
      }
    }
    this.sim.trace.record(this.sim.nowUs, "disk.fsync.done", this.nodeId, undefined, mark, name, { bytes });
    if (onDone !== undefined && ctx !== undefined && ctx.alive) {
      this.sim.scheduleOnNode(ctx.node, this.sim.nowUs, runCallback, onDone);
    }
  }

  /**
   * A crash: unsynced operations are lost (the first unsynced append may survive torn), and so
   * is the queue of fsyncs in flight — they complete never, and the next incarnation's first
   * fsync does not wait behind them.
   */
  onCrash(): void {
    this.crashes++;
    this.lastFsyncDoneUs = this.sim.nowUs;
    for (const f of this.files.values()) {
      if (f.pending.length === 0) continue;
      const lostOps = f.pending.length;
      let lostBytes = sum(f.pending.map(opBytes));
      let tornBytes = 0;
      const first = f.pending[0]!;
      if (first.kind === "append" && first.sizeBytes > 1 && this.rng.chance(this.config.tearProbability)) {
        tornBytes = 1 + Math.floor(this.rng.next() * (first.sizeBytes - 1));
        f.durableRecords.push(new TornRecord(tornBytes, first.sizeBytes));
        f.durableSizes.push(tornBytes);
        f.durableBytes += tornBytes;
        lostBytes -= tornBytes;
      }
      f.pending = [];
      f.records = f.durableRecords.slice();
      f.sizes = f.durableSizes.slice();
      this.setBytes(f, f.durableBytes);
      this.sim.trace.record(this.sim.nowUs, "disk.lost", this.nodeId, undefined, lostBytes, f.name, { lostOps, tornBytes });
    }
  }

  setFsyncLatency(latencyUs: number): void {
    if (!(latencyUs >= 0) || !Number.isFinite(latencyUs)) throw new UserInputError(`fsync latency must be ≥ 0, got ${latencyUs}`);
    this.config.fsyncLatencyUs = Math.round(latencyUs);
    this.sim.trace.record(this.sim.nowUs, "disk.fault", this.nodeId, undefined, latencyUs, "fsync-latency");
  }

  setFull(full: boolean): void {
    this.full = full;
    this.sim.trace.record(this.sim.nowUs, "disk.fault", this.nodeId, undefined, full ? 1 : 0, "full");
  }

  private refuse(name: string, sizeBytes: number): DiskResult {
    this.sim.trace.record(this.sim.nowUs, "disk.enospc", this.nodeId, undefined, sizeBytes, name);
    return FULL;
  }

  private file(name: string): DiskFile {
    let f = this.files.get(name);
    if (f === undefined) {
      f = new DiskFile(name);
      this.files.set(name, f);
    }
    return f;
  }
}

/** A process's handle on its node's disk: calls from a crashed incarnation do nothing. */
export class NodeDisk implements world.NodeDisk {
  constructor(
    private readonly disk: Disk,
    private readonly ctx: NodeContext,
  ) {}

  append(name: string, record: unknown, sizeBytes: number, label?: string): DiskResult {
    if (!this.ctx.alive) return OK;
    return this.disk.append(name, record, sizeBytes, label);
  }
  replace(name: string, records: unknown[], sizes: number[]): DiskResult {
    if (!this.ctx.alive) return OK;
    return this.disk.replace(name, records, sizes);
  }
  truncate(name: string, keep: number): void {
    if (this.ctx.alive) this.disk.truncate(name, keep);
  }
  remove(name: string): void {
    if (this.ctx.alive) this.disk.remove(name);
  }
  fsync(name: string, onDone?: () => void): void {
    if (this.ctx.alive) this.disk.fsync(name, onDone, this.ctx);
  }
  read(name: string): readonly unknown[] {
    return this.disk.read(name);
  }
  exists(name: string): boolean {
    return this.disk.exists(name);
  }
  list(): string[] {
    return this.disk.list();
  }
  sizeOf(name: string): number {
    return this.disk.sizeOf(name);
  }
}

/** An fsync completion waiting in the kernel, as the model checker sees it. */
export interface PendingFsync {
  node: string;
  file: string;
  /** How many of the file's operations not yet durable it makes durable. */
  covers: number;
  /** Issued before a crash of its disk: it will complete never (doing nothing). */
  stale: boolean;
}

/** The fsync a pending kernel event completes, or undefined for other events. */
export function pendingFsync(ev: SimEvent): PendingFsync | undefined {
  if (ev.fn !== fsyncDone) return undefined;
  const p = ev.a as { disk: Disk; name: string; mark: number; crashes: number };
  return { node: p.disk.nodeId, file: p.name, covers: p.disk.opsCoveredBy(p.name, p.mark), stale: p.crashes !== p.disk.crashCount };
}

/** True for the event that runs a completed fsync's callback on its node. */
export function isFsyncCallback(ev: SimEvent): boolean {
  return ev.fn === runCallback;
}

function fsyncDone(ev: SimEvent): void {
  const p = ev.a as { disk: Disk; name: string; mark: number; onDone: (() => void) | undefined; ctx: NodeContext | undefined; crashes: number };
  p.disk.completeFsync(p.name, p.mark, p.onDone, p.ctx, p.crashes);
}

function runCallback(ev: SimEvent): void {
  (ev.a as () => void)();
}

function applyDurable(f: DiskFile, op: Op): number {
  switch (op.kind) {
    case "append":
      f.durableRecords.push(op.record);
      f.durableSizes.push(op.sizeBytes);
      f.durableBytes += op.sizeBytes;
      return op.sizeBytes;
    case "replace":
      f.durableRecords = op.records;
      f.durableSizes = op.sizes;
      f.durableBytes = sum(op.sizes);
      return f.durableBytes;
    case "delete":
      f.durableRecords = [];
      f.durableSizes = [];
      f.durableBytes = 0;
      return 0;
  }
}

function opBytes(op: Op): number {
  switch (op.kind) {
    case "append":
      return op.sizeBytes;
    case "replace":
      return sum(op.sizes);
    case "delete":
      return 0;
  }
}

function sum(xs: readonly number[]): number {
  let t = 0;
  for (const x of xs) t += x;
  return t;
}

function validateDiskConfig(c: DiskConfig): void {
  if (!(c.fsyncLatencyUs >= 0)) throw new UserInputError(`disk: fsyncLatency must be ≥ 0, got ${c.fsyncLatencyUs}`);
  if (!(c.capacityBytes > 0)) throw new UserInputError(`disk: capacityBytes must be > 0, got ${c.capacityBytes}`);
  if (!(c.tearProbability >= 0 && c.tearProbability <= 1)) throw new UserInputError(`disk: tearProbability must be between 0 and 1, got ${c.tearProbability}`);
}
