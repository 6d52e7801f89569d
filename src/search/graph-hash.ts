/**
 * A canonical 64-bit hash of a graph of live objects — a node's process, a message payload —
 * for the model checker's state hash. Generic on purpose: every field of every object is
 * folded, so a state that differs in any protocol field hashes differently, without a
 * per-protocol list that could forget one.
 *
 * Canonical form:
 * - primitives as the trace hashes them; functions (closures) as a bare tag — what a closure
 *   captured is not visible, so protocol code keeps what a timer acts on in fields as well;
 * - an object seen before in the same walk as a back-reference to its first-visit index (so
 *   cycles and sharing are folded, not walked twice);
 * - arrays in order (but a list of node names under a renaming as a set, below); a class instance as its class name and own fields in declaration order; a
 *   plain object with its keys sorted; a Map or Set whose keys are all primitives in key order
 *   (its insertion order records only which message happened to come first), any other Map or
 *   Set in insertion order;
 * - kernel handles by what they mean, never by their absolute ids: a timer handle by its label
 *   and state (and the walk remembers where it was found, to name the pending timer); a node
 *   context by its random stream's draws; a connection endpoint by the connection's canonical
 *   name (its endpoints, port and rank, `ConnectionNames`) and its state; a random stream by its
 *   name and draws; the simulator, network, disks and trace not at all (the disk is hashed on its
 *   own, the rest is not any node's state).
 *
 * Invariant: the same graph gives the same hash in any process; a walk refuses graphs of more
 * than `MAX_OBJECTS` objects (a pointer into the world that should not be there).
 */
import { Mixer, hashString } from "../base/structure-hash.js";
import { Simulator, SimNode } from "../sim/simulator.js";
import { Connection, Endpoint, Network } from "../sim/network.js";
import { NodeContext, TimerHandle } from "../sim/node-context.js";
import { Disk, NodeDisk } from "../sim/disk.js";
import { Rng } from "../sim/rng.js";
import { Trace } from "../sim/trace.js";

const MAX_OBJECTS = 2_000_000;

const enum Tag {
  Function = 0x5f1,
  Ref,
  Array,
  Map,
  Set,
  Object,
  Class,
  Timer,
  Context,
  Endpoint,
  Rng,
  Opaque,
  Bytes,
}

/** Names a connection by its endpoints, port and rank among theirs (never its id). */
export interface ConnectionNames {
  nameOf(connectionId: number): string;
}

export class GraphHasher extends Mixer {
  private readonly seen = new Map<object, number>();
  /** Where each timer handle was first met: its visit index (stable across equal states). */
  readonly timerPlaces = new Map<TimerHandle, number>();

  /**
   * `rename`: strings to fold as other strings — node names, when the model checker hashes a
   * state as its symmetric image (a Map keyed by node is then ordered by the new names).
   */
  constructor(
    private readonly connections: ConnectionNames,
    private readonly rename?: ReadonlyMap<string, string>,
  ) {
    super();
  }

  add(v: unknown): this {
    this.walk(v);
    return this;
  }

  /** The hash so far, as two 32-bit lanes. */
  lanes(): [number, number] {
    return [this.h1 >>> 0, this.h2 >>> 0];
  }

  private walk(v: unknown): void {
    if (typeof v === "function") return this.mixWord(Tag.Function);
    if (typeof v === "string" && this.rename !== undefined) return this.mixValue(this.rename.get(v) ?? v);
    if (typeof v !== "object" || v === null || (!Array.isArray(v) && ArrayBuffer.isView(v) && !(v instanceof Uint8Array))) return this.mixValue(v);
    const index = this.seen.get(v);
    if (index !== undefined) {
      this.mixWord(Tag.Ref);
      this.mixNumber(index);
      return;
    }
    if (this.seen.size >= MAX_OBJECTS) throw new Error(`state hash: more than ${MAX_OBJECTS} objects reachable from one node's state`);
    this.seen.set(v, this.seen.size);
    if (Array.isArray(v)) {
      this.mixWord(Tag.Array);
      this.mixNumber(v.length);
      // Under a renaming, a list of renamed names (a configuration: "the participants") is a set:
      // its order is only the order the model sends in, which the network does not keep.
      const rename = this.rename;
      const names = rename !== undefined && v.length > 1 && v.every((x) => typeof x === "string" && rename.has(x));
      if (names) for (const n of (v as string[]).map((x) => rename.get(x)!).sort()) this.mixValue(n);
      else for (const x of v) this.walk(x);
    } else if (v instanceof Uint8Array) {
      this.mixWord(Tag.Bytes);
      this.mixBytes(v);
    } else if (v instanceof Map) {
      this.mixWord(Tag.Map);
      this.mixNumber(v.size);
      for (const k of keyOrder(v.keys(), this.rename)) {
        this.walk(k);
        this.walk(v.get(k));
      }
    } else if (v instanceof Set) {
      this.mixWord(Tag.Set);
      this.mixNumber(v.size);
      for (const k of keyOrder(v.values(), this.rename)) this.walk(k);
    } else {
      this.walkObject(v);
    }
  }

