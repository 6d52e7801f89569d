/**
 * The trace's event kinds as types: the one contract between what runs (kernel, servers,
 * clients, recipes, teaching protocols) and what reads the trace (checkers, reports, the UI's
 * narration, `serve`'s recordings). Types only: nothing here runs, so a checker that reads these
 * types still shares no logic with the code it checks. `docs/trace.md` describes every kind.
 *
 * Two maps, kind → the type of the event's `fields`:
 * - `KernelTraceEvents`: what the kernel records itself (messages, timers, node lifecycle,
 *   network faults, disk). Most carry no fields: their facts are in `node`, `peer`, `id`,
 *   `detail` and `conn` (docs/trace.md says what each means per kind).
 * - `TraceAnnotations`: what higher layers record through `NodeContext.annotate`. Empty here;
 *   each layer adds its kinds by module augmentation in a types-only file of its own, so no
 *   central file lists them all:
 *
 *   ```ts
 *   declare module "../sim/trace-schema.js" {
 *     interface TraceAnnotations { "zab.log": { sid: number; zxid: string; txn: string } }
 *   }
 *   ```
 *
 * Types only, but for one table (`KERNEL_KIND_CLASS`: what each kernel kind records, from which
 * the fault-kind sets are read). Every reader gets `TypedTraceEvent<K>`, narrowed by `kind`.
 *
 * Invariants: a kind appears in one map only; annotation kinds are namespaced by their layer
 * (`zab.`, `client.`, `recipe.`…), kernel kinds are not. Field order in the code that writes an
 * event is part of the trace hash, so a type here never reorders anything at runtime.
 */
import type { LinkConfig } from "./link-table.js";

/** `from>to` node ids of one directed link. */
export type LinkName = string;

/** The kernel's own event kinds, with their fields (`undefined`: the kind carries none). */
export interface KernelTraceEvents {
  /** A node started for the first time (`id` = incarnation). */
  start: undefined;
  /** A node started again after a crash (`id` = incarnation). */
  restart: undefined;
  crash: undefined;
  pause: undefined;
  /** `id` = messages parked while paused, now released. */
  resume: undefined;
  clock: { rate: number };
  /** A timer fired (`id` = timer id, `detail` = its label). */
  timer: undefined;
  /** A message sent (`peer` = receiver, `id` = message id, `detail` = message type, `conn` on connections). */
  send: undefined;
  deliver: undefined;
  duplicate: undefined;
  /** `detail` = why: loss, sender-crashed, receiver-down, partition, receiver-closed. */
  drop: undefined;
  /** A segment held back by a cut link (it is delivered after the heal, or dropped). */
  hold: undefined;
  partition: { links: LinkName[] };
  heal: { links: LinkName[] };
  clog: { links: LinkName[] };
  unclog: { links: LinkName[] };
  /** `change`: the settings changed, or "defaults" when a heal put the links back to the defaults. */
  "net.config": { change: Partial<LinkConfig> | "defaults"; links: LinkName[] | "all" };
  "conn.connect": undefined;
  "conn.accept": undefined;
  "conn.open": undefined;
  "conn.refuse": undefined;
  "conn.close": undefined;
  "conn.closed": undefined;
  "conn.reset": undefined;
  "conn.refused": undefined;
  "conn.timeout": undefined;
  /** `id` = bytes, `detail` = file; `record`: the writer's label of the record (a txn's zxid), when it gave one. */
  "disk.append": { record?: string } | undefined;
  "disk.replace": undefined;
  "disk.delete": undefined;
  /** `id` = the last operation the fsync covers, `detail` = file. */
  "disk.fsync": undefined;
  "disk.fsync.done": { bytes: number };
  /** `id` = bytes lost at a crash, `detail` = file. */
  "disk.lost": { lostOps: number; tornBytes: number };
  "disk.fault": undefined;
  "disk.enospc": undefined;
  "rpc.timeout": { delivered: boolean; processed: boolean; answered: boolean };
  "rpc.late": undefined;
}

/**
 * Annotation kinds → their fields, contributed by the layers above the kernel through module
 * augmentation (see the header). `NodeContext.annotate` accepts exactly these.
 */
export interface TraceAnnotations {}

export type KernelKind = keyof KernelTraceEvents & string;
export type AnnotationKind = keyof TraceAnnotations & string;
export type TraceKind = KernelKind | AnnotationKind;

/** The fields of one kind. */
export type TraceFieldsOf<K extends TraceKind> = K extends AnnotationKind ? TraceAnnotations[K] : K extends KernelKind ? KernelTraceEvents[K] : never;

