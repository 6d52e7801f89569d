/**
 * A crash loses exactly the unsynced bytes. From the trace alone this checker keeps, per node
 * and file, the operations written since the last completed fsync covering them; at a crash it
 * expects a "disk.lost" report for every such file with exactly those bytes (less any torn
 * prefix that survived), and it keeps the durable size of every file so that a process which
 * reports what it recovered ("app.recovered" {file, bytes}) can be held to it.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { detailOf, idOf, intField, reportMalformed, stringField } from "../event-reader.js";

interface FileState {
  pending: { seq: number; bytes: number; replace: boolean }[];
  durableBytes: number;
}

/** The kinds it reads: after a crash, the next of them that is not the node's `disk.lost` settles it. */
const KINDS = ["disk.append", "disk.replace", "disk.delete", "disk.fsync.done", "crash", "disk.lost", "app.recovered"] as const;
type Kind = KindsOf<typeof KINDS>;

export class DiskCrashLossChecker implements Checker<Kind> {
  readonly name = "kernel.disk-crash-loss";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly opSeq = new Map<string, number>();
  /** Node → file name → its state (nested: no key string built per disk event). */
  private readonly files = new Map<string, Map<string, FileState>>();
  /** After a crash: files that must be reported lost, with the bytes expected. */
  private expectLoss = new Map<string, number>();
  private crashEvent: TraceEvent | undefined;

  onEvent(e: TraceEvent<Kind>): void {
    if (this.crashEvent !== undefined && !(e.kind === "disk.lost" && e.node === this.crashEvent.node)) this.settleCrash();
    try {
      this.read(e);
    } catch (err) {
      reportMalformed(this.log, e, err);
    }
  }

  private read(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "disk.append":
      case "disk.replace":
      case "disk.delete": {
        // A delete carries no size: the file is replaced by nothing.
        const bytes = e.kind === "disk.delete" ? 0 : idOf(e);
        const f = this.file(e.node, detailOf(e));
        const seq = (this.opSeq.get(e.node) ?? 0) + 1;
        this.opSeq.set(e.node, seq);
        f.pending.push({ seq, bytes, replace: e.kind !== "disk.append" });
        return;
      }
      case "disk.fsync.done": {
        const f = this.file(e.node, detailOf(e));
        const mark = idOf(e);
        while (f.pending.length > 0 && f.pending[0]!.seq <= mark) {
          const op = f.pending.shift()!;
          f.durableBytes = op.replace ? op.bytes : f.durableBytes + op.bytes;
        }
        return;
      }
      case "crash":
        this.onCrash(e);
        return;
      case "disk.lost":
        this.onLost(e);
        return;
      case "app.recovered": {
        const file = stringField(e, "file");
        const bytes = intField(e, "bytes");
        const f = this.file(e.node, file);
        if (bytes !== f.durableBytes) {
          this.log.add(e, `${e.node} recovered ${bytes} bytes of ${file} after restart, but ${f.durableBytes} bytes were durable`);
        }
        return;
      }
    }
  }

  private onCrash(e: TraceEvent): void {
    this.expectLoss = new Map();
    for (const [name, f] of this.files.get(e.node) ?? []) {
      if (f.pending.length > 0) this.expectLoss.set(`${e.node}/${name}`, f.pending.reduce((t, op) => t + op.bytes, 0));
    }
    this.crashEvent = e;
  }

  private onLost(e: TraceEvent): void {
    const name = detailOf(e);
    const lost = idOf(e);
    const torn = intField(e, "tornBytes");
    const key = `${e.node}/${name}`;
    const expected = this.expectLoss.get(key);
    if (expected === undefined) {
      this.log.add(e, `${e.node} lost ${lost} bytes of ${name}, but every write to it was fsynced`);
    } else if (lost + torn !== expected) {
      this.log.add(e, `${e.node} lost ${lost} bytes of ${name} (+${torn} torn), but ${expected} unsynced bytes were pending`);
    }
    this.expectLoss.delete(key);
    const f = this.file(e.node, name);
    f.pending = [];
    f.durableBytes += torn;
  }

  private settleCrash(): void {
    const crash = this.crashEvent!;
    for (const [key, bytes] of this.expectLoss) {
      this.log.add(crash, `crash of ${crash.node} should have lost ${bytes} unsynced bytes of ${key.slice(crash.node.length + 1)}, but no loss was reported`);
      this.file(crash.node, key.slice(crash.node.length + 1)).pending = [];
    }
    this.expectLoss = new Map();
    this.crashEvent = undefined;
  }

  private file(node: string, name: string): FileState {
    let ofNode = this.files.get(node);
    if (ofNode === undefined) this.files.set(node, (ofNode = new Map()));
    let f = ofNode.get(name);
    if (f === undefined) ofNode.set(name, (f = { pending: [], durableBytes: 0 }));
    return f;
  }

  finish(): Violation[] {
    if (this.crashEvent !== undefined) this.settleCrash();
    return this.log.violations;
  }
}
