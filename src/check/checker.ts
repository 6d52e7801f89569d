/**
 * The checker contract. A checker reads trace events (and, later, client histories) as they
 * are recorded — online — and never reaches into live objects. It shares no code with what it
 * checks: a checker built on the server's own data structures would share the server's bugs.
 */
import type { TraceEvent } from "../sim/trace.js";

export interface Violation {
  checker: string;
  message: string;
  eventIndex: number;
  atMs: number;
}

export interface Checker {
  readonly name: string;
  onEvent(event: TraceEvent): void;
  /** Called once at the end of the run; returns every violation found. */
  finish(): Violation[];
}

/** Collects violations with the event that exposed them. */
export class ViolationLog {
  readonly violations: Violation[] = [];
  constructor(private readonly checker: string, private readonly limit = 50) {}

  add(event: TraceEvent, message: string): void {
    if (this.violations.length >= this.limit) return;
    this.violations.push({ checker: this.checker, message, eventIndex: event.index, atMs: event.atUs / 1000 });
  }
}
