/**
 * Integrity (docs/zookeeper.md §7.10, the ZooKeeper TLA+ specification's `Integrity`): a server delivers only what
 * some leader broadcast. Every `zab.deliver` ⟨zxid, txn⟩ must match a `zab.propose` of that
 * zxid with that txn earlier in the run, by any leader of any epoch. (Synchronisation delivers
 * txns a leader proposed in an earlier epoch; a snapshot delivers nothing one by one.) A
 * delivery nobody proposed is a txn made up on the way: a corrupted DIFF, a learner that
 * applied its own uncommitted write, a leader that skipped its own proposal step.
 *
 * Bounded state: the proposals at or below the durable floor (durable-floor.ts: every server
 * applied and made durable everything up to it) are forgotten, and a delivery at or below the
 * floor is not judged: no server delivers there again unless it lost durable txns, which the
 * history checkers report.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { Zxid } from "../../zk/proto/records.js";
import { formatZxid, ZabEventChecker } from "./zab-event.js";
import { FloorPruner } from "./durable-floor.js";

const KINDS = ["zab.propose", "zab.deliver"] as const;

export class IntegrityChecker extends ZabEventChecker<(typeof KINDS)[number]> {
  /** Zxid → the txns proposed under it (one, unless zab.zxid-uniqueness has something to say). */
  private readonly proposed = new Map<Zxid, string[]>();
  /** Deliveries already reported, so each server's copy of one intruder is not a new report. */
  private readonly reported = new Set<string>();

  constructor() {
    super("zab.integrity", KINDS);
    this.pruner = new FloorPruner((floorZxid) => {
      for (const zxid of this.proposed.keys()) if (zxid <= floorZxid) this.proposed.delete(zxid);
    });
  }

  protected dispatch(e: TraceEvent<(typeof KINDS)[number]>): void {
    if (e.kind === "zab.propose") {
      const { zxid, txn } = this.txnFields.entry(e);
      const txns = this.proposed.get(zxid);
      if (txns === undefined) this.proposed.set(zxid, [txn]);
      else if (!txns.includes(txn)) txns.push(txn);
      return;
    }
    const { zxid, txn } = this.txnFields.entry(e);
    if (this.proposed.get(zxid)?.includes(txn) || zxid <= this.pruner!.prunedThrough) return;
    const key = `${zxid}:${txn}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log.add(e, `Integrity violated: ${this.names.label(e.node)} delivered ${formatZxid(zxid)} (txn ${txn}), which no leader proposed`);
  }
}
