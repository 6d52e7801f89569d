import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { BUG_ZOO } from "../../src/scenario/bug-zoo.js";
import type { TraceEvent } from "../../src/sim/trace.js";

describe("bug zoo: scenarios", () => {
  for (const bug of BUG_ZOO) {
    it(`${bug.scenario}: same seed, same trace, with and without ${bug.id}`, async () => {
      const scenario = loadScenario(bug.scenario);
      for (const bugs of [[], [bug.id]]) {
        const a = await runScenario(scenario, { seed: scenario.defaultSeed, bugs });
        const b = await runScenario(scenario, { seed: scenario.defaultSeed, bugs });
        expect(b.traceHash, `${bug.scenario} ${bugs.join(",")}`).toBe(a.traceHash);
      }
    });
  }

  it("every bug has its own scenario, and its scenario is tagged as one", () => {
    expect(new Set(BUG_ZOO.map((b) => b.scenario)).size).toBe(BUG_ZOO.length);
    for (const bug of BUG_ZOO) expect(loadScenario(bug.scenario).tags, bug.scenario).toContain("bug");
  });

  it("bug-4394 without the bug still crosses the window: a COMMIT reaches the rejoining learner between NEWLEADER and UPTODATE", async () => {
    const events: TraceEvent[] = [];
    await runScenario(loadScenario("bug-4394"), { onTraceEvent: (e) => e.kind === "deliver" && e.node === "s2" && events.push(e) });
    const types = events.map((e) => e.detail);
    const lastNewLeader = types.lastIndexOf("NEWLEADER");
    const upToDate = types.indexOf("UPTODATE", lastNewLeader);
    expect(lastNewLeader).toBeGreaterThan(0);
    expect(types.slice(lastNewLeader + 1, upToDate)).toContain("COMMIT");
  });
});
