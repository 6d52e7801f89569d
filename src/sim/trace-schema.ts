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
 * Invariants: a kind appears in one map only; annotation kinds are namespaced by their layer
 * (`zab.`, `client.`, `recipe.`…), kernel kinds are not. Field order in the code that writes an
 * event is part of the trace hash, so a type here never reorders anything at runtime.
 */
import type { TraceEvent } from "./trace.js";

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
  "net.config": { change: unknown; links: LinkName[] | "all" };
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

/** An event of kind K (a union over K): `kind` discriminates, `fields` is that kind's. */
export type TypedTraceEvent<K extends TraceKind = TraceKind> = {
  [P in K]: Omit<TraceEvent, "kind" | "fields"> & { readonly kind: P; readonly fields?: TraceFieldsOf<P> };
}[K];
