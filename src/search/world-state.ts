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
 *   payload, connection name and place in its stream, and whether its sender or receiver crashed
 *   since; a timer by node, label and where its handle sits in the node's state; an fsync by
 *   node, file and how many operations it covers; a callback or other node event by node, kind
 *   and rank;
 * - which links are cut;
 * - the history digest (`facts.ts`);
 * - under a reorder bound only: the kernel's order of the pending events (that bound counts
 *   departures from it, so it is part of what the future can do).
 * Never the trace, the clock, message/timer/connection ids or times: two paths that reach the
 * same state by different orders hash alike.
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
}

export interface StateOptions {
  stateOf: StateOf;
  facts: FactSet;
  /** Fold the kernel's order of the pending events into the hash (a reorder bound is in force). */
  withOrder: boolean;
}

export function worldState(world: World, options: StateOptions): WorldState {
  const sim = world.sim;
  const names = connectionNames(sim);
  const h = new StateMixer();
  const timerPlaces = new Map<TimerHandle, string>();
  for (const id of sim.nodeIds) {
    const node = sim.node(id);
    h.word(hashString(id));
    h.word(hashString(node.status));
    if (node.status !== "down") {
      const g = new GraphHasher(names).add(options.stateOf(world, id));
      h.lanes(g.lanes());
      for (const [handle, place] of g.timerPlaces) timerPlaces.set(handle, `${id}@${place}`);
      h.number(node.context?.randomDraws ?? 0);
    }
    h.lanes(new GraphHasher(names).add(node.disk.inspect()).lanes());
    for (const [name, counter] of node.traceCounters) {
      h.word(hashString(name));
      h.number(counter.last);
    }
  }
  const events = keyEvents(kernelEvents(sim), names, timerPlaces);
  const keyHashes = events.map((e) => hashString(e.key)).sort((a, b) => a - b);
  h.number(keyHashes.length);
  for (const k of keyHashes) h.word(k);
  const ids = sim.nodeIds;
  for (const a of ids) for (const b of ids) if (a !== b && sim.network.isCut(a, b)) h.word(hashString(`${a}>${b}`));
  h.lanes(options.facts.digest());
  if (options.withOrder) for (const e of events) h.word(hashString(e.key));
  return { hash: h.hex(), events };
}

/** Connections named by endpoints, port and rank among the live ones of the same endpoints and port. */
function connectionNames(sim: Simulator): ConnectionNames {
  const byId = new Map<number, string>();
  const ranks = new Map<string, number>();
  for (const c of sim.network.connectionViews()) {
    const base = `${c.client}>${c.server}:${c.port}`;
    const rank = ranks.get(base) ?? 0;
    ranks.set(base, rank + 1);
    byId.set(c.id, `${base}#${rank}`);
  }
  return { nameOf: (id) => byId.get(id) ?? "closed" };
}

function keyEvents(list: KernelEvent[], names: ConnectionNames, timerPlaces: Map<TimerHandle, string>): KeyedEvent[] {
  const ranks = new Map<string, number>();
  const ranked = (base: string): string => {
    const r = ranks.get(base) ?? 0;
    ranks.set(base, r + 1);
    return `${base}#${r}`;
  };
  return list.map((e) => ({ ...e, key: keyOf(e, names, timerPlaces, ranked) }));
}

function keyOf(e: KernelEvent, names: ConnectionNames, timerPlaces: Map<TimerHandle, string>, ranked: (base: string) => string): string {
  const w = e.what;
  switch (w.kind) {
    case "message": {
      const m = w.message;
      const [a, b] = hashValue(m.payload, names);
      const where = m.channel === "connection" ? `${names.nameOf(m.conn!)}+${m.position}` : "dgram";
      const wait = e.runnable ? "" : e.atUs === Infinity ? "|waiting" : "|behind";
      return `msg|${m.from}>${m.to}|${where}|${m.type}|${a.toString(16)}.${b.toString(16)}|${m.senderCrashed ? "s" : ""}${m.receiverCrashed ? "r" : ""}${wait}`;
    }
    case "timer": {
      const place = timerPlaces.get(w.timer);
      return place !== undefined ? `timer|${e.owner}|${w.timer.label}|${place}` : ranked(`timer|${e.owner}|${w.timer.label}|free`);
    }
    case "fsync":
      return `fsync|${w.fsync.node}|${w.fsync.file}|${w.fsync.covers}`;
    case "callback":
      return ranked(`callback|${e.owner}`);
    case "node-event":
    case "world-event":
      return ranked(`${w.kind}|${e.owner}|${e.ev.fn.name}`);
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
