/**
 * The one strict reader of trace events for the checkers: every field a checker judges by is
 * read here, and a field that is missing or of the wrong type throws `MalformedEvent`, which
 * `guarded` / `reportMalformed` turn into a violation naming the event's index, kind and field.
 * A checker that silently read a missing field as "undefined" (or skipped the event) would prove
 * nothing about it.
 *
 * Typing. The schema (`sim/trace-schema.ts` and the layers' `trace-events.ts`) says which fields
 * each kind has. `checked(e)` views a kernel `TraceEvent` as the union of typed kinds; once a
 * `switch (c.kind)` narrows it, the readers accept only that kind's field names. The values
 * themselves stay opaque (`Unread`): they came from a trace, not from the type system, so the
 * only way to them is through a reader that checks them. On a plain `TraceEvent` the readers
 * take any field name (the checker names it; the reader still checks the value).
 *
 * Representation is read leniently, presence and type strictly: a zxid may be hex text, decimal
 * text, a bigint or a safe integer; an integer may be a number, a bigint or numeric text.
 * Shares no code with what it reads (only the zxid text parser of check/).
 */
import type { TraceEvent } from "../sim/trace.js";
import type { TraceFieldsOf, TraceKind } from "../sim/trace-schema.js";
import type { RunEnd } from "./checker.js";
import { parseZxidText } from "./zxid-text.js";

declare const unread: unique symbol;
/** A kind's fields, not yet read: only the readers below open it. */
export interface Unread<F> {
  readonly [unread]: F;
}

/** An event of kind K as a checker sees it. */
export type CheckedEventOf<K extends TraceKind> = Omit<TraceEvent, "kind" | "fields"> & { readonly kind: K; readonly fields?: Unread<TraceFieldsOf<K>> };
/** Any event of the schema, discriminated by `kind`. */
export type CheckedEvent = { [K in TraceKind]: CheckedEventOf<K> }[TraceKind];

/** The field names a reader accepts for `E`: the kind's own once narrowed, any on a plain TraceEvent. */
export type FieldName<E> = E extends { readonly fields?: Unread<infer F> } ? (F extends undefined ? never : keyof F & string) : string;

/** The event as the typed union (no copy: the same object). */
export function checked(e: TraceEvent): CheckedEvent {
  return e as unknown as CheckedEvent;
}

/** What every reader accepts: a kernel event or its checked view. */
type AnyEvent = TraceEvent | CheckedEvent;

export class MalformedEvent extends Error {
  constructor(
    readonly event: { index: number; kind: string; node: string },
    readonly field: string,
    value: unknown,
    expected: string,
  ) {
    super(
      `malformed ${event.kind} event #${event.index} on ${event.node || "world"}: field "${field}" ` +
        `${value === undefined ? "is missing" : `= ${describe(value)}`}, expected ${expected}`,
    );
  }
}

function describe(v: unknown): string {
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "object" && v !== null) return Array.isArray(v) ? "an array" : "an object";
  return String(v);
}

function raw(e: AnyEvent, field: string): unknown {
  return (e.fields as Record<string, unknown> | undefined)?.[field];
}

/** Absent (undefined or null): what the `optional…` readers return undefined for. */
function absent(e: AnyEvent, field: string): boolean {
  return raw(e, field) == null;
}

/** A zxid (or session id): hex text ("0x100000002"), decimal text, bigint or safe integer. */
export function zxidField<E extends AnyEvent>(e: E, field: FieldName<E>): bigint {
  const v = raw(e, field);
  const z = asZxid(v);
  if (z === undefined) throw new MalformedEvent(e, field, v, "a zxid");
  return z;
}

export function optionalZxidField<E extends AnyEvent>(e: E, field: FieldName<E>): bigint | undefined {
  return absent(e, field) ? undefined : zxidField(e, field);
}

function asZxid(v: unknown): bigint | undefined {
  if (typeof v === "string") return parseZxidText(v);
  if (typeof v === "bigint") return v >= 0n ? v : undefined;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return undefined;
}

/** An integer (epoch, sid, token, count): a safe integer, a bigint or numeric text. */
export function intField<E extends AnyEvent>(e: E, field: FieldName<E>): number {
  const v = raw(e, field);
  if (typeof v === "number" && Number.isSafeInteger(v)) return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string" && /^-?[0-9]+$/.test(v)) return Number(v);
  throw new MalformedEvent(e, field, v, "an integer");
}

export function optionalIntField<E extends AnyEvent>(e: E, field: FieldName<E>): number | undefined {
  return absent(e, field) ? undefined : intField(e, field);
}

