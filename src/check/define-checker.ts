/**
 * `defineChecker`: a checker as a few functions over a state of its own — the small form of the
 * `Checker` contract (checker.ts) for checkers written outside this project, e.g. over a user's
 * own trace events (`user.event`, src/api/). What it builds is an ordinary `Checker`: it reads
 * only the kinds it names (`accepts`), one event at a time as the run records them, never a live
 * object, and returns its violations at `finish`, each with the event that exposed it.
 *
 * Invariants: every run gets a fresh state (`start()` per instance); an exception thrown by a
 * user's `onEvent` is not swallowed: it becomes a violation naming the event, so a checker that
 * cannot read an event fails loudly instead of passing.
 */
import type { TraceEvent } from "../sim/trace.js";
import type { TraceFieldsOf, TraceKind } from "../sim/trace-schema.js";
import { UserInputError } from "../sim/errors.js";
import { ViolationLog, type Checker, type RunEnd, type Violation } from "./checker.js";
import { isTraceKind, nearestTraceKinds } from "./trace-kinds.js";

/** A trace event of kind K as a checker defined here sees it (read-only; `fields` as recorded, `{}` for a kind without). */
export type CheckerEvent<K extends TraceKind = TraceKind> = {
  [P in K]: {
    /** Position in the trace (0-based). */
    readonly index: number;
    /** Virtual time, ms since the run began. */
    readonly atMs: number;
    /** The trace kind: "user.event", "crash", "client.invoke", … (docs/trace.md). */
    readonly kind: P;
    /** The node that recorded it ("" for the world). */
    readonly node: string;
    /** The kind's fields (for "user.event": `{ name, client, data }`); `{}` when a kind that may carry none has none. */
    readonly fields: undefined extends TraceFieldsOf<P> ? Readonly<NonNullable<TraceFieldsOf<P>>> | Readonly<Record<never, never>> : Readonly<TraceFieldsOf<P>>;
  };
}[K];

/** Reports a violation at the event being read (or, in `finish`, at the run's end). */
export type ReportViolation = (message: string) => void;

/** What `defineChecker` takes. */
export interface CheckerSpec<S, K extends TraceKind = TraceKind> {
  /** The checker's name in violations, e.g. "my.lock-mutex" (namespaced: a dot, no spaces). */
  name: string;
  /** The trace kinds it reads (e.g. `["user.event", "crash"]`); others never reach `onEvent`. */
  kinds: readonly K[];
  /** A fresh state for one run. */
  start(): S;
  /** Reads one event of the kinds named. */
  onEvent(state: S, event: CheckerEvent<K>, report: ReportViolation): void;
  /** Judges what holds at the end of the run (optional). */
  finish?(state: S, report: ReportViolation): void;
}

/** A named checker: `make()` gives a fresh instance for one run. */
export interface CheckerDef {
  readonly name: string;
  make(): Checker;
}

const NAME = /^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$/;

/**
 * A checker from a spec. Throws a UserInputError naming the field when the spec is malformed —
 * among them a kind the trace never records (a typo the types catch in TypeScript, but not in
 * JavaScript or through a cast), named with the nearest kinds that exist.
 */
export function defineChecker<S, const K extends TraceKind>(spec: CheckerSpec<S, K>): CheckerDef {
  if (typeof spec !== "object" || spec === null) throw new UserInputError("defineChecker: expected a spec { name, kinds, start, onEvent, finish? }");
  if (typeof spec.name !== "string" || !NAME.test(spec.name)) throw new UserInputError(`defineChecker: name must be a dotted lower-case name like "my.lock-mutex", got ${JSON.stringify(spec.name)}`);
  if (!Array.isArray(spec.kinds) || spec.kinds.length === 0 || !spec.kinds.every((k) => typeof k === "string" && k !== "")) {
    throw new UserInputError(`defineChecker(${spec.name}): kinds must be a non-empty list of trace kinds, got ${JSON.stringify(spec.kinds)}`);
  }
  const unknown = spec.kinds.find((k) => !isTraceKind(k));
  if (unknown !== undefined) throw new UserInputError(`defineChecker(${spec.name}): kinds: no trace kind "${unknown}" (nearest: ${nearestTraceKinds(unknown).join(", ")}; every kind: docs/trace.md)`);
  if (typeof spec.start !== "function") throw new UserInputError(`defineChecker(${spec.name}): start must be a function returning a fresh state`);
  if (typeof spec.onEvent !== "function") throw new UserInputError(`defineChecker(${spec.name}): onEvent must be a function`);
  if (spec.finish !== undefined && typeof spec.finish !== "function") throw new UserInputError(`defineChecker(${spec.name}): finish must be a function`);
  return { name: spec.name, make: () => new DefinedChecker(spec) };
}

class DefinedChecker<S, K extends TraceKind> implements Checker<K> {
  readonly name: string;
  readonly kinds: readonly K[];
  readonly log: ViolationLog;
  private readonly state: S;
  private at: RunEnd = { index: 0, atUs: 0 };

  constructor(private readonly spec: CheckerSpec<S, K>) {
    this.name = spec.name;
    this.kinds = [...spec.kinds];
    this.log = new ViolationLog(spec.name);
    this.state = spec.start();
  }

  onEvent(e: TraceEvent<K>): void {
    this.at = e;
    const event = { index: e.index, atMs: e.atUs / 1000, kind: e.kind, node: e.node, fields: e.fields ?? {} } as CheckerEvent<K>;
    try {
      this.spec.onEvent(this.state, event, this.report);
    } catch (err) {
      if (!(err instanceof Error)) throw err;
      this.log.add(e, `onEvent threw on ${e.kind} event #${e.index}: ${err.message}`);
    }
  }

  finish(end?: RunEnd): Violation[] {
    if (end !== undefined) this.at = end;
    this.spec.finish?.(this.state, this.report);
    return this.log.violations;
  }

  private readonly report: ReportViolation = (message) => this.log.add(this.at, message);
}
