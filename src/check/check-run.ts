/**
 * What the checkers of one run share: state every one of them would otherwise work out again
 * from the same events. The dispatcher (`subscribeCheckers`, `runCheckers` in checker.ts) makes
 * one per run, hands it to each checker's `attach` before the first event, and then feeds each
 * service the events of its kinds once, before any checker reads them: a checker reads the
 * service's state as of the event it is handed, the event included.
 *
 * The durable floor (zab/durable-floor.ts): six checkers forget their per-txn state below it,
 * and each parsed every `zab.deliver` and `zab.log` into a floor of its own.
 */
import type { TraceEvent } from "../sim/trace.js";
import type { TraceKind } from "../sim/trace-schema.js";
import { DurableFloor, FLOOR_KINDS } from "./zab/durable-floor.js";
import { MalformedEvent } from "./event-reader.js";

/** A service's feed: the kinds it follows and what reads them. */
export interface ServiceFeed {
  readonly kinds: readonly TraceKind[];
  readonly observe: (e: TraceEvent) => void;
}

/**
 * What a checker gets in `attach`: structural (no private members), so a checker built against
 * another copy of this module (the compiled dist/ beside src/) still fits.
 */
export interface RunServices {
  durableFloor(): { current(): bigint };
  readonly floorMalformed: { event: TraceEvent; error: MalformedEvent } | undefined;
}

export class CheckRun implements RunServices {
  private floor: DurableFloor | undefined = undefined;
  /**
   * The last floor event the floor found malformed, with the error: each checker that reads the
   * floor reports it as its own floor did (FloorPruner.observe rethrows it), and the run goes on.
   */
  floorMalformed: { event: TraceEvent; error: MalformedEvent } | undefined = undefined;

  /** The run's durable floor (created on the first request; fed only if some checker asked). */
  durableFloor(): DurableFloor {
    return (this.floor ??= new DurableFloor());
  }

  /** The services some checker asked for, each with its feed, for the dispatcher to subscribe first. */
  feeds(): ServiceFeed[] {
    const floor = this.floor;
    if (floor === undefined) return [];
    const observe = (e: TraceEvent): void => {
      try {
        floor.observe(e as TraceEvent<(typeof FLOOR_KINDS)[number]>);
      } catch (error) {
        if (!(error instanceof MalformedEvent)) throw error;
        this.floorMalformed = { event: e, error };
      }
    };
    return [{ kinds: FLOOR_KINDS, observe }];
  }
}
