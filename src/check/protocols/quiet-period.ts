/**
 * When the last fault happened, for the protocols' liveness checkers: the fault kinds of the
 * trace (node crashes and restarts, pauses, partitions, clogs, link and disk changes). A
 * liveness verdict is given only at the end of a run that has been quiet for the budget.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { FAULT_EVENT_KINDS } from "../../sim/trace-schema.js";

const FAULT_KIND_SET: ReadonlySet<string> = new Set(FAULT_EVENT_KINDS);

export class QuietPeriod {
  /** The kinds it reads: every fault event of the schema. */
  static readonly KINDS = FAULT_EVENT_KINDS;
  lastFaultUs = 0;

  onEvent(e: TraceEvent): void {
    if (FAULT_KIND_SET.has(e.kind)) this.lastFaultUs = e.atUs;
  }

  /** True when the run ended at least `budgetMs` after the last fault. */
  quietFor(endUs: number, budgetMs: number): boolean {
    return endUs - this.lastFaultUs >= budgetMs * 1000;
  }
}
