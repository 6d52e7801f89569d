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
import type { AnnotationKind, TraceAnnotations, TraceFieldsOf, TraceKind, TypedTraceEvent } from "./trace-schema.js";
import { Mixer, canonicalJson, hashString, isPlainObject, numberWords } from "../base/structure-hash.js";

export { canonicalJson, hashString } from "../base/structure-hash.js";
export type { TraceEventHead, TraceKind } from "./trace-schema.js";

/**
 * One event of the trace, of kind K (any kind by default): the typed union of the schema
 * (`trace-schema.ts`), so `switch (e.kind)` narrows `fields` to that kind's.
 */
export type TraceEvent<K extends TraceKind = TraceKind> = TypedTraceEvent<K>;

export type TraceListener<K extends TraceKind = TraceKind> = (event: TraceEvent<K>) => void;
/** A listener of some kinds, as the trace keeps it: handed only events of its kinds (see `subscribe`). */
type KindListener = (event: never) => void;

/** What follows `detail` in `record`: the kind's fields (required when it always has some), then the connection. */
type FieldsAndConn<K extends TraceKind> = undefined extends TraceFieldsOf<K> ? [fields?: TraceFieldsOf<K>, conn?: number] : [fields: TraceFieldsOf<K>, conn?: number];

/** An event's fields as the hash takes them: any plain object (the schema types them per kind). */
type FieldObject = object;
/** The same, as the hash walks it: key by key, in the order the writer wrote them. */
type FieldValues = { readonly [key: string]: unknown };

const STRING_CACHE_LIMIT = 4096;
const MAX_REMEMBERED_KEYS = 16;
/** `stringHash`'s direct-mapped table has RECENT_MASK + 1 entries. */
const RECENT_MASK = 127;
/** `kindInfo`'s direct-mapped table has RECENT_KIND_MASK + 1 entries. */
const RECENT_KIND_MASK = 63;

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
  kind: TraceKind;
  hash: number;
  fields: KeyCache;
  count: number;
  listeners: KindListener[] | undefined;
}


export class Trace extends Mixer {
  private n = 0;
  private readonly listeners: { listener: KindListener; kinds: ReadonlySet<string> | undefined }[] = [];
  private readonly stringHashes = new Map<string, number>();
  /** `stringHash`'s direct-mapped table in front of `stringHashes`. */
  private readonly recentStrings: (string | undefined)[] = new Array<string | undefined>(RECENT_MASK + 1).fill(undefined);
  private readonly recentHashes = new Int32Array(RECENT_MASK + 1);
  private readonly kinds = new Map<TraceKind, KindInfo>();
  /** `kindInfo`'s direct-mapped table in front of `kinds`. */
  private readonly recentKinds: (KindInfo | undefined)[] = new Array<KindInfo | undefined>(RECENT_KIND_MASK + 1).fill(undefined);
  private lastAtUs = 0;
  /** `recordHashed`'s scratch: an event's words before its fields (at most 10) and its connection (2). */
  private readonly eventWords = new Int32Array(12);

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
   * Calls `listener` with every event of `kinds` (all kinds without it), in order, after the
   * event is hashed. Listeners of one kind run in subscription order.
   */
  subscribe(listener: TraceListener): () => void;
  subscribe<K extends TraceKind>(listener: TraceListener<K>, kinds: readonly K[]): () => void;
  subscribe<K extends TraceKind>(listener: TraceListener<K>, kinds?: readonly K[]): () => void {
    return this.addListener(listener as KindListener, kinds === undefined ? undefined : new Set<string>(kinds));
  }

  /**
   * `subscribe` for kinds named at run time (a fault trigger's `after`, from a scenario file): the
   * listener gets events of any kind, and a name that is no kind of the schema never matches.
   */
  subscribeNamed(listener: TraceListener, kindNames: readonly string[]): () => void {
    return this.addListener(listener as KindListener, new Set(kindNames));
  }

  private addListener(listener: KindListener, kinds: ReadonlySet<string> | undefined): () => void {
    const entry = { listener, kinds };
    this.listeners.push(entry);
    this.listenersChanged(kinds);
    return () => {
      const i = this.listeners.indexOf(entry);
      if (i >= 0) this.listeners.splice(i, 1);
      this.listenersChanged(kinds);
    };
  }

