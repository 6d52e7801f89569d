/**
 * The durable floor: a zxid F such that every server seen so far has applied every committed
 * txn ≤ F to its data tree *and* holds it durably (fsynced in its txn log, or in a persisted
 * snapshot). Below F nothing the ZAB checkers judge can still change in a run without a bug,
 * so they forget their per-txn state there (the bounded-state rule of docs/long-runs.md).
 *
 * Per server, as its annotations state it:
 * - `treeZxid`: its last delivery, or the point of its last reset (recovery, truncation, SNAP);
 * - `durableZxid`: how far its disk surely goes: `zab.log` (announced once an fsync covers the
 *   txn) raises it; `zab.recovered {lastZxid}` sets it (what the disk held); a truncation lowers
 *   it. A SNAP (`zab.snap.load`) is *not* durable until a snapshot at or above its zxid is
 *   persisted (`zk.snapshot.done` without error): until then the disk holds only what it held
 *   before, and txns logged meanwhile wait for that snapshot too. This is what keeps the
 *   ZOOKEEPER-4643/4785 shapes visible: a learner that ACKed NEWLEADER with synced txns it never
 *   persisted keeps the floor below them.
 * F = min over servers of min(treeZxid, durableZxid), never lowered (what was forgotten stays
 * forgotten; a server that later goes below F has lost durable txns, which the checkers report
 * without their details). Crashed servers keep their disk, so they count with their last values.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { Zxid } from "../../zk/proto/records.js";
import { guarded, optionalStringField, zxidField, type ViolationSink } from "../event-reader.js";
import type { RunServices } from "../check-run.js";
import { UNSHARED_TXN_FIELDS, type TxnFieldsReader } from "./txn-fields.js";

/** The kinds the floor follows. */
export const FLOOR_KINDS = ["zab.deliver", "zab.log", "zab.recovered", "zab.truncate", "zab.snap.load", "zk.snapshot.done"] as const;
export type FloorKind = (typeof FLOOR_KINDS)[number];
const FLOOR_KIND_SET: ReadonlySet<string> = new Set(FLOOR_KINDS);

/** Whether `e` is one of the kinds the floor follows. */
export function isFloorEvent(e: TraceEvent): e is TraceEvent<FloorKind> {
  return FLOOR_KIND_SET.has(e.kind);
}

interface ServerDurability {
  treeZxid: Zxid;
  durableZxid: Zxid;
  /** The zxid of a SNAP not yet covered by a persisted snapshot, if any. */
  pendingSnapZxid: Zxid | undefined;
  /** The highest txn logged while a SNAP was pending: durable with that snapshot. */
  loggedWhilePending: Zxid;
}

export class DurableFloor {
  private readonly servers = new Map<string, ServerDurability>();
  private floorZxid: Zxid = -1n;

  /** `fields`: the run's txn fields (zab/txn-fields.ts), fed each txn event before the floor. */
  constructor(private readonly fields: TxnFieldsReader = UNSHARED_TXN_FIELDS) {}

  /** Follows one event of the kinds it follows. */
  observe(e: TraceEvent<FloorKind>): void {
    switch (e.kind) {
      case "zab.deliver": {
        this.server(e.node).treeZxid = this.fields.zxid(e);
        return;
      }
      case "zab.log": {
        const s = this.server(e.node);
        const zxid = this.fields.zxid(e);
        if (s.pendingSnapZxid !== undefined) s.loggedWhilePending = max(s.loggedWhilePending, zxid);
        else s.durableZxid = max(s.durableZxid, zxid);
        return;
      }
      case "zab.recovered": {
        const s = this.server(e.node);
        s.treeZxid = s.durableZxid = zxidField(e, "lastZxid");
        s.pendingSnapZxid = undefined;
        return;
      }
      case "zab.truncate": {
        const s = this.server(e.node);
        s.treeZxid = zxidField(e, "zxid");
        s.durableZxid = min(s.durableZxid, s.treeZxid);
        return;
      }
      case "zab.snap.load": {
        const s = this.server(e.node);
        s.treeZxid = zxidField(e, "zxid");
        s.durableZxid = min(s.durableZxid, s.treeZxid);
        s.pendingSnapZxid = s.treeZxid;
        s.loggedWhilePending = -1n;
        return;
      }
      case "zk.snapshot.done": {
        const s = this.servers.get(e.node);
        if (s === undefined || optionalStringField(e, "err") !== undefined) return;
        const zxid = zxidField(e, "zxid");
        if (s.pendingSnapZxid === undefined) s.durableZxid = max(s.durableZxid, zxid);
        else if (zxid >= s.pendingSnapZxid) {
          s.durableZxid = max(s.durableZxid, max(zxid, s.loggedWhilePending));
          s.pendingSnapZxid = undefined;
        }
        return;
      }
    }
  }

