import { describe, expect, it } from "vitest";
import { addNode, eventsOf, makeSim } from "../helpers/sim.js";

describe("sim: simulator", () => {
  it("timers fire at their virtual time, in scheduling order on ties", () => {
    const sim = makeSim();
    const fired: string[] = [];
    addNode(sim, "a", (ctx) => {
      ctx.setTimerMs(10, () => fired.push(`x@${sim.nowUs}`), "x");
      ctx.setTimerMs(5, () => fired.push(`y@${sim.nowUs}`), "y");
      ctx.setTimerMs(10, () => fired.push(`z@${sim.nowUs}`), "z");
    });
    sim.start("a");
    sim.runSync();
    expect(fired).toEqual(["y@5000", "x@10000", "z@10000"]);
  });

  it("a livelock (zero-delay work re-arming itself) stops the run with 'livelock' instead of hanging", async () => {
    const sim = makeSim({ retainTrace: false });
    addNode(sim, "a", (ctx) => {
      const spin = (): void => void ctx.setTimerMs(0, spin, "spin");
      ctx.setTimerMs(3, spin, "spin");
      ctx.setTimerMs(5, () => undefined, "never reached");
    });
    sim.start("a");
    expect(await sim.run({ untilUs: 1_000_000, maxEventsPerInstant: 1_000 })).toBe("livelock");
    expect(sim.nowUs).toBe(3_000);
    // Many events at one instant that do end are fine.
    const busy = makeSim({ retainTrace: false });
    addNode(busy, "b", (ctx) => {
      for (let i = 0; i < 999; i++) ctx.setTimerMs(3, () => undefined);
    });
    busy.start("b");
    expect(await busy.run({ untilUs: 1_000_000, maxEventsPerInstant: 1_000 })).toBe("quiescent");
  });

  it("cancelled timers never fire", () => {
    const sim = makeSim();
    let fired = 0;
    addNode(sim, "a", (ctx) => {
      const t = ctx.setTimerMs(10, () => fired++);
      ctx.setTimerMs(5, () => ctx.cancelTimer(t));
    });
    sim.start("a");
    sim.runSync();
    expect(fired).toBe(0);
  });

  it("crash: timers of the crashed incarnation never fire; restart builds a fresh process", () => {
    const sim = makeSim();
    const log: string[] = [];
    addNode(sim, "a", (ctx) => {
      log.push(`start#${ctx.incarnation}`);
      ctx.setTimerMs(100, () => log.push(`timer#${ctx.incarnation}`));
    });
    sim.start("a");
    sim.schedule(50_000, () => sim.crash("a"));
    sim.schedule(60_000, () => sim.start("a"));
    sim.runSync();
    expect(log).toEqual(["start#1", "start#3", "timer#3"]);
    expect(eventsOf(sim, "restart")).toHaveLength(1);
  });

  it("pause freezes a node with its state; due timers run at resume, in order", () => {
    const sim = makeSim();
    const log: string[] = [];
    let counter = 0;
    addNode(sim, "a", (ctx) => {
      ctx.setTimerMs(10, () => log.push(`t1 n=${++counter} at ${sim.nowUs / 1000}`));
      ctx.setTimerMs(20, () => log.push(`t2 n=${++counter} at ${sim.nowUs / 1000}`));
    });
    sim.start("a");
    sim.schedule(5_000, () => sim.pause("a"));
    sim.schedule(50_000, () => sim.resume("a"));
    sim.runSync();
    expect(log).toEqual(["t1 n=1 at 50", "t2 n=2 at 50"]);
  });

  it("clock skew: a node whose clock runs 2x fast fires a 100 ms local timer after 50 ms", () => {
    const sim = makeSim();
    let firedAt = -1;
    let localAtFire = -1;
    addNode(sim, "a", (ctx) => {
      ctx.setTimerMs(100, () => {
        firedAt = sim.nowUs;
        localAtFire = ctx.nowMs();
      });
    });
    sim.setClockRate("a", 2);
    sim.start("a");
    sim.runSync();
    expect(firedAt).toBe(50_000);
    expect(localAtFire).toBe(100);
  });

  it("clock skew: a pending timer fires when the local clock reaches its deadline, whatever rates it ran at meanwhile", () => {
    const sim = makeSim();
    const fired: Record<string, [trueMs: number, localMs: number]> = {};
    for (const [id, rate] of [["slow", 0.1], ["fast", 2]] as const) {
      addNode(sim, id, (ctx) => {
        ctx.setTimerMs(10_000, () => (fired[id] = [sim.nowUs / 1000, ctx.nowMs()]));
        ctx.setTimerMs(20_000, () => (fired[`${id}-2`] = [sim.nowUs / 1000, ctx.nowMs()]));
      });
      sim.setClockRate(id, rate);
      sim.start(id);
    }
    // At true 4 s: "slow" has run 0.4 s of its 10 s and runs true from now on (fires at 13.6 s,
    // not at 100 s); "fast" has run 8 s and slows to half speed (its last 2 s take 4 s: 8 s).
    sim.schedule(4_000_000, () => {
      sim.setClockRate("slow", 1);
      sim.setClockRate("fast", 0.5);
    });
    sim.runSync();
    expect(fired).toEqual({ slow: [13_600, 10_000], "slow-2": [23_600, 20_000], fast: [8_000, 10_000], "fast-2": [28_000, 20_000] });
  });

  it("async user code: continuations run at the virtual time they were resolved", async () => {
    const sim = makeSim();
    const seen: number[] = [];
    addNode(sim, "a", (ctx) => {
      void (async () => {
        for (let i = 0; i < 3; i++) {
          await ctx.sleepMs(10);
          seen.push(sim.nowUs);
          await Promise.resolve(); // extra hops must not let the clock move
          await Promise.resolve();
          seen.push(sim.nowUs);
        }
      })();
      // A competing timer at the same instants proves the continuation ran before the clock moved.
      for (let t = 10; t <= 30; t += 10) ctx.setTimerMs(t + 1, () => seen.push(-sim.nowUs));
    });
    sim.start("a");
    await sim.run();
    expect(seen).toEqual([10_000, 10_000, -11_000, 20_000, 20_000, -21_000, 30_000, 30_000, -31_000]);
  });

  it("run limits: until a time, a predicate, an event budget, quiescence", async () => {
    const sim = makeSim();
    let ticks = 0;
    addNode(sim, "a", (ctx) => {
      const tick = () => {
        ticks++;
        if (ticks < 100) ctx.setTimerMs(1, tick);
      };
      ctx.setTimerMs(1, tick);
    });
    sim.start("a");
    expect(await sim.run({ untilUs: 10_500 })).toBe("time");
    expect(ticks).toBe(10);
    expect(await sim.run({ until: () => ticks >= 20 })).toBe("predicate");
    expect(ticks).toBe(20);
    expect(await sim.run({ maxEvents: 5 })).toBe("events");
    expect(ticks).toBe(25);
    expect(await sim.run()).toBe("quiescent");
    expect(ticks).toBe(100);
  });

  it("bad input: unknown nodes and invalid ids are user errors with clear messages", () => {
    const sim = makeSim();
    addNode(sim, "a");
    expect(() => sim.crash("zz")).toThrow(/unknown node "zz" \(known: a\)/);
    expect(() => sim.addNode("a", () => ({}))).toThrow(/duplicate node id "a"/);
    expect(() => sim.addNode("bad id!", () => ({}))).toThrow(/invalid node id/);
    expect(() => sim.setClockRate("a", 0)).toThrow(/clock rate must be a positive number/);
  });
});
