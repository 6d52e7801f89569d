/**
 * The checker contract. A checker reads trace events (and, later, client histories) as they
 * are recorded — online — and never reaches into live objects. It shares no code with what it
 * checks: a checker built on the server's own data structures would share the server's bugs.
 */
import { isOneOf, type Trace, type TraceEvent } from "../sim/trace.js";
import type { TraceKind } from "../sim/trace-schema.js";
import { CheckRun, type RunServices, type ServiceFeed } from "./check-run.js";

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

/**
 * A checker of the trace kinds K. Writing one:
 *
 * ```ts
 * const KINDS = ["zab.leader.established", "crash"] as const;
 * export class MyChecker implements Checker<(typeof KINDS)[number]> {
 *   readonly name = "zab.my-rule";
 *   readonly kinds = KINDS;
 *   onEvent(e: TraceEvent<(typeof KINDS)[number]>): void {
 *     switch (e.kind) {
 *       case "zab.leader.established": … intField(e, "epoch") …   // e narrowed: only its fields
 *       case "crash": …
 *     }
 *   }
 *   finish(): Violation[] { … }
 * }
 * ```
 */
export interface Checker<K extends TraceKind = TraceKind> {
  readonly name: string;
  /**
   * The event kinds it reads; events of other kinds never reach `onEvent` (nor are they built
   * as objects, when nobody else reads them).
   */
  readonly kinds: readonly K[];
  /** One event of its kinds, narrowed by `kind`; fields are read through `event-reader.ts`. */
  onEvent(event: TraceEvent<K>): void;
  /**
   * Called once at the end of the run with the run's last event (of any kind, read or not);
   * returns every violation found. Without `end` (no event at all), the checks that judge the
   * end of the run (quiet periods, liveness) have nothing to judge.
   */
  finish(end?: RunEnd): Violation[];
  /**
   * True for an alarm: every event it reads is a violation (a `zab.flag` raised at an assertion
   * point), so reading none is its pass. Any other checker that reads no event judged nothing
   * (`RunResult.judged.idle`, scenario/judged.ts).
   */
  readonly alarm?: boolean;
  /** Optional, read after `finish`: the stretches it could not judge (see UnknownVerdict). */
  unknowns?(): UnknownVerdict[];
  /**
   * Optional: its violations as they are found, for a reader that reports them while the run
   * goes on (serve's status lines). `finish` still returns every one.
   */
  readonly log?: ViolationStream;
  /**
   * Optional: how many items (events, ops, sessions…) it holds now. Read only when a run is
   * stopped for want of memory, to name what grew (without it, the entries of the collections
   * its fields hold are counted).
   */
  retained?(): number;
  /**
   * Optional: called by the dispatcher once, before the first event, with what the checkers of
   * the run share (check-run.ts: the durable floor…). A checker fed by hand is never attached
   * and works the same from its own state.
   */
  attach?(run: RunServices): void;
}

/** The kinds a list of kinds names (`KindsOf<typeof KINDS>`, for `Checker<…>` and `onEvent`). */
export type KindsOf<L extends readonly TraceKind[]> = L[number];

/** Whether `checker` reads events of `kind`. */
export function reads(checker: Checker, kind: TraceKind): boolean {
  return checker.kinds.includes(kind);
}

/**
 * Subscribes each checker to its kinds of `trace`, in order; returns the unsubscription. The run's
 * shared services (check-run.ts) come first, so each is fed an event before the checkers read it.
 * A bound method, not a wrapper arrow per checker: one call site would otherwise load `onEvent`
 * from every checker class.
 */
export function subscribeCheckers(trace: Pick<Trace, "subscribe">, checkers: readonly Checker[]): () => void {
  const run = attachRun(checkers);
  const unsubscribe = [...run.feeds().map((feed) => trace.subscribe(feed.observe, feed.kinds)), ...checkers.map((c) => trace.subscribe(c.onEvent.bind(c), c.kinds))];
  return () => unsubscribe.forEach((u) => u());
}

/** `subscribeCheckersInBatches`' default: the events handed to the checkers at a time. */
export const CHECK_BATCH_EVENTS = 4096;

/** The checkers of a run fed in batches: `flush` hands them what is waiting (before reading any of them). */
export interface BatchedCheckers {
  flush(): void;
  unsubscribe(): void;
}

