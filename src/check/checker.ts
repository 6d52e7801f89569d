/**
 * The checker contract. A checker reads trace events (and, later, client histories) as they
 * are recorded — online — and never reaches into live objects. It shares no code with what it
 * checks: a checker built on the server's own data structures would share the server's bugs.
 */
import { isOneOf, type Trace, type TraceEvent, type TraceListener } from "../sim/trace.js";
import type { TraceKind } from "../sim/trace-schema.js";
import { CheckRun, type RunServices } from "./check-run.js";

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
  /**
   * Optional, asked after `attach`: the kinds it still reads, when the run's services now follow
   * some of `kinds` for it (a checker that read the floor's kinds only to prune by the floor:
   * `FloorPruner.follow`). `kinds` still names every kind it judges by (scenario/judged.ts).
   */
  attachedKinds?(): readonly K[];
  /**
   * Optional: of the message kinds it reads (`send`, `deliver`), the message types (the event's
   * `detail`: "ACK", "NEWLEADER"…) it acts on, per kind: a list, or a test of a type (asked once
   * per type and run, so it must depend on the type alone). It ignores every other type, so a
   * dispatcher may leave those out, and the run's do: a quorum's PING, PROPOSAL, COMMIT and ACK
   * are most of a run's messages, and most readers of messages look for a few types. A kind not
   * named here: every message of it. An event with no type (malformed) reaches every reader of
   * its kind.
   */
  readonly messageTypes?: { readonly [M in MessageKind]?: MessageTypes };
}

/** The message types a checker reads of one message kind (`Checker.messageTypes`). */
export type MessageTypes = readonly string[] | ((type: string) => boolean);

/** The kinds whose events a checker may read by message type (`Checker.messageTypes`). */
export type MessageKind = "send" | "deliver";

/** The kinds a list of kinds names (`KindsOf<typeof KINDS>`, for `Checker<…>` and `onEvent`). */
export type KindsOf<L extends readonly TraceKind[]> = L[number];

/** Whether `checker` reads events of `kind`. */
export function reads(checker: Checker, kind: TraceKind): boolean {
  return checker.kinds.includes(kind);
}

/**
 * Subscribes `checkers` to `trace`: each is handed the events of its kinds (of its message types,
 * `Checker.messageTypes`), in order, as they are recorded; returns the unsubscription. The run's
 * shared services (check-run.ts) come first, so each is fed an event before the checkers read it.
 */