/** A finite number. */
export function numberField<E extends AnyEvent>(e: E, field: FieldName<E>): number {
  const v = raw(e, field);
  if (typeof v === "number" && Number.isFinite(v)) return v;
  throw new MalformedEvent(e, field, v, "a number");
}

export function optionalNumberField<E extends AnyEvent>(e: E, field: FieldName<E>): number | undefined {
  return absent(e, field) ? undefined : numberField(e, field);
}

/** Text (a number or bigint is taken as its decimal text). */
export function stringField<E extends AnyEvent>(e: E, field: FieldName<E>): string {
  const v = raw(e, field);
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  throw new MalformedEvent(e, field, v, "text");
}

export function optionalStringField<E extends AnyEvent>(e: E, field: FieldName<E>): string | undefined {
  return absent(e, field) ? undefined : stringField(e, field);
}

/** Text that must be one of `values`. */
export function oneOfField<E extends AnyEvent, V extends string>(e: E, field: FieldName<E>, values: readonly V[]): V {
  const v = raw(e, field);
  if (typeof v === "string" && (values as readonly string[]).includes(v)) return v as V;
  throw new MalformedEvent(e, field, v, `one of ${values.join(", ")}`);
}

export function booleanField<E extends AnyEvent>(e: E, field: FieldName<E>): boolean {
  const v = raw(e, field);
  if (typeof v === "boolean") return v;
  throw new MalformedEvent(e, field, v, "true or false");
}

export function optionalBooleanField<E extends AnyEvent>(e: E, field: FieldName<E>): boolean | undefined {
  return absent(e, field) ? undefined : booleanField(e, field);
}

/** A list of texts (numbers taken as their text). */
export function stringListField<E extends AnyEvent>(e: E, field: FieldName<E>): string[] {
  const v = raw(e, field);
  if (Array.isArray(v) && v.every((x) => typeof x === "string" || typeof x === "number")) return v.map(String);
  throw new MalformedEvent(e, field, v, "a list of texts");
}

export function optionalStringListField<E extends AnyEvent>(e: E, field: FieldName<E>): string[] | undefined {
  return absent(e, field) ? undefined : stringListField(e, field);
}

/** Text or null (a value that may be absent on purpose, like ZooKeeper's null data). */
export function nullableStringField<E extends AnyEvent>(e: E, field: FieldName<E>): string | null {
  const v = raw(e, field);
  if (v === null) return null;
  return stringField(e, field);
}

/** A present field of any type, for values compared as written (a recipe's opaque value). */
export function presentField<E extends AnyEvent>(e: E, field: FieldName<E>): unknown {
  const v = raw(e, field);
  if (v === undefined) throw new MalformedEvent(e, field, v, "a value");
  return v;
}

// ---- the kernel's own properties (messages, timers, disk) ----

/** The event's numeric identity (message id, bytes, incarnation…), required. */
export function idOf(e: AnyEvent): number {
  if (typeof e.id === "number" && Number.isFinite(e.id)) return e.id;
  throw new MalformedEvent(e, "id", e.id, "a number");
}

/** The event's short detail (message type, file name, timer label), required. */
export function detailOf(e: AnyEvent): string {
  if (typeof e.detail === "string") return e.detail;
  throw new MalformedEvent(e, "detail", e.detail, "text");
}

/** The other end of a message or connection, required. */
export function peerOf(e: AnyEvent): string {
  if (typeof e.peer === "string") return e.peer;
  throw new MalformedEvent(e, "peer", e.peer, "a node id");
}

// ---- turning a malformed event into a violation ----

/** Where violations go: `ViolationLog` fits. */
export interface ViolationSink {
  add(event: RunEnd, message: string): void;
}

/** What a checker does with an error while reading: a malformed event is a violation; anything else, a bug, propagates. */
export function reportMalformed(log: ViolationSink, e: RunEnd, err: unknown): void {
  if (!(err instanceof MalformedEvent)) throw err;
  log.add(e, err.message);
}

/**
 * Runs one event's handler; a malformed event becomes a violation instead of aborting the run.
 * Handlers are a checker's own methods, passed with their receiver (`guarded(this.log, e, this,
 * this.read)`): guarded runs on every event a checker reads, so no closure is made per event.
 */
export function guarded<T, E extends RunEnd>(log: ViolationSink, e: E, self: T, handle: (this: T, e: E) => void): void {
  try {
    handle.call(self, e);
  } catch (err) {
    reportMalformed(log, e, err);
  }
}
