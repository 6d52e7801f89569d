/**
 * The model checker's view of one state of a world: its canonical hash, and each pending event
 * with a canonical key (the same event in two equal states has the same key, whatever path led
 * there — the key is also how sleep sets name a transition across states).
 *
 * The hash covers, and only covers:
 * - each node: whether it is up, down or paused; its protocol state (the process object graph,
 *   `graph-hash.ts`, or what its adapter names as its state); its disk (durable records, and the
 *   operations not yet fsynced); its random stream's draws and its trace counters;
 * - the pending events as a multiset of keys: a message by channel, sender, receiver, type,
 *   payload, connection name and place in its stream, and whether its sender crashed since or
 *   its receiver can no longer take it; a timer by node, label and where its handle sits in the node's state; an fsync by
 *   node, file and how many operations it covers; a callback or other node event by node, kind
 *   and rank;
 * - which links are cut;
 * - the history digest (`facts.ts`);
 * - under a reorder bound only: the kernel's order of the pending events (that bound counts
 *   departures from it, so it is part of what the future can do).
 * Never the trace, the clock, message/timer/connection ids or times: two paths that reach the
 * same state by different orders hash alike.
 *
 * Symmetry (optional, per target): nodes of a group run the same code with the same
 * configuration (2PC's participants, Paxos's acceptors), so a state and its image with their
 * names permuted are the same state up to naming. The hash is then the least hash over the
 * renamings worth trying (`candidateRenames`: members sorted by their name-blind look, ties in
 * every order), and an event's canonical key is its key under that renaming.
 */
import { Mixer, hashString } from "../base/structure-hash.js";
import type { Simulator } from "../sim/simulator.js";
import type { TimerHandle } from "../sim/node-context.js";
import type { World } from "../stepper/types.js";
import { GraphHasher, hashValue, type ConnectionNames } from "./graph-hash.js";
import { kernelEvents, type KernelEvent } from "./kernel-view.js";
import type { FactSet } from "./facts.js";

/** What a node's state is, for the hash: by default its process. */
export type StateOf = (world: World, node: string) => unknown;

export interface KeyedEvent extends KernelEvent {
  /** Canonical: equal in equal states, whatever path led there. */
  key: string;
}

export interface WorldState {
  hash: string;
  /** The pending events in run order (held and parked ones last), with their keys. */
  events: KeyedEvent[];
  /** An event's key as the symmetric representative names it (the key itself without symmetry). */
  canonical(key: string): string;
}

export interface StateOptions {
  stateOf: StateOf;
  facts: FactSet;
  /** Fold the kernel's order of the pending events into the hash (a reorder bound is in force). */
  withOrder: boolean;
  /** Groups of interchangeable nodes: a state and its image under any renaming within the groups hash alike. */
  symmetry?: readonly (readonly string[])[];
}

type Rename = ReadonlyMap<string, string> | undefined;

export function worldState(world: World, options: StateOptions): WorldState {
  const sim = world.sim;
  const list = kernelEvents(sim);
  const concrete = hashUnder(world, list, options, undefined);
  const events = list.map((e, i) => ({ ...e, key: concrete.keys[i]! }));
  const groups = options.symmetry ?? [];
  if (groups.length === 0) return { hash: concrete.hash, events, canonical: (k) => k };
  let best: { hash: string; keys: string[] } | undefined;
  for (const rename of candidateRenames(world, list, options, groups)) {
    const r = hashUnder(world, list, options, rename);
    if (best === undefined || r.hash < best.hash) best = r;
  }
  const chosen = best!;
  const map = new Map(events.map((e, i) => [e.key, chosen.keys[i]!]));
  return { hash: chosen.hash, events, canonical: (k) => map.get(k) ?? k };
}

