/**
 * The zxid and txn of a txn event (`zab.propose`, `zab.log`, `zab.deliver`), read once a run.
 *
 * Every txn event is read by the durable floor and by up to five ZAB checkers (zxid-uniqueness,
 * integrity, prefix-consistency, committed-durability, primary-integrity), and each parsed the
 * zxid's hex text into a bigint of its own (three txn events per txn and server). The run's
 * `TxnFields` (check-run.ts) is fed each txn event before any of them reads it and keeps what it
 * read; a reader asks it for the zxid (or the entry: zxid and txn) of the event it was handed, and
 * gets the one value, or, for any other event, the field read afresh.
 *
 * Same answers as reading the field: the service reads each event with the same strict reader,
 * and a field it found malformed is read again by whoever asks, which throws `MalformedEvent`
 * for that reader to report (in the order it read its fields before). The answer is kept only for
 * the last event fed, which every reader of that event reads before the next one is fed (services
 * first, then the checkers, event by event), so an event changed after it was fed (a test reusing
 * one) is read again when it is fed again.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { Zxid } from "../../zk/proto/records.js";
import { MalformedEvent, stringField, zxidField } from "../event-reader.js";
import type { TxnEntry } from "./txn-history.js";

/** The kinds whose `zxid` and `txn` the run reads once. */
export const TXN_KINDS = ["zab.propose", "zab.log", "zab.deliver"] as const;
export type TxnKind = (typeof TXN_KINDS)[number];

/** What a reader of txn events asks (structural: no private members, see check-run.ts). */
export interface TxnFieldsReader {
  /** `zxidField(e, "zxid")`. */
  zxid(e: TraceEvent): Zxid;
  /** `{ zxid: zxidField(e, "zxid"), txn: stringField(e, "txn") }` (one object for every reader: do not change it). */
  entry(e: TraceEvent): TxnEntry;
}

export class TxnFields implements TxnFieldsReader {
  readonly kinds = TXN_KINDS;
  /** The last event fed. */
  private event: TraceEvent | undefined = undefined;
  /** Its zxid; undefined when malformed. */
  private zxidRead: Zxid | undefined = undefined;
  /** Its zxid and txn; undefined when either is malformed. */
  private entryRead: TxnEntry | undefined = undefined;

  onEvent(e: TraceEvent): void {
    this.event = e;
    this.zxidRead = this.entryRead = undefined;
    try {
      const zxid = (this.zxidRead = zxidField(e as TraceEvent<TxnKind>, "zxid"));
      this.entryRead = { zxid, txn: stringField(e as TraceEvent<TxnKind>, "txn") };
    } catch (error) {
      // Left for each reader to read again, and report as it did.
      if (!(error instanceof MalformedEvent)) throw error;
    }
  }

  zxid(e: TraceEvent): Zxid {
    const zxid = this.zxidRead;
    return e === this.event && zxid !== undefined ? zxid : zxidField(e as TraceEvent<TxnKind>, "zxid");
  }

  entry(e: TraceEvent): TxnEntry {
    const entry = this.entryRead;
    return e === this.event && entry !== undefined ? entry : { zxid: zxidField(e as TraceEvent<TxnKind>, "zxid"), txn: stringField(e as TraceEvent<TxnKind>, "txn") };
  }
}

/** For a reader no run attached (fed by hand): never fed, so it reads every field itself. */
export const UNSHARED_TXN_FIELDS: TxnFieldsReader = new TxnFields();
