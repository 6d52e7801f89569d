/**
 * The one strict reader of trace events for the checkers: every field a checker judges by is
 * read here, and a field that is missing or of the wrong type throws `MalformedEvent`, which
 * `guarded` / `reportMalformed` turn into a violation naming the event's index, kind and field.
 * A checker that silently read a missing field as "undefined" (or skipped the event) would prove
 * nothing about it.
 *
 * Typing. Checkers get events of the schema's typed union (`TraceEvent<K>`); once a `switch
 * (e.kind)` narrows one, the readers accept only that kind's field names (a typo is a compile
 * error). The values are still checked here: the types say what the writer meant, the reader
 * proves what the event holds. Nested values (a client result's Stat, a multi's sub-ops) are
 * read by the same rules through the `…Value` readers, named by their path ("result.stat.mzxid").
 *
 * Representation is read leniently, presence and type strictly: a zxid may be hex text, decimal
 * text, a bigint or a safe integer; an integer may be a number, a bigint or numeric text.
 * Shares no code with what it reads (only the zxid text parser of check/).
 */
import type { TraceEvent } from "../sim/trace.js";
import type { RunEnd } from "./checker.js";
import { parseZxidText } from "./zxid-text.js";

/** The field names of a fields type (of every member, when the kind's fields are a union). */
type KeysOf<F> = F extends object ? keyof F & string : never;

/** The field names a reader accepts for `E`: the narrowed kind's own (of every kind in E, for a union). */
export type FieldName<E extends TraceEvent> = E extends TraceEvent ? KeysOf<E["fields"]> : never;

/** What an event (or a nested object of it) holds before a reader checked it. */
export type Untrusted = { readonly [field: string]: unknown };

/** What a reader needs of an event: the kernel's head, to name it, and its fields. */
type AnyEvent = Pick<TraceEvent, "index" | "kind" | "node" | "fields" | "id" | "detail" | "peer">;

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

/**
 * The field as written. Each reader reads it once (an `optional…` reader too: absent, or the
 * value it checks): every checker's reads of every event come through here.
 */
function raw(e: AnyEvent, field: string): unknown {
  const f: object | undefined = e.fields;
  return f === undefined || f === null ? undefined : (f as Untrusted)[field];
}


/**
 * The request a txn digest names (`zab.propose`, `zab.log`: `<hash>:<session hex>:<cxid>`, the
 * session id in signed hex), as `zk.apply` names it: session `0x…` (unsigned), cxid. The answer
 * is shared (frozen): the readers of one event ask one after another, and the last digest read
 * answers without parsing it again.
 */
export function txnRequestField<E extends TraceEvent>(e: E, field: FieldName<E>): Readonly<{ session: string; cxid: number }> {
  const digest = stringField(e, field);
  if (digest === lastDigest) return lastRequest!;
  const cut = digest.lastIndexOf(":");
  const before = digest.lastIndexOf(":", cut - 1);
  const hex = digest.slice(before + 1, cut);
  const negative = hex.startsWith("-");
  const digits = negative ? hex.slice(1) : hex;
  const cxid = Number(digest.slice(cut + 1));
  if (cut < 0 || before < 0 || !/^[0-9a-f]+$/i.test(digits) || !Number.isInteger(cxid)) throw new MalformedEvent(e, field, digest, "a txn digest naming its request (<hash>:<session hex>:<cxid>)");
  const id = BigInt(`0x${digits}`);
  lastRequest = Object.freeze({ session: `0x${BigInt.asUintN(64, negative ? -id : id).toString(16)}`, cxid });
  lastDigest = digest;
  return lastRequest;
}
let lastDigest: string | undefined;
let lastRequest: Readonly<{ session: string; cxid: number }> | undefined;

/** A zxid (or session id): hex text ("0x100000002"), decimal text, bigint or safe integer. */
export function zxidField<E extends TraceEvent>(e: E, field: FieldName<E>): bigint {
  return zxidValue(e, field, raw(e, field));
}

export function optionalZxidField<E extends TraceEvent>(e: E, field: FieldName<E>): bigint | undefined {
  const v = raw(e, field);
  return v == null ? undefined : zxidValue(e, field, v);
}

/** An integer (epoch, sid, token, count): a safe integer, a bigint or numeric text. */
export function intField<E extends TraceEvent>(e: E, field: FieldName<E>): number {
  return intValue(e, field, raw(e, field));
}

export function optionalIntField<E extends TraceEvent>(e: E, field: FieldName<E>): number | undefined {
  const v = raw(e, field);
  return v == null ? undefined : intValue(e, field, v);
}

/** A finite number. */
export function numberField<E extends TraceEvent>(e: E, field: FieldName<E>): number {
  return finiteNumber(e, field, raw(e, field));
}

function finiteNumber(e: AnyEvent, where: string, v: unknown): number {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  throw new MalformedEvent(e, where, v, "a number");
}