  private walkObject(v: object): void {
    if (v instanceof TimerHandle) {
      this.timerPlaces.set(v, this.seen.get(v)!);
      this.mixWord(Tag.Timer);
      this.mixWord(hashString(v.label));
      this.mixWord((v.cancelled ? 1 : 0) | (v.fired ? 2 : 0));
    } else if (v instanceof NodeContext) {
      this.mixWord(Tag.Context);
      this.mixNumber(v.randomDraws);
    } else if (v instanceof Endpoint) {
      this.mixWord(Tag.Endpoint);
      this.mixWord(hashString(this.connections.nameOf(v.id)));
      this.mixWord(v.connection.ends[0] === v ? 0 : 1);
      this.mixWord((v.open ? 1 : 0) | (v.closed ? 2 : 0));
    } else if (v instanceof Rng) {
      this.mixWord(Tag.Rng);
      this.mixWord(hashString(v.seedPath));
      this.mixNumber(v.draws);
    } else if (isKernelObject(v) || v instanceof Promise || v instanceof WeakMap || v instanceof WeakSet) {
      this.mixWord(Tag.Opaque);
      this.mixWord(hashString(v.constructor.name));
    } else {
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto === Object.prototype || proto === null) {
        this.mixWord(Tag.Object);
        const named = Object.keys(v).map((k) => [this.rename?.get(k) ?? k, k] as const);
        for (const [name, k] of named.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) this.field(name, (v as Record<string, unknown>)[k]);
      } else {
        this.mixWord(Tag.Class);
        this.mixWord(hashString(v.constructor.name));
        for (const k of Object.keys(v)) this.field(k, (v as Record<string, unknown>)[k]);
      }
      this.mixWord(Tag.Object);
    }
  }

  private field(key: string, value: unknown): void {
    if (value === undefined) return;
    this.mixWord(hashString(key));
    this.walk(value);
  }
}

/** The simulator's own objects: no node's state (the disk is hashed by `Disk.inspect`). */
function isKernelObject(v: object): boolean {
  return v instanceof Simulator || v instanceof SimNode || v instanceof Network || v instanceof Connection || v instanceof Disk || v instanceof NodeDisk || v instanceof Trace;
}

/** Keys in canonical order: sorted (by their new names, when renamed) when every key is a primitive, else as inserted. */
function keyOrder<K>(keys: IterableIterator<K>, rename: ReadonlyMap<string, string> | undefined): K[] {
  const list = [...keys];
  if (!list.every((k) => k === null || (typeof k !== "object" && typeof k !== "function"))) return list;
  if (rename === undefined) return list.sort(comparePrimitives);
  const named = (k: K): unknown => (typeof k === "string" ? (rename.get(k) ?? k) : k);
  return list.sort((a, b) => comparePrimitives(named(a), named(b)));
}

function comparePrimitives(a: unknown, b: unknown): number {
  const ta = typeof a;
  const tb = typeof b;
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (ta === "number") return (a as number) - (b as number) || (Object.is(a, b) ? 0 : String(a) < String(b) ? -1 : 1);
  if (ta === "bigint") return (a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** The hash of one value (a message payload) on its own. */
export function hashValue(v: unknown, connections: ConnectionNames, rename?: ReadonlyMap<string, string>): [number, number] {
  return new GraphHasher(connections, rename).add(v).lanes();
}