/**
 * `subscribeCheckers` for a run whose checkers nobody reads before its end (runScenario: the
 * verdict is read after `finish`): the events of their kinds wait in a buffer and are handed to
 * them `batch` at a time, in order, each to the run's services first and then to the checkers
 * that read its kind, as `subscribeCheckers` does. Nothing else changes: the checkers see the
 * same events in the same order (an event's fields are not changed after it is recorded), only
 * later, with `flush` before `finish`.
 *
 * Why: fed one event at a time between the simulation's steps, every checker's state is cold in
 * the CPU's caches each time (the simulation ran in between); fed a few thousand events in a
 * row, the 30-odd checkers of a recipe seed cost less than half as much CPU (docs/benchmarks.md,
 * "sixth pass"). The buffer holds at most `batch` events, so a long run's memory stays bounded.
 * `batch` 1 is `subscribeCheckers`.
 */
export function subscribeCheckersInBatches(trace: Pick<Trace, "subscribe">, checkers: readonly Checker[], batch = CHECK_BATCH_EVENTS): BatchedCheckers {
  const feeds = attachRun(checkers).feeds();
  const kinds = new Set<TraceKind>([...feeds.flatMap((f) => f.kinds), ...checkers.flatMap((c) => c.kinds)]);
  const readers = new Map<TraceKind, EventReader[]>();
  for (const kind of kinds) readers.set(kind, readersOf(feeds, checkers, kind));
  const waiting: TraceEvent[] = [];
  const flush = (): void => {
    for (let i = 0; i < waiting.length; i++) for (const read of readers.get(waiting[i]!.kind)!) read(waiting[i]!);
    waiting.length = 0;
  };
  const unsubscribe = trace.subscribe((e: TraceEvent) => {
    waiting.push(e);
    if (waiting.length >= batch) flush();
  }, [...kinds]);
  return { flush, unsubscribe };
}

type EventReader = (e: TraceEvent) => void;

/** The readers of `kind`, in subscription order: the run's services, then the checkers. */
function readersOf(feeds: readonly ServiceFeed[], checkers: readonly Checker[], kind: TraceKind): EventReader[] {
  return [...feeds.filter((f) => f.kinds.includes(kind)).map((f) => f.observe), ...checkers.filter((c) => reads(c, kind)).map((c) => c.onEvent.bind(c))];
}

/** One `CheckRun` for `checkers`, attached to each that takes it. */
function attachRun(checkers: readonly Checker[]): CheckRun {
  const run = new CheckRun();
  for (const c of checkers) c.attach?.(run);
  return run;
}

/** Hands `e` to `checker` when it reads e's kind: a subscription's filter, for code that sees every event. */
export function offer<K extends TraceKind>(checker: Checker<K>, e: TraceEvent): void {
  if (isOneOf(e, checker.kinds)) checker.onEvent(e);
}

/** Feeds `events` to `checkers` as a run does (each reads only its kinds), then finishes them. */
export function runCheckers(checkers: readonly Checker[], events: Iterable<TraceEvent>): Violation[] {
  const feeds = attachRun(checkers).feeds();
  const byKind = new Map<TraceKind, EventReader[]>();
  let end: RunEnd | undefined;
  for (const e of events) {
    let readers = byKind.get(e.kind);
    if (readers === undefined) {
      readers = readersOf(feeds, checkers, e.kind);
      byKind.set(e.kind, readers);
    }
    for (const read of readers) read(e);
    end = e;
  }
  return checkers.flatMap((c) => c.finish(end));
}

/** A checker's violations as they are found: each listener hears each one once, in order. */
export interface ViolationStream {
  onViolation(listener: (violation: Violation) => void): void;
}

/** Collects violations with the event that exposed them. */
export class ViolationLog implements ViolationStream {
  readonly violations: Violation[] = [];
  private readonly listeners: ((violation: Violation) => void)[] = [];
  constructor(private readonly checker: string, private readonly limit = 50) {}

  add(event: RunEnd, message: string): void {
    if (this.violations.length >= this.limit) return;
    const violation = { checker: this.checker, message, eventIndex: event.index, atMs: event.atUs / 1000 };
    this.violations.push(violation);
    for (const listener of this.listeners) listener(violation);
  }

  onViolation(listener: (violation: Violation) => void): void {
    this.listeners.push(listener);
  }
}