export function optionalNumberField<E extends TraceEvent>(e: E, field: FieldName<E>): number | undefined {
  const v = raw(e, field);
  return v == null ? undefined : finiteNumber(e, field, v);
}

/** Text (a number or bigint is taken as its decimal text). */
export function stringField<E extends TraceEvent>(e: E, field: FieldName<E>): string {
  return stringValue(e, field, raw(e, field));
}

export function optionalStringField<E extends TraceEvent>(e: E, field: FieldName<E>): string | undefined {
  const v = raw(e, field);
  return v == null ? undefined : stringValue(e, field, v);
}

/** Text that must be one of `values`. */
export function oneOfField<E extends TraceEvent, V extends string>(e: E, field: FieldName<E>, values: readonly V[]): V {
  return oneOfValue(e, field, raw(e, field), values);
}

export function optionalOneOfField<E extends TraceEvent, V extends string>(e: E, field: FieldName<E>, values: readonly V[]): V | undefined {
  const v = raw(e, field);
  return v == null ? undefined : oneOfValue(e, field, v, values);
}

export function booleanField<E extends TraceEvent>(e: E, field: FieldName<E>): boolean {
  return booleanValue(e, field, raw(e, field));
}

export function optionalBooleanField<E extends TraceEvent>(e: E, field: FieldName<E>): boolean | undefined {
  const v = raw(e, field);
  return v == null ? undefined : booleanValue(e, field, v);
}

/** A list of texts (numbers taken as their text). */
export function stringListField<E extends TraceEvent>(e: E, field: FieldName<E>): string[] {
  return stringListValue(e, field, raw(e, field));
}

export function optionalStringListField<E extends TraceEvent>(e: E, field: FieldName<E>): string[] | undefined {
  const v = raw(e, field);
  return v == null ? undefined : stringListValue(e, field, v);
}

/** Text or null (a value that may be absent on purpose, like ZooKeeper's null data). */
export function nullableStringField<E extends TraceEvent>(e: E, field: FieldName<E>): string | null {
  return nullableStringValue(e, field, raw(e, field));
}

/** A present field of any type, for values compared as written (a recipe's opaque value). */
export function presentField<E extends TraceEvent>(e: E, field: FieldName<E>): unknown {
  const v = raw(e, field);
  if (v === undefined) throw new MalformedEvent(e, field, v, "a value");
  return v;
}

/** A field holding an object (a client result), to read on with the `…Value` readers; undefined when absent. */
export function optionalObjectField<E extends TraceEvent>(e: E, field: FieldName<E>): Untrusted | undefined {
  const v = raw(e, field);
  return v == null ? undefined : objectValue(e, field, v);
}

/** A field holding a list, to read on with the `…Value` readers. */
export function listField<E extends TraceEvent>(e: E, field: FieldName<E>): readonly unknown[] {
  return listValue(e, field, raw(e, field));
}

// ---- nested values: `where` names the value in the message ("result.stat.mzxid") ----

export function zxidValue(e: AnyEvent, where: string, v: unknown): bigint {
  const z = asZxid(v);
  if (z === undefined) throw new MalformedEvent(e, where, v, "a zxid");
  return z;
}

function asZxid(v: unknown): bigint | undefined {
  if (typeof v === "string") return parseZxidText(v);
  if (typeof v === "bigint") return v >= 0n ? v : undefined;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return undefined;
}

export function intValue(e: AnyEvent, where: string, v: unknown): number {
  if (typeof v === "number" && Number.isSafeInteger(v)) return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string" && /^-?[0-9]+$/.test(v)) return Number(v);
  throw new MalformedEvent(e, where, v, "an integer");
}

export function stringValue(e: AnyEvent, where: string, v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  throw new MalformedEvent(e, where, v, "text");
}

export function nullableStringValue(e: AnyEvent, where: string, v: unknown): string | null {
  return v === null ? null : stringValue(e, where, v);
}

export function oneOfValue<V extends string>(e: AnyEvent, where: string, v: unknown, values: readonly V[]): V {
  if (typeof v === "string" && (values as readonly string[]).includes(v)) return v as V;
  throw new MalformedEvent(e, where, v, `one of ${values.join(", ")}`);
}

export function booleanValue(e: AnyEvent, where: string, v: unknown): boolean {
  if (typeof v === "boolean") return v;
  throw new MalformedEvent(e, where, v, "true or false");
}

export function stringListValue(e: AnyEvent, where: string, v: unknown): string[] {
  if (Array.isArray(v) && v.every((x) => typeof x === "string" || typeof x === "number")) return v.map(String);
  throw new MalformedEvent(e, where, v, "a list of texts");
}

export function objectValue(e: AnyEvent, where: string, v: unknown): Untrusted {
  if (typeof v === "object" && v !== null && !Array.isArray(v)) return v as Untrusted;
  throw new MalformedEvent(e, where, v, "an object");
}

export function listValue(e: AnyEvent, where: string, v: unknown): readonly unknown[] {
  if (Array.isArray(v)) return v;
  throw new MalformedEvent(e, where, v, "a list");
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
