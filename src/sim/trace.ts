/**
 * The trace: every event of a run, in order, with a rolling 64-bit hash of its canonical form.
 *
 * Canonical form of one event: the sequence (index, atUs, kind, node, peer, id, detail,
 * fields-as-canonical-JSON). The hash folds those values into two 32-bit lanes; it is cheap
 * enough to leave on for every event (no string building on the hot path: message sends and
 * deliveries pass a number and a short, cached string). Full event objects are built only when
 * somebody wants them: a listener of that kind (online checkers read a few kinds each, the UI
 * all) or retention (`--trace FILE`).
 *
 * Same seed + same scenario + same code ⇒ same hash, in the same process or a fresh one.
 *
 * The kinds and their fields are typed in `trace-schema.ts` (documented in docs/trace.md):
 * `record` takes only a kind of the schema.
 */
import type { AnnotationKind, TraceKind } from "./trace-schema.js";
import { Mixer, canonicalJson, hashString, isPlainObject } from "../base/structure-hash.js";

export { canonicalJson, hashString } from "../base/structure-hash.js";

export interface TraceEvent {
  /** Position in the trace, from 0. */
  index: number;
  atUs: number;
  kind: string;
  /** The node the event happened on ("" for world events such as partitions). */
  node: string;
  /** The other end, for messages and connections. */
  peer?: string;
  /** A numeric identity: message id, timer id, connection id… */
  id?: number;
  /** A short detail: the message type, the timer label… */
  detail?: string;
  /** Structured fields from higher layers (annotations, faults, disk). */
  fields?: Record<string, unknown>;
  /** The connection a segment travelled on (connection sends, deliveries, holds, drops). */
  conn?: number;
}

export type TraceListener = (event: TraceEvent) => void;
/** Which event kinds a listener reads; asked once per kind (and again after a (un)subscribe). */
export type KindFilter = (kind: string) => boolean;

const STRING_CACHE_LIMIT = 4096;
const MAX_REMEMBERED_KEYS = 16;

/**
 * The keys (with hashes) last seen at each position of one shape of plain object: an event
 * kind's fields, or the object under one of their keys (a Stat under `result`…), recursively.
 */
interface KeyCache {
  keys: string[];
  keyHashes: number[];
  /** Per position: the cache of the plain object found there (created on first sight). */
  nested: (KeyCache | undefined)[];
}

function newKeyCache(): KeyCache {
  return { keys: [], keyHashes: [], nested: [] };
}

/**
 * Per event kind: the kind's hash, its fields' key cache, how many events of it there were,
 * and the listeners that read it (undefined: not worked out yet).
 */
interface KindInfo {
  kind: string;
  hash: number;
  fields: KeyCache;
  count: number;
  listeners: TraceListener[] | undefined;
}


export class Trace extends Mixer {
  private n = 0;
  private readonly listeners: { listener: TraceListener; accepts: KindFilter | undefined }[] = [];
  private readonly stringHashes = new Map<string, number>();
  private readonly kinds = new Map<string, KindInfo>();
  private lastAtUs = 0;
  private readonly messageKinds: (KindInfo | undefined)[] = new Array<KindInfo | undefined>(8).fill(undefined);
  /** Retained events (only when `retain` is on). */
  readonly events: TraceEvent[] = [];
  /** Per-event hash snapshots (only when `keepHashes` is on), to find a first divergence. */
  readonly hashHistory: number[] = [];
  private wantObjects: boolean;

  constructor(
    readonly retain = false,
    readonly keepHashes = false,
  ) {
    super();
    this.wantObjects = retain;
  }

  get count(): number {
    return this.n;
  }

  /** The last event's position and time (index -1 before the first). */
  get last(): { index: number; atUs: number } {
    return { index: this.n - 1, atUs: this.lastAtUs };
  }