export function subscribeCheckers(trace: Pick<Trace, "subscribe">, checkers: readonly Checker[]): () => void {
  return subscribeCheckersInBatches(trace, checkers, 1).unsubscribe;
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
 *
 * One trace listener per kind, made once: it buffers the event with its readers (worked out per
 * kind, and per message type for a kind some checker reads by type), so handing out a batch
 * looks nothing up. The buffer is two arrays of `batch` slots made with the subscription and
 * reused: buffering an event allocates nothing (docs/benchmarks.md, "session 42").
 */
export function subscribeCheckersInBatches(trace: Pick<Trace, "subscribe">, checkers: readonly Checker[], batch = CHECK_BATCH_EVENTS): BatchedCheckers {
  const readers = new Readers(checkers);
  const buffer = batch <= 1 ? undefined : new EventBuffer(batch);
  const unsubscribe = readers.kinds.map((kind) => {
    const typed = readers.typed(kind);
    const listener = typed === undefined ? kindListener(readers.of(kind), buffer) : typedListener(typed, buffer);
    return trace.subscribe(listener, [kind]);
  });
  return {
    flush: () => buffer?.flush(),
    unsubscribe: () => unsubscribe.forEach((u) => u()),
  };
}

/** The listener of a kind every reader of which takes all its events: hands them on, or buffers them. */
function kindListener(rs: readonly EventReader[], buffer: EventBuffer | undefined): TraceListener {
  if (buffer !== undefined) return (e) => buffer.add(e, rs);
  return (e) => {
    for (let j = 0; j < rs.length; j++) rs[j]!.onEvent(e);
  };
}

/** The listener of a message kind some reader takes by type: the readers of the event's type. */
function typedListener(typed: TypedReaders, buffer: EventBuffer | undefined): TraceListener {
  if (buffer !== undefined) {
    return (e) => {
      const rs = typed.of(e.detail);
      if (rs.length > 0) buffer.add(e, rs);
    };
  }
  return (e) => {
    const rs = typed.of(e.detail);
    for (let j = 0; j < rs.length; j++) rs[j]!.onEvent(e);
  };
}

/**
 * The events waiting to be handed out, each with its readers, in order, at most `size`: slots
 * made once (up to the default batch at the start, more only as a larger batch fills them) and
 * reused. A slot is cleared as its event is handed out, so no event outlives its flush.
 */
class EventBuffer {
  private readonly events: (TraceEvent | undefined)[];
  private readonly readers: (readonly EventReader[])[];
  private n = 0;

  constructor(private readonly size: number) {
    // (`size` as given: a fraction or NaN waits as `length >= size` would.)
    const slots = size < CHECK_BATCH_EVENTS ? Math.ceil(size) : CHECK_BATCH_EVENTS;
    this.events = new Array<TraceEvent | undefined>(slots).fill(undefined);
    this.readers = new Array<readonly EventReader[]>(slots).fill(NO_READERS);
  }

  add(e: TraceEvent, rs: readonly EventReader[]): void {
    const i = this.n;
    if (i < this.events.length) {
      this.events[i] = e;
      this.readers[i] = rs;
    } else {
      this.events.push(e);
      this.readers.push(rs);
    }
    this.n = i + 1;
    if (i + 1 >= this.size) this.flush();
  }

  flush(): void {
    const events = this.events;
    const readers = this.readers;
    const n = this.n;
    for (let i = 0; i < n; i++) {
      const e = events[i]!;
      const rs = readers[i]!;
      events[i] = undefined;
      for (let j = 0; j < rs.length; j++) rs[j]!.onEvent(e);
    }
    this.n = 0;
  }
}

/**
 * What an event is handed to: a checker (its own `onEvent`, called as a method: no bound
 * function per checker) or a service of the run (check-run.ts).
 */
interface EventReader {
  onEvent(e: TraceEvent): void;
}

const NO_READERS: readonly EventReader[] = [];

/** One reader of a kind: the reader, and the message types it takes (undefined: every event of the kind). */
interface KindReader {
  read: EventReader;
  takes: ((type: string) => boolean) | undefined;
}

/** `TypedReaders`' direct-mapped table has TYPE_SLOTS entries. */
const TYPE_SLOTS = 64;

/**
 * The readers of one message kind by message type, for a kind some checker reads by type: worked
 * out once per type, then answered from a small direct-mapped table by length and two characters
 * (a type is a literal of the code: one compare of the same string), else from the map.
 */
class TypedReaders {
  private readonly byType = new Map<string, readonly EventReader[]>();
  private readonly recentTypes: (string | undefined)[] = new Array<string | undefined>(TYPE_SLOTS).fill(undefined);
  private readonly recentReaders: (readonly EventReader[])[] = new Array<readonly EventReader[]>(TYPE_SLOTS).fill(NO_READERS);
  private readonly untyped: readonly EventReader[];

  constructor(private readonly readers: readonly KindReader[]) {
    this.untyped = readers.map((r) => r.read);
  }

  of(detail: string | undefined): readonly EventReader[] {
    if (detail === undefined) return this.untyped;
    const slot = (detail.length * 7 + detail.charCodeAt(0) * 3 + detail.charCodeAt(detail.length >> 1)) & (TYPE_SLOTS - 1);
    if (this.recentTypes[slot] === detail) return this.recentReaders[slot]!;
    let rs = this.byType.get(detail);
    if (rs === undefined) {
      rs = this.readers.filter((r) => r.takes === undefined || r.takes(detail)).map((r) => r.read);
      this.byType.set(detail, rs);
    }
    this.recentTypes[slot] = detail;
    this.recentReaders[slot] = rs;
    return rs;
  }
}

/**
 * Who reads what, for one run's checkers (attached to one `CheckRun` here): per kind, the run's
 * services and then the checkers that read it, in order; per message type for a message kind
 * some checker reads by type. Worked out in one pass over each checker's kinds.
 */
class Readers {
  readonly kinds: readonly TraceKind[];
  private readonly byKind = new Map<TraceKind, KindReader[]>();

  constructor(checkers: readonly Checker[]) {
    for (const feed of attachRun(checkers).feeds()) for (const kind of feed.kinds) this.add(kind, { read: feed, takes: undefined });
    for (const c of checkers) {
      const kinds = c.attachedKinds?.() ?? c.kinds;
      for (let i = 0; i < kinds.length; i++) {
        const kind = kinds[i]!;
        // A kind named twice is read once.
        if (kinds.indexOf(kind) === i) this.add(kind, { read: c as EventReader, takes: takesOf(c, kind) });
      }
    }
    this.kinds = [...this.byKind.keys()];
  }

  private add(kind: TraceKind, reader: KindReader): void {
    const list = this.byKind.get(kind);
    if (list === undefined) this.byKind.set(kind, [reader]);
    else list.push(reader);
  }

  /** Every reader of `kind` (none for a kind no one reads). */
  of(kind: TraceKind): readonly EventReader[] {
    return (this.byKind.get(kind) ?? []).map((r) => r.read);
  }

  /** The readers of `kind` by message type, when some reader of it reads only some types. */
  typed(kind: TraceKind): TypedReaders | undefined {
    const rs = this.byKind.get(kind) ?? [];
    return rs.some((r) => r.takes !== undefined) ? new TypedReaders(rs) : undefined;
  }
}

/** Which message types `checker` takes of `kind` (undefined: every event of it). */
function takesOf(checker: Checker, kind: TraceKind): ((type: string) => boolean) | undefined {
  const types = kind === "send" || kind === "deliver" ? checker.messageTypes?.[kind] : undefined;
  if (types === undefined || typeof types === "function") return types;
  const listed = new Set(types);
  return (type) => listed.has(type);
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

/** Feeds `events` to `checkers` as a run does (each reads only its kinds and message types), then finishes them. */
export function runCheckers(checkers: readonly Checker[], events: Iterable<TraceEvent>): Violation[] {
  const readers = new Readers(checkers);
  const byKind = new Map<TraceKind, { all: readonly EventReader[]; typed: TypedReaders | undefined }>();
  let end: RunEnd | undefined;
  for (const e of events) {
    let of = byKind.get(e.kind);
    if (of === undefined) byKind.set(e.kind, (of = { all: readers.of(e.kind), typed: readers.typed(e.kind) }));
    for (const r of of.typed === undefined ? of.all : of.typed.of(e.detail)) r.onEvent(e);
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
