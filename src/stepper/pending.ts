/**
 * The pending events of a run, read from the kernel: messages in flight (with the adapter's
 * book names), messages held by a cut link or parked on a paused node, and timers due. Other
 * kernel events (disk completions, a script's sleep) are not the learner's to reorder and are
 * left out. Cancelled timers are left out too: they would fire into nothing.
 *
 * Order: run order (time, then scheduling sequence), then held and parked ones (they have no
 * time of their own: they wait for a heal or a resume).
 */
import type { SimEvent } from "../sim/simulator.js";
import { pendingMessage } from "../sim/network.js";
import { pendingTimer } from "../sim/node-context.js";
import type { PendingEvent, ProtocolAdapter, World } from "./types.js";

/** A pending event with the kernel event behind it (what interventions act on). */
export interface PendingEntry {
  view: PendingEvent;
  ev: SimEvent;
}

export function pendingEntries<W extends World>(adapter: ProtocolAdapter<W>, world: W): PendingEntry[] {
  const sim = world.sim;
  const out: PendingEntry[] = [];
  const add = (ev: SimEvent, atUs: number, where: "queued" | "held" | "parked"): void => {
    const view = describe(adapter, world, ev, atUs, where);
    if (view !== undefined) out.push({ view, ev });
  };
  for (const p of sim.pendingList()) add(p.ev, p.atUs, "queued");
  for (const ev of sim.network.heldMessages()) add(ev, Infinity, "held");
  for (const id of sim.nodeIds) for (const ev of sim.node(id).parked) add(ev, Infinity, "parked");
  return out;
}

function describe<W extends World>(adapter: ProtocolAdapter<W>, world: W, ev: SimEvent, atUs: number, where: "queued" | "held" | "parked"): PendingEvent | undefined {
  const m = pendingMessage(ev);
  if (m !== undefined) {
    if (m.control) return undefined; // SYN, FIN, RST: the connection's own bookkeeping
    const { book, detail } = adapter.bookName(m, world);
    return {
      kind: "message",
      ref: `m${m.id}`,
      msg: m.id,
      atUs,
      from: m.from,
      to: m.to,
      channel: m.channel,
      conn: m.conn,
      type: m.type,
      book,
      detail,
      state: where === "queued" ? "in-flight" : where,
      head: m.head,
    };
  }
  const t = pendingTimer(ev);
  if (t === undefined || t.cancelled || !t.ctx.alive || where === "held") return undefined;
  return { kind: "timer", ref: `t${t.id}`, timer: t.id, atUs, node: t.ctx.id, label: t.label, book: adapter.timerName(t.label), state: where === "parked" ? "parked" : "due" };
}
