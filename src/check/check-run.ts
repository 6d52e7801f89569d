/**
 * What the checkers of one run share: state every one of them would otherwise work out again
 * from the same events. The dispatcher (`subscribeCheckers`, `runCheckers` in checker.ts) makes
 * one per run, hands it to each checker's `attach` before the first event, and then feeds each
 * service the events of its kinds once, before any checker reads them: a checker reads the
 * service's state as of the event it is handed, the event included.
 *
 * The durable floor (zab/durable-floor.ts): six checkers forget their per-txn state below it,
 * and each parsed every `zab.deliver` and `zab.log` into a floor of its own. A checker that read
 * the floor's kinds only to prune by it has them handed by the run instead (`followFloor`), after
 * the floor, and no longer reads them itself (`Checker.attachedKinds`).
 *
 * The txn fields (zab/txn-fields.ts): the zxid and txn of each `zab.propose`, `zab.log` and
 * `zab.deliver`, read once for the floor and the ZAB checkers that read them (each parsed the
 * zxid of its own before). Fed first, as the floor reads it.
 */
import type { TraceEvent } from "../sim/trace.js";
import type { TraceKind } from "../sim/trace-schema.js";
import { DurableFloor, FLOOR_KINDS } from "./zab/durable-floor.js";
import { MalformedEvent } from "./event-reader.js";
import { TxnFields, type TxnFieldsReader } from "./zab/txn-fields.js";

/** A service's feed: the kinds it follows and what reads them (handed each, as a checker is). */
export interface ServiceFeed {
  readonly kinds: readonly TraceKind[];
  onEvent(e: TraceEvent): void;
}

/**
 * What a checker gets in `attach`: structural (no private members), so a checker built against
 * another copy of this module (the compiled dist/ beside src/) still fits.
 */
export interface RunServices {
  durableFloor(): { current(): bigint };
  /** The zxid and txn of the txn events, read once (zab/txn-fields.ts). */
  txnFields(): TxnFieldsReader;
  readonly floorMalformed: { event: TraceEvent; error: MalformedEvent } | undefined;
  /** Hands `follower` every floor event, in order, each once the floor has read it. */
  followFloor(follower: FloorFollower): void;
  /**
   * The run's one `kind` (made by `make` for the first checker that asks): state its checkers
   * keep together and feed themselves (client/run-ops.ts, client/notification-txns.ts).
   */
  shared<T>(kind: abstract new (...args: never[]) => T, make: () => T): T;
}

/** What follows the floor's events through the run (a checker's pruner): `observe` reads one. */
export interface FloorFollower {
  observe(e: TraceEvent): void;
}

export class CheckRun implements RunServices {
  private floor: DurableFloor | undefined = undefined;
  private fields: TxnFields | undefined = undefined;
  /**
   * The last floor event the floor found malformed, with the error: each checker that reads the
   * floor reports it as its own floor did (FloorPruner.observe rethrows it), and the run goes on.
   */
  floorMalformed: { event: TraceEvent; error: MalformedEvent } | undefined = undefined;
  private readonly followers: FloorFollower[] = [];
  private readonly kept = new Map<object, unknown>();

  /** The run's durable floor (created on the first request; fed only if some checker asked). */
  durableFloor(): DurableFloor {
    return (this.floor ??= new DurableFloor(this.txnFields()));
  }

  /** The run's txn fields (created on the first request; fed only if some reader asked). */
  txnFields(): TxnFields {
    return (this.fields ??= new TxnFields());
  }

  followFloor(follower: FloorFollower): void {
    this.durableFloor();
    this.followers.push(follower);
  }

  shared<T>(kind: abstract new (...args: never[]) => T, make: () => T): T {
    if (this.kept.has(kind)) return this.kept.get(kind) as T;
    const made = make();
    this.kept.set(kind, made);
    return made;
  }

  /** The services some checker asked for, each with its feed, for the dispatcher to subscribe first. */
  feeds(): ServiceFeed[] {
    const feeds: ServiceFeed[] = [];
    // The txn fields first: the floor reads them.
    if (this.fields !== undefined) feeds.push(this.fields);
    if (this.floor !== undefined) feeds.push(new FloorFeed(this, this.floor, this.followers));
    return feeds;
  }
}

/** The durable floor's feed: the floor reads each floor event, then the followers do. */
class FloorFeed implements ServiceFeed {
  readonly kinds = FLOOR_KINDS;

  constructor(
    private readonly run: CheckRun,
    private readonly floor: DurableFloor,
    private readonly followers: readonly FloorFollower[],
  ) {}

  onEvent(e: TraceEvent): void {
    try {
      this.floor.observe(e as TraceEvent<(typeof FLOOR_KINDS)[number]>);
    } catch (error) {
      if (!(error instanceof MalformedEvent)) throw error;
      this.run.floorMalformed = { event: e, error };
    }
    const followers = this.followers;
    for (let i = 0; i < followers.length; i++) followers[i]!.observe(e);
  }
}