/** The state's hash and its events' keys with node names renamed. */
function hashUnder(world: World, list: readonly KernelEvent[], options: StateOptions, rename: Rename): { hash: string; keys: string[] } {
  const sim = world.sim;
  const nameOf = (id: string): string => rename?.get(id) ?? id;
  const names = connectionNames(sim, nameOf);
  const h = new StateMixer();
  const timerPlaces = new Map<TimerHandle, string>();
  for (const id of [...sim.nodeIds].sort((x, y) => (nameOf(x) < nameOf(y) ? -1 : 1))) {
    const node = sim.node(id);
    h.word(hashString(nameOf(id)));
    h.word(hashString(node.status));
    if (node.status !== "down") {
      const g = new GraphHasher(names, rename).add(options.stateOf(world, id));
      h.lanes(g.lanes());
      for (const [handle, place] of g.timerPlaces) timerPlaces.set(handle, `${nameOf(id)}@${place}`);
      h.number(node.context?.randomDraws ?? 0);
    }
    h.lanes(new GraphHasher(names, rename).add(node.disk.inspect()).lanes());
    for (const [name, counter] of node.traceCounters) {
      h.word(hashString(name));
      h.number(counter.last);
    }
  }
  const keys = keyEvents(list, names, timerPlaces, nameOf, rename);
  const keyHashes = keys.map((k) => hashString(k)).sort((a, b) => a - b);
  h.number(keyHashes.length);
  for (const k of keyHashes) h.word(k);
  const ids = sim.nodeIds;
  const cuts: string[] = [];
  for (const a of ids) for (const b of ids) if (a !== b && sim.network.isCut(a, b)) cuts.push(`${nameOf(a)}>${nameOf(b)}`);
  for (const c of cuts.sort()) h.word(hashString(c));
  h.lanes(options.facts.digest(rename));
  if (options.withOrder) for (const k of keys) h.word(hashString(k));
  return { hash: h.hex(), keys };
}

/** At most this many renamings are tried per state (ties beyond it: a less reduced search, still sound). */
const MAX_RENAMES = 120;

/**
 * The renamings worth trying: each group's members sorted by what they look like with every
 * group member's name blotted out; members that still look alike (ties) in every order among
 * themselves. Each renaming sends the k-th member so sorted to the group's k-th name.
 */
function candidateRenames(world: World, list: readonly KernelEvent[], options: StateOptions, groups: readonly (readonly string[])[]): Map<string, string>[] {
  const blot = new Map<string, string>();
  groups.forEach((g, i) => g.forEach((n) => blot.set(n, `#${i}`)));
  const names = connectionNames(world.sim, (id) => blot.get(id) ?? id);
  let renames: Map<string, string>[] = [new Map()];
  for (const group of groups) {
    const looks = new Map(group.map((n) => [n, lookOf(world, list, options, names, blot, n)]));
    const sorted = [...group].sort((a, b) => (looks.get(a)! < looks.get(b)! ? -1 : looks.get(a)! > looks.get(b)! ? 1 : 0));
    const canonicalNames = [...group].sort();
    const orders = tieOrders(sorted, (n) => looks.get(n)!);
    const next: Map<string, string>[] = [];
    for (const base of renames) {
      for (const order of orders) {
        const m = new Map(base);
        order.forEach((n, k) => m.set(n, canonicalNames[k]!));
        next.push(m);
        if (next.length >= MAX_RENAMES) break;
      }
      if (next.length >= MAX_RENAMES) break;
    }
    renames = next;
  }
  return renames;
}

/** A node's own state, disk and pending events with every group member's name blotted out. */
function lookOf(world: World, list: readonly KernelEvent[], options: StateOptions, names: ConnectionNames, blot: ReadonlyMap<string, string>, id: string): string {
  const node = world.sim.node(id);
  const g = new GraphHasher(names, blot).add(node.status);
  if (node.status !== "down") g.add(options.stateOf(world, id)).add(node.context?.randomDraws ?? 0);
  g.add(node.disk.inspect());
  const mine = list.filter((e) => e.owner === id || (e.what.kind === "message" && e.what.message.from === id));
  g.add(keyEvents(mine, names, new Map(), (n) => blot.get(n) ?? n, blot).sort());
  const [a, b] = g.lanes();
  return `${a.toString(16).padStart(8, "0")}${b.toString(16).padStart(8, "0")}`;
}

