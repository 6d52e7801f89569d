/**
 * The kernel's hooks for the stepping interface: listing pending events in run order,
 * `pushFirst` putting an event ahead of everything at its time, cancelling and moving events.
 */
import { describe, expect, it } from "vitest";
import { EventQueue } from "../../src/sim/event-queue.js";
import { Simulator } from "../../src/sim/simulator.js";

describe("sim: stepping hooks", () => {
  it("sim: event queue: pushFirst runs before everything queued at its time, the latest first", () => {
    const q = new EventQueue<string>();
    q.push(5, "a");
    q.push(5, "b");
    q.push(3, "early");
    q.pushFirst(5, "first");
    q.pushFirst(5, "very first");
    const out: string[] = [];
    for (let x = q.pop(); x !== undefined; x = q.pop()) out.push(x);
    expect(out).toEqual(["early", "very first", "first", "a", "b"]);
  });

  it("sim: pendingList is in run order; a cancelled event is listed no more and does nothing; a moved one runs at its new time", () => {
    const sim = new Simulator({ seed: 1 });
    const ran: string[] = [];
    const a = sim.schedule(20, () => ran.push("a"));
    sim.schedule(10, () => ran.push("b"));
    const c = sim.schedule(30, () => ran.push("c"));
    expect(sim.pendingList().map((p) => p.atUs)).toEqual([10, 20, 30]);
    sim.cancelEvent(a);
    expect(sim.pendingList().map((p) => p.atUs)).toEqual([10, 30]);
    sim.moveEvent(c, 0, true);
    sim.runSync();
    expect(ran).toEqual(["c", "b"]);
  });
});
