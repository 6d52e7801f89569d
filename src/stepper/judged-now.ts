/**
 * A checker that only judges at the end of a run (it reports what it found when `finish` gets
 * the run's last event, like the linearizability search) made to judge at any moment: it keeps
 * the events it accepts and, on each `finish()`, replays them into a fresh checker and
 * finishes that one at the last of them. Meant for the short histories of a teaching run.
 */
import type { Checker, RunEnd, Violation } from "../check/checker.js";
import type { TraceEvent, TraceKind } from "../sim/trace.js";

export class JudgedNow implements Checker {
  readonly name: string;
  readonly kinds: readonly TraceKind[];
  private readonly events: TraceEvent[] = [];

  constructor(private readonly make: () => Checker) {
    const probe = make();
    this.name = probe.name;
    this.kinds = probe.kinds;
  }

  onEvent(e: TraceEvent): void {
    this.events.push(e);
  }

  finish(_end?: RunEnd): Violation[] {
    const fresh = this.make();
    for (const e of this.events) fresh.onEvent(e);
    return fresh.finish(this.events[this.events.length - 1]);
  }
}
