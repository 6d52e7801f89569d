/**
 * Unique zxid → txn mapping: across all servers and across proposing (`zab.propose`), logging
 * (`zab.log`) and applying (`zab.deliver`), a zxid always names the same txn (compared by the
 * `txn` content digest). A leader mints a zxid once; a second, different txn under the same
 * zxid means two leaders used the same epoch (ZOOKEEPER-335) or a counter carried into the
 * epoch bits (ZOOKEEPER-1277), and any two servers holding them disagree forever.
 *
 * Bounded state: the zxids at or below the durable floor (durable-floor.ts: every server
 * applied and made durable everything up to it) are forgotten; an event that names one again
 * is not compared (no server proposes, logs or delivers there again unless it lost durable
 * txns, which the history checkers report).
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import type { Zxid } from "../../zk/proto/records.js";
import type { TxnEntry } from "./txn-history.js";
import { at, formatZxid, serverLabel } from "./zab-event.js";
import { reportMalformed } from "../event-reader.js";
import { FLOOR_KINDS, FloorPruner, isFloorEvent } from "./durable-floor.js";
import type { RunServices } from "../check-run.js";
import { UNSHARED_TXN_FIELDS, type TxnFieldsReader } from "./txn-fields.js";

interface FirstSeen {
  txn: string;
  label: string;
  event: TraceEvent;
}

const CARRIERS = new Set(["zab.propose", "zab.log", "zab.deliver"]);

const KINDS = ["zab.propose", "zab.log", "zab.deliver", ...FLOOR_KINDS] as const;
type Kind = KindsOf<typeof KINDS>;

export class ZxidUniquenessChecker implements Checker<Kind> {
  readonly name = "zab.zxid-uniqueness";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly first = new Map<Zxid, FirstSeen>();
  /** `zxid:txn` pairs already reported, so every server that logs the intruder is not a new report. */
  private readonly reported = new Set<string>();
  private readonly pruner = new FloorPruner((floorZxid) => {
    for (const zxid of this.first.keys()) if (zxid <= floorZxid) this.first.delete(zxid);
  });

  /** The zxid and txn of each txn event, read once a run (zab/txn-fields.ts). */
  private txnFields: TxnFieldsReader = UNSHARED_TXN_FIELDS;

  /** The run's durable floor and txn fields. */
  attach(run: RunServices): void {
    this.pruner.attach(run);
    this.txnFields = run.txnFields();
  }

  onEvent(e: TraceEvent<Kind>): void {
    // `guarded`, inlined: no closure per txn event (three per txn per server).
    try {
      if (CARRIERS.has(e.kind)) this.onTxn(e, this.txnFields.entry(e));
      if (isFloorEvent(e)) this.pruner.observe(e);
    } catch (err) {
      reportMalformed(this.log, e, err);
    }
  }

  private onTxn(e: TraceEvent, { zxid, txn }: TxnEntry): void {
    if (zxid <= this.pruner.prunedThrough) return;
    const first = this.first.get(zxid);
    if (first === undefined) {
      this.first.set(zxid, { txn, label: serverLabel(e), event: e });
      return;
    }
    if (first.txn === txn) return;
    const key = `${zxid}:${txn}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log.add(
      e,
      `ZxidUniqueness violated: zxid ${formatZxid(zxid)} names two different txns: "${first.txn}" at ${first.label} ` +
        `(${first.event.kind} ${at(first.event)}) and "${txn}" at ${serverLabel(e)} (${e.kind}); a zxid is minted once, by the one leader of its epoch`,
    );
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