/** What every event has, whatever its kind (docs/trace.md, "One event"). */
export interface TraceEventHead {
  /** Position in the trace, from 0. */
  index: number;
  atUs: number;
  /** The node the event happened on ("" for world events such as partitions). */
  node: string;
  /** The other end, for messages and connections. */
  peer?: string;
  /** A numeric identity: message id, timer id, connection id… */
  id?: number;
  /** A short detail: the message type, the timer label… */
  detail?: string;
  /** The connection a segment travelled on (connection sends, deliveries, holds, drops). */
  conn?: number;
}

/** An event of the one kind P: `fields` is required when the kind always carries fields. */
type EventOfKind<P extends TraceKind> = TraceEventHead &
  { readonly kind: P } &
  (undefined extends TraceFieldsOf<P> ? { readonly fields?: TraceFieldsOf<P> } : { readonly fields: TraceFieldsOf<P> });

/**
 * An event of kind K (a union over K): `kind` discriminates, `fields` is that kind's. What every
 * reader of the trace gets (`Trace.subscribe`, `Checker.onEvent`); `switch (e.kind)` narrows it.
 */
export type TypedTraceEvent<K extends TraceKind = TraceKind> = Extract<AnyTraceEvent, { readonly kind: K }>;

/**
 * Every event of the schema. (`TypedTraceEvent<K>` is its members of kind K, as an `Extract`: so
 * the compiler knows an event of kinds K is an event, even where K is a type parameter.)
 */
type AnyTraceEvent = { [P in TraceKind]: EventOfKind<P> }[TraceKind];

/**
 * The one fact of the schema that code reads at run time: what each kernel kind records. The
 * compiler holds the table to `KernelTraceEvents` (every kind, once), and the fault-kind sets
 * below are read from it, so a new fault kind is named in one place.
 * - `node-fault`: a node crashes, restarts, pauses or resumes;
 * - `link-fault`: links are cut, healed, clogged or unclogged;
 * - `setting-fault`: a link's, a clock's or a disk's settings change.
 */
export const KERNEL_KIND_CLASS = {
  start: "lifecycle",
  restart: "node-fault",
  crash: "node-fault",
  pause: "node-fault",
  resume: "node-fault",
  clock: "setting-fault",
  timer: "timer",
  send: "message",
  deliver: "message",
  duplicate: "message",
  drop: "message",
  hold: "message",
  partition: "link-fault",
  heal: "link-fault",
  clog: "link-fault",
  unclog: "link-fault",
  "net.config": "setting-fault",
  "conn.connect": "connection",
  "conn.accept": "connection",
  "conn.open": "connection",
  "conn.refuse": "connection",
  "conn.close": "connection",
  "conn.closed": "connection",
  "conn.reset": "connection",
  "conn.refused": "connection",
  "conn.timeout": "connection",
  "disk.append": "disk",
  "disk.replace": "disk",
  "disk.delete": "disk",
  "disk.fsync": "disk",
  "disk.fsync.done": "disk",
  "disk.lost": "disk",
  "disk.fault": "setting-fault",
  "disk.enospc": "disk",
  "rpc.timeout": "rpc",
  "rpc.late": "rpc",
} as const satisfies { readonly [K in KernelKind]: string };

export type KernelKindClass = (typeof KERNEL_KIND_CLASS)[KernelKind];

/** The kernel kinds whose class is one of C. */
export type KernelKindOf<C extends KernelKindClass> = { [K in KernelKind]: (typeof KERNEL_KIND_CLASS)[K] extends C ? K : never }[KernelKind];

/** The kernel kinds of the given classes, in the schema's order. */
export function kernelKindsOf<C extends KernelKindClass>(...classes: C[]): readonly KernelKindOf<C>[] {
  const wanted: ReadonlySet<KernelKindClass> = new Set(classes);
  const ofClass = (k: KernelKind): k is KernelKindOf<C> => wanted.has(KERNEL_KIND_CLASS[k]);
  return (Object.keys(KERNEL_KIND_CLASS) as KernelKind[]).filter(ofClass);
}

/** The fault events that end a checker's quiet period: a node's crash, restart, pause or resume, a cut, heal, clog or unclog. */
export const NODE_AND_LINK_FAULT_KINDS = kernelKindsOf("node-fault", "link-fault");

/** Every fault event: those, and changed link, clock and disk settings (the convergence phase counts from the last). */
export const FAULT_EVENT_KINDS = kernelKindsOf("node-fault", "link-fault", "setting-fault");