  /**
   * Calls `listener` with every event of the kinds `accepts` takes (all kinds without it), in
   * order, after the event is hashed. Listeners of one kind run in subscription order.
   */
  subscribe(listener: TraceListener, accepts?: KindFilter): () => void {
    const entry = { listener, accepts };
    this.listeners.push(entry);
    this.listenersChanged();
    return () => {
      const i = this.listeners.indexOf(entry);
      if (i >= 0) this.listeners.splice(i, 1);
      this.listenersChanged();
    };
  }

  /** How many events of each kind were recorded, kinds in order of first appearance. */
  kindCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [kind, info] of this.kinds) out[kind] = info.count;
    return out;
  }

  private listenersChanged(): void {
    this.wantObjects = this.retain || this.listeners.length > 0;
    for (const info of this.kinds.values()) info.listeners = undefined;
  }

  private listenersOf(kind: string, info: KindInfo): TraceListener[] {
    const ls: TraceListener[] = [];
    for (const { listener, accepts } of this.listeners) if (accepts === undefined || accepts(kind)) ls.push(listener);
    info.listeners = ls;
    return ls;
  }

  /** The 64-bit rolling hash as 16 hex digits. */
  hash(): string {
    return hex32(this.h2) + hex32(this.h1);
  }

  /**
   * Records one event. `id` and `detail` are the cheap identity of hot-path events; `fields`
   * carry anything else (hashed through canonical JSON, so keep them off the hottest paths).
   */
  record(
    atUs: number,
    kind: TraceKind,
    node: string,
    peer?: string,
    id?: number,
    detail?: string,
    fields?: Record<string, unknown>,
    conn?: number,
  ): void {
    const peerHash = peer === undefined ? undefined : this.stringHash(peer);
    this.recordHashed(atUs, this.kindInfo(kind), node, this.stringHash(node), peer, peerHash, id, detail, fields, conn);
  }

  /** A node's annotation, with the node's hash (`hashString(node)`) precomputed by the caller. */
  annotation(atUs: number, kind: AnnotationKind, node: string, nodeHash: number, fields: Record<string, unknown> | undefined, peer?: string): void {
    const peerHash = peer === undefined ? undefined : this.stringHash(peer);
    this.recordHashed(atUs, this.kindInfo(kind), node, nodeHash, peer, peerHash, undefined, undefined, fields, undefined);
  }

  /**
   * The hot path for message events: `record` with the kind, node and peer hashes precomputed
   * by the caller (`hashString` of the same strings), and the kind found without a map lookup.
   */
  recordMessage(
    atUs: number,
    kind: "send" | "deliver",
    kindHash: number,
    node: string,
    nodeHash: number,
    peer: string,
    peerHash: number,
    id: number,
    detail: string,
    conn?: number,
  ): void {
    let info = this.messageKinds[kindHash & 7];
    if (info === undefined || info.kind !== kind) this.messageKinds[kindHash & 7] = info = this.kindInfo(kind);
    this.recordHashed(atUs, info, node, nodeHash, peer, peerHash, id, detail, undefined, conn);
  }

  /** The one canonical sequence every event is hashed in; then its listeners, if any. */
  private recordHashed(
    atUs: number,
    kindInfo: KindInfo,
    node: string,
    nodeHash: number,
    peer: string | undefined,
    peerHash: number | undefined,
    id: number | undefined,
    detail: string | undefined,
    fields: Record<string, unknown> | undefined,
    conn: number | undefined,
  ): void {
    const index = this.n++;
    this.lastAtUs = atUs;
    kindInfo.count++;
    this.mixNumber(index);
    this.mixNumber(atUs);
    this.mixWord(kindInfo.hash);
    this.mixWord(nodeHash);
    if (peerHash !== undefined) this.mixWord(peerHash);
    if (id !== undefined) this.mixNumber(id);
    if (detail !== undefined) this.mixWord(this.stringHash(detail));
    if (fields !== undefined) this.mixCachedFields(fields, kindInfo.fields);
    if (conn !== undefined) this.mixNumber(conn);
    if (this.keepHashes) this.hashHistory.push(this.h1 ^ this.h2);
    if (!this.wantObjects) return;
    const kind = kindInfo.kind;
    const listeners = kindInfo.listeners ?? this.listenersOf(kind, kindInfo);
    if (listeners.length === 0 && !this.retain) return;
    // Every event object has all nine properties (absent ones undefined), so the checkers that
    // read them see one object shape, not one per combination of present properties.
    const event: TraceEvent = { index, atUs, kind, node, peer, id, detail, fields, conn };
    if (this.retain) this.events.push(event);
    for (let i = 0; i < listeners.length; i++) listeners[i]!(event);
  }

  private kindInfo(kind: string): KindInfo {
    let info = this.kinds.get(kind);
    if (info === undefined) {
      // Never cleared: kinds are the code's fixed vocabulary, and the table holds their counts.
      info = { kind, hash: this.stringHash(kind), fields: newKeyCache(), count: 0, listeners: undefined };
      this.kinds.set(kind, info);
    }
    return info;
  }

  /**
   * `mixFields` with key hashes remembered by position, for an event's fields and (through
   * `nested`) the plain objects inside them: the same canonical sequence. Objects of one shape
   * nearly always carry the same keys in the same order, so a key is usually an identity
   * compare, not a map lookup.
   */
  private mixCachedFields(fields: Record<string, unknown>, cache: KeyCache): void {
    const keys = cache.keys;
    const keyHashes = cache.keyHashes;
    let i = 0;
    for (const key in fields) {
      const v = fields[key];
      if (v === undefined) continue;
      let kh: number;
      if (keys[i] === key) {
        kh = keyHashes[i]!;
      } else {
        kh = this.stringHash(key);
        if (i < MAX_REMEMBERED_KEYS) {
          keys[i] = key;
          keyHashes[i] = kh;
        }
      }
      this.mixWord(kh);
      // Strings (most values) inline; plain objects with this position's cache; the rest as mixValue.
      if (typeof v === "string") {
        this.mixWord(hashString(v));
      } else if (i < MAX_REMEMBERED_KEYS && isPlainObject(v)) {
        this.mixWord(6);
        this.mixCachedFields(v, (cache.nested[i] ??= newKeyCache()));
        this.mixWord(7);
      } else {
        this.mixValue(v);
      }
      i++;
    }
  }

  protected override stringHash(s: string): number {
    let h = this.stringHashes.get(s);
    if (h === undefined) {
      h = hashString(s);
      if (this.stringHashes.size >= STRING_CACHE_LIMIT) this.stringHashes.clear();
      this.stringHashes.set(s, h);
    }
    return h;
  }
}

