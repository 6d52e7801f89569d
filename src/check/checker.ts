/**
 * The checker contract. A checker reads trace events (and, later, client histories) as they
 * are recorded — online — and never reaches into live objects. It shares no code with what it
 * checks: a checker built on the server's own data structures would share the server's bugs.
 */
import type { TraceEvent } from "../sim/trace.js";

/**
 * The fault events that end a checker's quiet period (a heal or a restart is news as much as
 * the cut or the crash): node crashes and restarts, pauses, partitions and clogs.
 */
export const FAULT_KINDS: ReadonlySet<string> = new Set(["crash", "restart", "partition", "heal", "pause", "resume", "clog", "unclog"]);

export interface Violation {
  checker: string;
  message: string;
  eventIndex: number;
  atMs: number;
}

/**
 * A stretch of the run a checker could not judge (a search budget ran out, or the state it
 * needed was lost): neither a pass nor a violation. Reported beside the violations
 * (`RunResult.unknown`); never a failure of the system under test.
 */
export interface UnknownVerdict {
  checker: string;
  /** One sentence: what could not be judged and which limit stopped it. */
  reason: string;
  /** The stretch of virtual time left unjudged. */
  fromMs: number;
  toMs: number;
}

/** Where a run ended: its last event's position and time. */
export interface RunEnd {
  index: number;
  atUs: number;
  /**
   * Nothing was left to happen (no event pending): however long the run went on, it would
   * stay as it is — a liveness verdict need not wait for a quiet budget.
   */
  quiescent?: boolean;
}

export interface Checker {
  readonly name: string;
  /**
   * The event kinds it reads, asked once per kind; events of other kinds never reach
   * `onEvent` (nor are they built as objects, when nobody else reads them). Absent: all kinds.
   */
  accepts?(kind: string): boolean;
  onEvent(event: TraceEvent): void;
  /**
   * Called once at the end of the run with the run's last event (of any kind, read or not);
   * returns every violation found. Without `end` (no event at all), the checks that judge the
   * end of the run (quiet periods, liveness) have nothing to judge.
   */
  finish(end?: RunEnd): Violation[];
  /** Optional, read after `finish`: the stretches it could not judge (see UnknownVerdict). */
  unknowns?(): UnknownVerdict[];
  /**
   * Optional: how many items (events, ops, sessions…) it holds now. Read only when a run is
   * stopped for want of memory, to name what grew (without it, the entries of the collections
   * its fields hold are counted).
   */
  retained?(): number;
}

/** Feeds `events` to `checkers` as a run does (each reads only what it accepts), then finishes them. */
export function runCheckers(checkers: readonly Checker[], events: Iterable<TraceEvent>): Violation[] {
  let end: RunEnd | undefined;
  for (const e of events) {
    for (const c of checkers) if (c.accepts === undefined || c.accepts(e.kind)) c.onEvent(e);
    end = e;
  }
  return checkers.flatMap((c) => c.finish(end));
}

/** Collects violations with the event that exposed them. */
export class ViolationLog {
  readonly violations: Violation[] = [];
  constructor(private readonly checker: string, private readonly limit = 50) {}

  add(event: RunEnd, message: string): void {
    if (this.violations.length >= this.limit) return;
    this.violations.push({ checker: this.checker, message, eventIndex: event.index, atMs: event.atUs / 1000 });
  }
}
