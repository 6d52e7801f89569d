/**
 * The kernel's pending events as the model checker sees them: each one that will do something
 * when it runs — a message in flight (a datagram, or a connection's segment, control segments
 * included), a timer, a disk's fsync completion or its callback, any other node or world event —
 * with the node it acts on and the stepper's `next` reference that runs it.
 *
 * Left out, because running them does nothing: cancelled timers, events of a node incarnation
 * that crashed since (the kernel drops them), fsyncs issued before their disk crashed. Held
 * segments (a cut link) and parked ones (a paused node) cannot run next: they are listed, as
 * state, but not `runnable`.
 *
 * Invariant: the list is in run order (time, then scheduling sequence), so "the first runnable
 * one" is the event the kernel itself would run next.
 */
import { Ev, type PendingSimEvent, type SimEvent, type Simulator } from "../sim/simulator.js";
import { pendingMessage, type PendingMessage } from "../sim/network.js";
import { pendingTimer, type TimerHandle } from "../sim/node-context.js";
import { isFsyncCallback, pendingFsync, type PendingFsync } from "../sim/disk.js";

/** What a pending event is. */
export type KernelEventKind =
  | { kind: "message"; message: PendingMessage }
  | { kind: "timer"; timer: TimerHandle }
  | { kind: "fsync"; fsync: PendingFsync }
  | { kind: "callback" }
  | { kind: "node-event" }
  | { kind: "world-event" };

export interface KernelEvent {
  ev: SimEvent;
  atUs: number;
  seq: number;
  what: KernelEventKind;
  /** The node whose state it reads and changes ("" for a world event, which may touch any). */
  owner: string;
  /** The stepper's reference (`m12`, `t5`, `e340`) for `{kind: "next", ref}`. */
  ref: string;
  /** It can run next (not held by a cut, not parked, a connection's head). */
  runnable: boolean;
}

/** Every pending event that will do something, in run order; then held and parked segments. */
export function kernelEvents(sim: Simulator): KernelEvent[] {
  const out: KernelEvent[] = [];
  for (const p of sim.pendingList()) {
    const e = classify(sim, p);
    if (e !== undefined) out.push(e);
  }
  const waiting = (ev: SimEvent): void => {
    const m = pendingMessage(ev);
    if (m !== undefined && !m.control) out.push({ ev, atUs: Infinity, seq: Infinity, what: { kind: "message", message: m }, owner: m.to, ref: `m${m.id}`, runnable: false });
  };
  for (const ev of sim.network.heldMessages()) waiting(ev);
  for (const id of sim.nodeIds) for (const ev of sim.node(id).parked) waiting(ev);
  return out;
}

function classify(sim: Simulator, p: PendingSimEvent): KernelEvent | undefined {
  const { ev, atUs, seq } = p;
  const base = { ev, atUs, seq };
  const m = pendingMessage(ev);
  if (m !== undefined) return { ...base, what: { kind: "message", message: m }, owner: m.to, ref: `m${m.id}`, runnable: m.head };
  if (ev.type === Ev.NodeCall && sim.nodeAt(ev.node).incarnation !== ev.incarnation) return undefined; // crashed since: dropped
  const t = pendingTimer(ev);
  if (t !== undefined) return t.cancelled || !t.ctx.alive ? undefined : { ...base, what: { kind: "timer", timer: t }, owner: t.ctx.id, ref: `t${t.id}`, runnable: true };
  const f = pendingFsync(ev);
  if (f !== undefined) return f.stale ? undefined : { ...base, what: { kind: "fsync", fsync: f }, owner: f.node, ref: `e${seq}`, runnable: true };
  if (ev.type === Ev.NodeCall) {
    const owner = sim.nodeAt(ev.node).id;
    return { ...base, what: isFsyncCallback(ev) ? { kind: "callback" } : { kind: "node-event" }, owner, ref: `e${seq}`, runnable: true };
  }
  return { ...base, what: { kind: "world-event" }, owner: "", ref: `e${seq}`, runnable: true };
}