function hex32(x: number): string {
  return (x >>> 0).toString(16).padStart(8, "0");
}


/** One JSON line per event, as `--trace FILE` writes them. */
export function traceEventToJsonLine(e: TraceEvent): string {
  const o: Record<string, unknown> = { i: e.index, atUs: e.atUs, kind: e.kind, node: e.node };
  if (e.peer !== undefined) o.peer = e.peer;
  if (e.id !== undefined) o.id = e.id;
  if (e.detail !== undefined) o.detail = e.detail;
  if (e.fields !== undefined) o.fields = e.fields;
  if (e.conn !== undefined) o.conn = e.conn;
  return canonicalJson(o);
}

/** Human-readable one-liner, for reports and the divergence check. */
export function describeEvent(e: TraceEvent): string {
  const parts = [`#${e.index}`, `t=${formatUs(e.atUs)}`, e.kind, e.node || "world"];
  if (e.peer !== undefined) parts.push(`→ ${e.peer}`);
  if (e.detail !== undefined) parts.push(e.detail);
  if (e.id !== undefined) parts.push(`id=${e.id}`);
  if (e.conn !== undefined) parts.push(`conn=${e.conn}`);
  if (e.fields !== undefined) parts.push(canonicalJson(e.fields));
  return parts.join(" ");
}

export function formatUs(us: number): string {
  if (us % 1000 === 0) return `${us / 1000}ms`;
  return `${(us / 1000).toFixed(3)}ms`;
}