  /** How many events of each kind were recorded, kinds in order of first appearance. */
  kindCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [kind, info] of this.kinds) out[kind] = info.count;
    return out;
  }

  /**
   * Forgets the listener lists of `kinds` (of every kind, for a listener of all kinds): only
   * those change. Scripts subscribe and unsubscribe while a run goes on (a one-shot trap on
   * `client.invoke`, a watch for a node's next `crash`); working out every kind's list again
   * each time cost more than the dispatch itself.
   */
  private listenersChanged(kinds: ReadonlySet<string> | undefined): void {
    this.wantObjects = this.retain || this.listeners.length > 0;
    if (kinds === undefined) {
      for (const info of this.kinds.values()) info.listeners = undefined;
      return;
    }
    for (const kind of kinds) {
      const info = this.kinds.get(kind as TraceKind);
      if (info !== undefined) info.listeners = undefined;
    }
  }

  private listenersOf(kind: TraceKind, info: KindInfo): KindListener[] {
    const ls: KindListener[] = [];
    for (const { listener, kinds } of this.listeners) if (kinds === undefined || kinds.has(kind)) ls.push(listener);
    info.listeners = ls;
    return ls;
  }

  /** The 64-bit rolling hash as 16 hex digits. */
  hash(): string {
    return hex32(this.h2) + hex32(this.h1);
  }

  /**
   * Records one event. `id` and `detail` are the cheap identity of hot-path events; the kind's
   * `fields` carry anything else (hashed through canonical JSON, so keep them off the hottest paths).
   */
  record<K extends TraceKind>(atUs: number, kind: K, node: string, peer?: string, id?: number, detail?: string, ...fieldsAndConn: FieldsAndConn<K>): void;
  // The implementation takes the fields and the connection as plain parameters: a rest array
  // would be built on every call the compiler does not inline.
  record(atUs: number, kind: TraceKind, node: string, peer?: string, id?: number, detail?: string, fields?: FieldObject, conn?: number): void {
    const peerHash = peer === undefined ? undefined : this.stringHash(peer);
    this.recordHashed(atUs, this.kindInfo(kind), node, this.stringHash(node), peer, peerHash, id, detail, fields, conn);
  }

  /** A node's annotation, with the node's hash (`hashString(node)`) precomputed by the caller. */
  annotation<K extends AnnotationKind>(atUs: number, kind: K, node: string, nodeHash: number, fields: TraceAnnotations[K], peer?: string): void {
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
    fields: FieldObject | undefined,
    conn: number | undefined,
  ): void {
    const index = this.n++;
    this.lastAtUs = atUs;
    kindInfo.count++;
    // The event's words are written to a scratch array and folded in one loop (`foldWords`:
    // the lanes in locals, loaded and stored once), not a call per word that loads and stores
    // both lanes: that was most of the hash's cost. Without fields, the connection follows the
    // detail directly in the canonical sequence, so it joins the same fold.
    const words = this.eventWords;
    let k = numberWords(index, words, 0);
    k = numberWords(atUs, words, k);
    words[k++] = kindInfo.hash;
    words[k++] = nodeHash;
    if (peerHash !== undefined) words[k++] = peerHash;
    if (id !== undefined) k = numberWords(id, words, k);
    if (detail !== undefined) words[k++] = this.stringHash(detail);
    if (fields === undefined) {
      if (conn !== undefined) k = numberWords(conn, words, k);
      this.foldWords(words, k);
    } else {
      this.foldWords(words, k);
      this.mixCachedFields(fields, kindInfo.fields);
      if (conn !== undefined) this.mixNumber(conn);
    }
    if (this.keepHashes) this.hashHistory.push(this.h1 ^ this.h2);
    if (!this.wantObjects) return;
    const kind = kindInfo.kind;
    const listeners = kindInfo.listeners ?? this.listenersOf(kind, kindInfo);
    if (listeners.length === 0 && !this.retain) return;
    // Every event object has all nine properties (absent ones undefined), so the checkers that
    // read them see one object shape, not one per combination of present properties.
    // The one place an event is assembled from its parts: `record` and `annotation` took the
    // fields of `kind` (typed per kind there), so this is an event of the schema's union.
    const event = { index, atUs, kind, node, peer, id, detail, fields, conn } as TraceEvent;
    if (this.retain) this.events.push(event);
    // Each listener subscribed to this kind (listenersOf), so the event is one of its kinds.
    for (let i = 0; i < listeners.length; i++) listeners[i]!(event as never);
  }

  /**
   * The kind's entry: from a small direct-mapped table by length and two characters (a kind is
   * a literal of the code, so one compare of the same string), else from the map.
   */
  private kindInfo(kind: TraceKind): KindInfo {
    const slot = (kind.length * 5 + kind.charCodeAt(kind.length - 1) * 3 + kind.charCodeAt(kind.length >> 1)) & RECENT_KIND_MASK;
    const recent = this.recentKinds[slot];
    if (recent !== undefined && recent.kind === kind) return recent;
    let info = this.kinds.get(kind);
    if (info === undefined) {
      // Never cleared: kinds are the code's fixed vocabulary, and the table holds their counts.
      info = { kind, hash: this.stringHash(kind), fields: newKeyCache(), count: 0, listeners: undefined };
      this.kinds.set(kind, info);
    }
    this.recentKinds[slot] = info;
    return info;
  }

  /**
   * `mixFields` with key hashes remembered by position, for an event's fields and (through
   * `nested`) the plain objects inside them: the same canonical sequence. Objects of one shape
   * nearly always carry the same keys in the same order, so a key is usually an identity
   * compare, not a map lookup.
   */
  private mixCachedFields(fields: FieldObject, cache: KeyCache): void {
    const keys = cache.keys;
    const keyHashes = cache.keyHashes;
    // The lanes in locals, each word folded inline (`mixWord`'s fold: a call per word, or words
    // gathered for `foldWords`, cost more); stored around a value mixed through the lanes.
    const lanes = this.mixLanes;
    let h1 = lanes[0]!;
    let h2 = lanes[1]!;
    let i = 0;
    const values = fields as FieldValues;
    for (const key in values) {
      const v = values[key];
      if (v === undefined) continue;
      let w: number;
      if (keys[i] === key) {
        w = keyHashes[i]!;
      } else {
        w = this.stringHash(key);
        if (i < MAX_REMEMBERED_KEYS) {
          keys[i] = key;
          keyHashes[i] = w;
        }
      }
      // The key's word, then the value's when it is one (a string, or a number that is a
      // uint32: one word each, as `mixValue` folds them), in one loop of `mixWord`'s fold.
      let valueWord = 0;
      let n = 2;
      if (typeof v === "string") valueWord = hashString(v);
      else if (typeof v === "number" && v >>> 0 === v) valueWord = v | 0;
      else n = 1;
      for (let j = 0; j < n; j++, w = valueWord) {
        h1 = Math.imul(h1 ^ w, 0x85ebca6b);
        h1 = (h1 << 13) | (h1 >>> 19);
        h2 = (h2 + w) | 0;
        h2 = Math.imul(h2 ^ (h2 >>> 16), 0xc2b2ae35);
        h2 = Math.imul(h2 ^ h1, 0xcc9e2d51);
        h2 ^= h2 >>> 13;
      }
      if (n === 1) {
        // Plain objects with this position's cache; the rest through `mixValue`.
        lanes[0] = h1;
        lanes[1] = h2;
        if (i < MAX_REMEMBERED_KEYS && isPlainObject(v)) {
          this.mixWord(6);
          this.mixCachedFields(v, (cache.nested[i] ??= newKeyCache()));
          this.mixWord(7);
        } else {
          this.mixValue(v);
        }
        h1 = lanes[0]!;
        h2 = lanes[1]!;
      }
      i++;
    }
    lanes[0] = h1;
    lanes[1] = h2;
  }

  /**
   * `hashString(s)`, remembered. A small direct-mapped table by length and two characters
   * answers most look-ups with one string compare (node ids, message types, field keys recur
   * every event); the map behind it holds the rest.
   */
  protected override stringHash(s: string): number {
    const slot = (s.length * 7 + s.charCodeAt(0) * 3 + s.charCodeAt(s.length >> 1)) & RECENT_MASK;
    if (this.recentStrings[slot] === s) return this.recentHashes[slot]!;
    let h = this.stringHashes.get(s);
    if (h === undefined) {
      h = hashString(s);
      if (this.stringHashes.size >= STRING_CACHE_LIMIT) this.stringHashes.clear();
      this.stringHashes.set(s, h);
    }
    this.recentStrings[slot] = s;
    this.recentHashes[slot] = h;
    return h;
  }
}