/** Every order of `sorted` that keeps it sorted by `look` (ties permuted), at most MAX_RENAMES. */
function tieOrders(sorted: readonly string[], look: (n: string) => string): string[][] {
  let orders: string[][] = [[]];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && look(sorted[j]!) === look(sorted[i]!)) j++;
    const perms = permutations(sorted.slice(i, j));
    orders = orders.flatMap((o) => perms.map((p) => [...o, ...p])).slice(0, MAX_RENAMES);
    i = j;
  }
  return orders;
}

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

/** Connections named by endpoints, port and rank among the live ones of the same endpoints and port. */
function connectionNames(sim: Simulator, nameOf: (id: string) => string): ConnectionNames {
  const byId = new Map<number, string>();
  const ranks = new Map<string, number>();
  for (const c of sim.network.connectionViews()) {
    const base = `${nameOf(c.client)}>${nameOf(c.server)}:${c.port}`;
    const rank = ranks.get(base) ?? 0;
    ranks.set(base, rank + 1);
    byId.set(c.id, `${base}#${rank}`);
  }
  return { nameOf: (id) => byId.get(id) ?? "closed" };
}

function keyEvents(list: readonly KernelEvent[], names: ConnectionNames, timerPlaces: Map<TimerHandle, string>, nameOf: (id: string) => string, rename: Rename): string[] {
  const ranks = new Map<string, number>();
  const ranked = (base: string): string => {
    const r = ranks.get(base) ?? 0;
    ranks.set(base, r + 1);
    return `${base}#${r}`;
  };
  return list.map((e) => keyOf(e, names, timerPlaces, ranked, nameOf, rename));
}

function keyOf(e: KernelEvent, names: ConnectionNames, timerPlaces: Map<TimerHandle, string>, ranked: (base: string) => string, nameOf: (id: string) => string, rename: Rename): string {
  const w = e.what;
  const owner = nameOf(e.owner);
  switch (w.kind) {
    case "message": {
      const m = w.message;
      const [a, b] = hashValue(m.payload, names, rename);
      const where = m.channel === "connection" ? `${names.nameOf(m.conn!)}+${m.position}` : "dgram";
      const wait = e.runnable ? "" : e.atUs === Infinity ? "|waiting" : "|behind";
      return `msg|${nameOf(m.from)}>${nameOf(m.to)}|${where}|${m.type}|${a.toString(16)}.${b.toString(16)}|${m.senderCrashed ? "s" : ""}${m.receiverGone ? "r" : ""}${wait}`;
    }
    case "timer": {
      const place = timerPlaces.get(w.timer);
      return place !== undefined ? `timer|${owner}|${w.timer.label}|${place}` : ranked(`timer|${owner}|${w.timer.label}|free`);
    }
    case "fsync":
      return `fsync|${nameOf(w.fsync.node)}|${w.fsync.file}|${w.fsync.covers}`;
    case "callback":
      return ranked(`callback|${owner}`);
    case "node-event":
    case "world-event":
      return ranked(`${w.kind}|${owner}|${e.ev.fn.name}`);
  }
}

class StateMixer extends Mixer {
  word(w: number): void {
    this.mixWord(w);
  }
  number(n: number): void {
    this.mixNumber(n);
  }
  lanes([a, b]: [number, number]): void {
    this.mixWord(a | 0);
    this.mixWord(b | 0);
  }
  hex(): string {
    return (this.h1 >>> 0).toString(16).padStart(8, "0") + (this.h2 >>> 0).toString(16).padStart(8, "0");
  }
}
