/**
 * The recipe workload shape that property tests generate: the workload parameter
 * `recipeWorkload` and the client count reach the scripts and change what the workers do; bad
 * values are refused with an error naming them; the generator stays within what a script
 * accepts and generates only the knobs it reads.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { parseScenario } from "../../src/scenario/parse.js";
import { runScenario } from "../../src/scenario/run.js";
import { propertyScenario, workloadPlanArbitrary, type WorkloadPlan } from "../../src/scenario/scripts/recipe-run.js";
import { UserInputError } from "../../src/sim/errors.js";
import type { TraceEvent } from "../../src/sim/trace.js";

/** Lock acquisitions per client in a property-shaped run of recipe-lock with `workload`. */
async function acquisitions(workload: WorkloadPlan): Promise<Record<string, number>> {
  const scenario = propertyScenario(loadScenario("recipe-lock"), [], ["s1", "s2", "s3"], workload);
  const byClient: Record<string, number> = {};
  const onTraceEvent = (e: TraceEvent) => {
    if (e.kind === "recipe.lock" && e.fields?.event === "acquired") byClient[e.node] = (byClient[e.node] ?? 0) + 1;
  };
  const r = await runScenario(scenario, { seed: 1, onTraceEvent });
  expect(r.violations).toEqual([]);
  return byClient;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

describe("recipes: generated workload shape", () => {
  it("the client count and the pace reach the lock's workers", async () => {
    const five = await acquisitions({ clients: 5, recipeWorkload: {} });
    expect(Object.keys(five).sort()).toEqual(["c1", "c2", "c3", "c4", "c5"]);
    const fast = await acquisitions({ clients: 2, recipeWorkload: { pacePercent: 40 } });
    const slow = await acquisitions({ clients: 2, recipeWorkload: { pacePercent: 250 } });
    expect(Object.keys(slow).sort()).toEqual(["c1", "c2"]);
    // Faster workers in the same fault window take the lock more often.
    expect(total(fast)).toBeGreaterThan(2 * total(slow));
  });

  it("a start offset holds a worker back", async () => {
    const late = await acquisitions({ clients: 2, recipeWorkload: { startOffsetsMs: [0, 9000] } });
    const early = await acquisitions({ clients: 2, recipeWorkload: { startOffsetsMs: [0, 0] } });
    expect(late.c2).toBeLessThan(early.c2!);
  });

  it("bad workload parameters are refused, naming what was wrong", () => {
    const doc = (params: Record<string, unknown>) => ({ name: "x", durationMs: 1000, workload: { kind: "zk", script: "recipe-lock", servers: 3, clients: 2, ...params } });
    const refused = (params: Record<string, unknown>) => {
      try {
        parseScenario(doc(params), "test");
      } catch (err) {
        expect(err).toBeInstanceOf(UserInputError);
        return (err as Error).message;
      }
      throw new Error(`accepted ${JSON.stringify(params)}`);
    };
    expect(refused({ recipeWorkload: { pacePercent: 5 } })).toMatch(/recipeWorkload.*pacePercent is 5/);
    expect(refused({ recipeWorkload: { startOffsetsMs: [-1] } })).toMatch(/startOffsetsMs is \[-1\]/);
    expect(refused({ recipeWorkload: { priorities: [] } })).toMatch(/priorities is \[\]/);
    expect(refused({ recipeWorkload: { speed: 2 } })).toMatch(/unknown key "speed"/);
    expect(refused({ recipeWorkload: [] })).toMatch(/recipeWorkload: expected/);
    expect(refused({ clients: 9 })).toMatch(/script "recipe-lock" runs with 1 to 8 clients, got 9/);
  });

  it("the generator keeps to the script's client range and knobs", () => {
    for (const w of fc.sample(workloadPlanArbitrary(loadScenario("recipe-lock")), { numRuns: 200, seed: 3 })) {
      expect(w.clients).toBeGreaterThanOrEqual(2);
      expect(w.clients).toBeLessThanOrEqual(5);
      expect(Object.keys(w.recipeWorkload).sort()).toEqual(["pacePercent", "startOffsetsMs"]);
      expect(w.recipeWorkload.startOffsetsMs).toHaveLength(w.clients);
    }
    const counts = new Set(fc.sample(workloadPlanArbitrary(loadScenario("recipe-lock")), { numRuns: 200, seed: 3 }).map((w) => w.clients));
    expect([...counts].sort()).toEqual([2, 3, 4, 5]);
  });
});