  /** The floor now (recomputed; never lower than before). */
  zxid(): Zxid {
    const f = this.current();
    if (f > this.floorZxid) this.floorZxid = f;
    return this.floorZxid;
  }

  /**
   * The lowest zxid every server both applied and holds durably, as of now: -1 before any server
   * was seen; it goes down when a server loses txns (a truncation, a recovery, a SNAP).
   */
  current(): Zxid {
    let f: Zxid | undefined;
    for (const s of this.servers.values()) f = min(f ?? s.treeZxid, min(s.treeZxid, s.durableZxid));
    return f ?? -1n;
  }

  private server(node: string): ServerDurability {
    let s = this.servers.get(node);
    if (s === undefined) this.servers.set(node, (s = { treeZxid: -1n, durableZxid: -1n, pendingSnapZxid: undefined, loggedWhilePending: -1n }));
    return s;
  }
}

/**
 * When a checker prunes: every `everyEvents` events it hands here it asks the floor, and calls
 * `prune` when the floor rose above what it pruned last (so each checker's pruning points are
 * its own, whoever else reads the floor).
 *
 * The floor itself is the run's (`CheckRun.durableFloor`, check/check-run.ts): the dispatcher
 * feeds it each floor event once, before any checker reads that event, and `attach` hands it to
 * the pruner. A pruner never attached (a checker fed by hand) keeps a floor of its own and feeds
 * it the floor events it is handed: the same floor, as the checker reads every floor kind.
 */
export class FloorPruner {
  private floor: { current(): Zxid } = new DurableFloor();
  private readonly ownFloor = this.floor as DurableFloor;
  /** The run whose floor it reads, once attached; until then `observe` feeds a floor of its own. */
  private run: RunServices | undefined = undefined;
  private events = 0;
  private lastPrunedZxid: Zxid = -1n;

  constructor(
    private readonly prune: (floorZxid: Zxid) => void,
    private readonly everyEvents = 4096,
  ) {}

  /** Reads the run's floor from now on, which the dispatcher feeds (before the first event). */
  attach(run: RunServices): void {
    this.floor = run.durableFloor();
    this.run = run;
  }

  /**
   * `attach`, for a checker that reads the floor's kinds only to prune: the run hands the pruner
   * every floor event, just after the floor reads it (the same events, in the same order, as the
   * checker handed them on), and one the floor found malformed is reported to `log`, as the
   * checker reported it. The checker then leaves the floor's kinds out (`Checker.attachedKinds`).
   */
  follow(run: RunServices, log: ViolationSink): void {
    this.attach(run);
    run.followFloor({ observe: (e) => guarded(log, e, this, this.observe) });
  }

  /** Everything at or below this zxid has been forgotten. */
  get prunedThrough(): Zxid {
    return this.lastPrunedZxid;
  }

  /** Any event the checker reads (each counts towards the next pruning). */
  observe(e: TraceEvent): void {
    if (this.run === undefined) {
      if (isFloorEvent(e)) this.ownFloor.observe(e);
    } else if (this.run.floorMalformed?.event === e) {
      // The run's floor could not read it: malformed, for this checker as for its own floor before.
      throw this.run.floorMalformed.error;
    }
    if (++this.events % this.everyEvents !== 0) return;
    const f = this.floor.current();
    if (f <= this.lastPrunedZxid) return;
    this.lastPrunedZxid = f;
    this.prune(f);
  }
}

function max(a: Zxid, b: Zxid): Zxid {
  return a > b ? a : b;
}

function min(a: Zxid, b: Zxid): Zxid {
  return a < b ? a : b;
}
