import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { loadScenario } from "../../../src/cli/scenario-files.js";
import { runScenario } from "../../../src/scenario/run.js";
import { faultScheduleArbitrary } from "../../../src/property/fault-schedule.js";

/**
 * fast-check: the failover scenario's cluster (3 replicas, 3 clients, lease on) under generated
 * fault schedules keeps per-slot agreement, state-machine safety and linearizability; the
 * leader that skips phase 1 breaks them on some generated schedule. Clock-rate faults are left
 * out: the master lease assumes clocks that run at the same rate (Chubby does too).
 */
const base = { ...loadScenario("multipaxos-leader-failover"), durationMs: 1500, convergence: { budgetMs: 1000 } };
const nodes = { servers: ["r1", "r2", "r3"], clients: ["c1", "c2", "c3"] };
const kinds = ["crash", "pause", "partition", "cut", "clog", "loss", "duplicate", "slow-fsync", "disk-full"] as const;
const schedules = faultScheduleArbitrary(nodes, { startMs: 0, endMs: 1500 }, { kinds, maxDisruptions: 4 });

describe("multi-paxos under generated fault schedules", () => {
  it("slot agreement, state-machine safety and linearizability hold", async () => {
    await fc.assert(
      fc.asyncProperty(schedules, fc.integer({ min: 1, max: 1_000_000 }), async (faults, seed) => {
        const r = await runScenario({ ...base, faults }, { seed });
        expect(r.violations).toEqual([]);
      }),
      { numRuns: 15 },
    );
  }, 120_000);

  it("a leader that skips phase 1 is caught", async () => {
    const broken = { ...loadScenario("multipaxos-leader-failover", "skip-phase-1"), durationMs: 1500, convergence: { budgetMs: 1000 } };
    const out = await fc.check(
      fc.asyncProperty(schedules, fc.integer({ min: 1, max: 1_000_000 }), async (faults, seed) => (await runScenario({ ...broken, faults }, { seed })).verdict === "pass"),
      { numRuns: 30 },
    );
    expect(out.failed).toBe(true);
  }, 120_000);
});
