/**
 * When the last fault happened, for the protocols' liveness checkers: the fault kinds of the
 * trace (node crashes and restarts, pauses, partitions, clogs, link and disk changes). A
 * liveness verdict is given only at the end of a run that has been quiet for the budget.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { FAULT_EVENT_KINDS } from "../../sim/trace-schema.js";
import type { RunEnd } from "../checker.js";

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

  /** A liveness verdict can be given: the run ended quiet for the budget, or with nothing left to happen. */
  judgeable(end: RunEnd | undefined, budgetMs: number): end is RunEnd {
    return end !== undefined && (end.quiescent === true || this.quietFor(end.atUs, budgetMs));
  }

  /** How the end stands to the last fault, for a liveness report. */
  describe(end: RunEnd, budgetMs: number): string {
    const since = ((end.atUs - this.lastFaultUs) / 1000).toFixed(0);
    return end.quiescent === true && !this.quietFor(end.atUs, budgetMs) ? `the run came to rest ${since} ms after the last fault, with nothing left to happen` : `${since} ms after the last fault (budget ${budgetMs} ms)`;
  }
}
