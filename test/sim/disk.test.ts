import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isTorn, type NodeDisk } from "../../src/sim/disk.js";
import { DiskCrashLossChecker } from "../../src/check/kernel/disk-crash-loss.js";
import { eventsOf, makeSim } from "../helpers/sim.js";

describe("sim: disk", () => {
  it("fsync completes after its latency with an explicit event; only then is the data durable", () => {
    const sim = makeSim();
    let doneAt = -1;
    sim.addNode("a", (ctx) => {
      ctx.disk.append("log", "r1", 10);
      ctx.disk.fsync("log", () => (doneAt = sim.nowUs));
      return {};
    }, { fsyncLatencyUs: 5_000 });
    sim.start("a");
    sim.runSync({ untilUs: 4_999 });
    expect(sim.node("a").disk.durableRecords("log")).toEqual([]);
    sim.runSync();
    expect(doneAt).toBe(5_000);
    expect(sim.node("a").disk.durableRecords("log")).toEqual(["r1"]);
    expect(eventsOf(sim, "disk.fsync.done")).toHaveLength(1);
  });

  it("a crash loses exactly the writes not covered by a completed fsync", () => {
    const sim = makeSim();
    let seen: readonly unknown[] = [];
    sim.addNode("a", (ctx) => {
      if (ctx.incarnation === 1) {
        ctx.disk.append("log", "r1", 10);
        ctx.disk.fsync("log");
        ctx.disk.append("log", "r2", 20); // after the fsync was issued: not covered
      } else {
        seen = ctx.disk.read("log");
      }
      return {};
    }, { fsyncLatencyUs: 1_000 });
    sim.start("a");
    sim.schedule(2_000, () => sim.restart("a"));
    sim.runSync();
    expect(seen).toEqual(["r1"]);
    const lost = eventsOf(sim, "disk.lost")[0]!;
    expect(lost.id).toBe(20);
  });

  it("a crash before the fsync completes loses what it would have covered", () => {
    const sim = makeSim();
    sim.addNode("a", (ctx) => {
      ctx.disk.append("log", "r1", 10);
      ctx.disk.fsync("log");
      return {};
    }, { fsyncLatencyUs: 10_000 });
    sim.start("a");
    sim.schedule(5_000, () => sim.crash("a"));
    sim.runSync();
    expect(sim.node("a").disk.read("log")).toEqual([]);
  });

  it("a crash empties the fsync queue: the next incarnation's fsync waits for no dead one", () => {
    const sim = makeSim();
    let doneAt = -1;
    sim.addNode("a", (ctx) => {
      if (ctx.incarnation === 1) {
        // A backlog: 100 fsyncs of 10 ms each, queued one behind the other (1 s in all).
        for (let i = 0; i < 100; i++) {
          ctx.disk.append("log", `r${i}`, 10);
          ctx.disk.fsync("log");
        }
      } else {
        ctx.disk.replace("epoch", [2], [8]);
        ctx.disk.fsync("epoch", () => (doneAt = sim.nowUs));
      }
      return {};
    }, { fsyncLatencyUs: 10_000 });
    sim.start("a");
    sim.schedule(25_000, () => sim.restart("a"));
    sim.runSync();
    expect(doneAt).toBe(35_000);
    // The two fsyncs completed before the crash are the only ones that ever complete.
    expect(eventsOf(sim, "disk.fsync.done").filter((e) => e.detail === "log")).toHaveLength(2);
  });

  it("replace is atomic: a crash before fsync restores the previous durable version", () => {
    const sim = makeSim();
    sim.addNode("a", (ctx) => {
      ctx.disk.replace("epoch", [1], [4]);
      ctx.disk.fsync("epoch", () => ctx.disk.replace("epoch", [2], [4]));
      return {};
    }, { fsyncLatencyUs: 1_000 });
    sim.start("a");
    sim.schedule(1_500, () => sim.crash("a"));
    sim.runSync();
    expect(sim.node("a").disk.read("epoch")).toEqual([1]);
  });

  it("torn writes: the first unsynced append may survive as a torn prefix", () => {
    const sim = makeSim();
    sim.addNode("a", (ctx) => {
      ctx.disk.append("log", "r1", 100);
      return {};
    }, { tearProbability: 1 });
    sim.start("a");
    sim.crash("a");
    const recs = sim.node("a").disk.read("log");
    expect(recs).toHaveLength(1);
    expect(isTorn(recs[0])).toBe(true);
  });

  it("disk full is a typed ENOSPC result, not an exception; slow fsync is slower", () => {
    const sim = makeSim();
    let disk!: NodeDisk;
    sim.addNode("a", (ctx) => {
      disk = ctx.disk;
      return {};
    }, { capacityBytes: 100 });
    sim.start("a");
    expect(disk.append("log", "x", 60)).toEqual({ ok: true });
    expect(disk.append("log", "y", 60)).toEqual({ ok: false, err: "ENOSPC" });
    sim.node("a").disk.setFull(true);
    expect(disk.append("log", "z", 1)).toEqual({ ok: false, err: "ENOSPC" });
    sim.node("a").disk.restore();
    sim.node("a").disk.setFsyncLatency(50_000);
    let done = -1;
    disk.fsync("log", () => (done = sim.nowUs));
    sim.runSync();
    expect(done).toBe(50_000);
  });

  it("property: after any crash schedule, what a restart reads is exactly what the checker says was durable", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 6 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (seed, crashAtMs, tear) => {
          const sim = makeSim({ seed, retainTrace: false });
          const checker = new DiskCrashLossChecker();
          sim.trace.subscribe((e) => checker.onEvent(e), checker.kinds);
          sim.addNode("a", (ctx) => {
            const recs = ctx.disk.read("log");
            const bytes = recs.reduce<number>((t, r) => t + (isTorn(r) ? r.keptBytes : (r as { size: number }).size), 0);
            ctx.annotate("app.recovered", { file: "log", bytes });
            let n = 0;
            const write = () => {
              const size = ctx.rng.int(1, 500);
              ctx.disk.append("log", { size }, size);
              if (++n % 2 === 0) ctx.disk.fsync("log");
              ctx.setTimerMs(1, write);
            };
            write();
            return {};
          }, { fsyncLatencyUs: 1_500, tearProbability: tear });
          sim.start("a");
          for (const ms of crashAtMs) sim.schedule(ms * 1000, () => sim.restart("a"));
          sim.runSync({ untilUs: 70_000 });
          expect(checker.finish()).toEqual([]);
        },
      ),
      { seed: 5, numRuns: 80 },
    );
  });
});
