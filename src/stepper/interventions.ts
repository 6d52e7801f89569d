/**
 * Applies one learner action to a live world. The rules are the network's: a connection is
 * TCP — FIFO and reliable — so only its head segment can be delivered next, and none can be
 * dropped or duplicated alone (cut the link, or crash a node, to lose traffic); datagrams can
 * be delivered in any order, dropped and duplicated. `next` runs any pending kernel event next,
 * at its own time (the model checker's step). A held message waits for its link to heal,
 * a parked one for its node to resume. A refused action is a UserInputError that says why and
 * what would work, and changes nothing.
 */
import { UserInputError, unreachable } from "../sim/errors.js";
import { applyFault } from "../sim/faults.js";
import { msToUs } from "../sim/time.js";
import { pendingEntries, type PendingEntry } from "./pending.js";
import type { PendingSimEvent, Simulator } from "../sim/simulator.js";
import { pendingMessage } from "../sim/network.js";
import { pendingTimer } from "../sim/node-context.js";
import type { Action, ProtocolAdapter, World } from "./types.js";

/** The copy of a duplicated datagram arrives this long after the original. */
const DUPLICATE_AFTER_US = 1_000;

export function applyAction<W extends World>(adapter: ProtocolAdapter<W>, world: W, action: Action): void {
  const sim = world.sim;
  switch (action.kind) {
    case "deliver": {
      const e = movableMessage(adapter, world, action.msg, "deliver");
      if (e.view.kind === "message" && !e.view.head) throw new UserInputError(`${e.view.ref} (${e.view.book} ${e.view.from}→${e.view.to}) is not the head of its connection: TCP delivers in order, so ${headOf(adapter, world, e)} goes first (deliver that one, or delay this connection)`);
      sim.moveEvent(e.ev, sim.nowUs, true);
      return;
    }
    case "delay": {
      if (!(action.delayMs > 0) || !Number.isFinite(action.delayMs)) throw new UserInputError(`delay: expected a positive number of milliseconds, got ${action.delayMs}`);
      const e = movableMessage(adapter, world, action.msg, "delay");
      sim.moveEvent(e.ev, e.view.atUs + msToUs(action.delayMs), false);
      return;
    }
    case "drop":
    case "duplicate": {
      const e = movableMessage(adapter, world, action.msg, action.kind);
      if (e.view.kind === "message" && e.view.channel === "connection") {
        throw new UserInputError(`${e.view.ref} travels on a connection (TCP): a segment is never ${action.kind === "drop" ? "lost" : "duplicated"} alone — cut the link (its traffic is held until the heal) or crash a node (the connection resets)`);
      }
      if (action.kind === "drop") sim.network.dropDatagram(e.ev);
      else sim.network.duplicateDatagram(e.ev, e.view.atUs, DUPLICATE_AFTER_US);
      return;
    }
    case "fire": {
      const e = pendingEntries(adapter, world).find((p) => p.view.kind === "timer" && p.view.timer === action.timer);
      if (e === undefined) throw new UserInputError(`no pending timer t${action.timer} (timers are listed as t<N>)`);
      if (e.view.kind === "timer" && e.view.state === "parked") throw new UserInputError(`t${action.timer} is on ${e.view.node}, which is paused: resume it first`);
      sim.moveEvent(e.ev, sim.nowUs, true);
      return;
    }
    case "next": {
      const p = pendingByRef(sim, action.ref);
      sim.runNext(p.ev, p.atUs);
      return;
    }
    case "fault":
      applyFault(sim, action.fault);
      return;
    case "client": {
      const { kind: _kind, client, ...op } = action;
      adapter.clientAction(world, client, op);
      return;
    }
    default:
      unreachable(action);
  }
}

/**
 * The pending kernel event a `next` ref names (UserInputError when none is pending, or when it
 * cannot run next: a connection segment behind another, a timer already cancelled).
 */
export function pendingByRef(sim: Simulator, ref: string): PendingSimEvent {
  const m = /^([mte])(-?\d+)$/.exec(ref);
  if (m === null) throw new UserInputError(`next: "${ref}" is not an event (m<id> a message, t<id> a timer, e<seq> another kernel event)`);
  const n = Number(m[2]);
  const found = sim.pendingList().find((p) => refMatches(p, m[1]!, n));
  if (found === undefined) throw new UserInputError(`next: no pending event ${ref}`);
  const msg = pendingMessage(found.ev);
  if (msg !== undefined && !msg.head) throw new UserInputError(`next: ${ref} is not the head of its connection (TCP delivers in order)`);
  return found;
}

function refMatches(p: PendingSimEvent, kind: string, n: number): boolean {
  if (kind === "e") return p.seq === n;
  if (kind === "m") return pendingMessage(p.ev)?.id === n;
  const t = pendingTimer(p.ev);
  return t !== undefined && t.id === n && !t.cancelled;
}

function movableMessage<W extends World>(adapter: ProtocolAdapter<W>, world: W, msg: number, verb: string): PendingEntry {
  const e = pendingEntries(adapter, world).find((p) => p.view.kind === "message" && p.view.msg === msg);
  if (e === undefined || e.view.kind !== "message") throw new UserInputError(`${verb}: no pending message m${msg} (messages are listed as m<N>)`);
  if (e.view.state === "held") throw new UserInputError(`${verb}: m${msg} is held by the cut link ${e.view.from}→${e.view.to}: heal it first`);
  if (e.view.state === "parked") throw new UserInputError(`${verb}: m${msg} waits on ${e.view.to}, which is paused: resume it first`);
  return e;
}

function headOf<W extends World>(adapter: ProtocolAdapter<W>, world: W, e: PendingEntry): string {
  const v = e.view;
  if (v.kind !== "message") return "its head";
  const head = pendingEntries(adapter, world).find((p) => p.view.kind === "message" && p.view.conn === v.conn && p.view.from === v.from && p.view.head);
  return head !== undefined && head.view.kind === "message" ? `${head.view.ref} (${head.view.book})` : "an earlier segment";
}