function hex32(x: number): string {
  return (x >>> 0).toString(16).padStart(8, "0");
}


/**
 * The value of a field named at run time (a fault trigger's `fields`, from a scenario file), of
 * an event of any kind; undefined when the kind has no such field. Code that knows the kind reads
 * `e.fields` typed instead.
 */
export function fieldNamed(e: TraceEvent, name: string): unknown {
  const fields: FieldObject | undefined = e.fields;
  return fields === undefined ? undefined : (fields as FieldValues)[name];
}

/** Whether `e` is of kind K (a type guard: where K is a type parameter, `e.kind === kind` does not narrow). */
export function isOfKind<K extends TraceKind>(e: TraceEvent, kind: K): e is TraceEvent<K> {
  return e.kind === kind;
}

/** Whether `e` is of one of `kinds` (a type guard, as `isOfKind`). */
export function isOneOf<K extends TraceKind>(e: TraceEvent, kinds: readonly K[]): e is TraceEvent<K> {
  return (kinds as readonly TraceKind[]).includes(e.kind);
}

/** One JSON line per event, as `--trace FILE` writes them. */
export function traceEventToJsonLine(e: TraceEvent): string {
  return canonicalJson({ i: e.index, atUs: e.atUs, kind: e.kind, node: e.node, peer: e.peer, id: e.id, detail: e.detail, fields: e.fields, conn: e.conn });
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
