import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { loadScenario } from "../../../src/cli/scenario-files.js";
import { runScenario } from "../../../src/scenario/run.js";
import { faultScheduleArbitrary } from "../../../src/property/fault-schedule.js";

/**
 * fast-check properties: paxos-basic's cluster under generated fault schedules (crashes, pauses,
 * partitions, cuts, clogs, loss, duplication, clock skew, slow fsync, a full disk — each undone
 * inside the window) keeps every Paxos invariant; the broken twin that ignores its promises'
 * values does not, and fast-check finds a schedule that shows it.
 */
const base = loadScenario("paxos-basic");
const nodes = { servers: ["p1", "p2", "a1", "a2", "a3", "l1", "l2"], clients: [] };
const schedules = faultScheduleArbitrary(nodes, { startMs: 0, endMs: 1500 }, { maxDisruptions: 4 });

describe("paxos under generated fault schedules", () => {
  it("agreement, validity, learned ⇒ chosen and liveness hold", async () => {
    await fc.assert(
      fc.asyncProperty(schedules, fc.integer({ min: 1, max: 1_000_000 }), async (faults, seed) => {
        const r = await runScenario({ ...base, durationMs: 1500, faults }, { seed });
        expect(r.violations).toEqual([]);
      }),
      { numRuns: 40 },
    );
  }, 60_000);

  it("the proposer that ignores its promises is caught", async () => {
    const broken = loadScenario("paxos-basic", "ignore-promised-values");
    const failed = await fc.check(
      fc.asyncProperty(schedules, async (faults) => (await runScenario({ ...broken, durationMs: 1500, faults }, { seed: 1 })).verdict === "pass"),
      { numRuns: 20 },
    );
    expect(failed.failed).toBe(true);
  }, 60_000);
});
