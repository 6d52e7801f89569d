/**
 * The recipe property: under generated faults (crash/restart a server, partition or pause a
 * client past its session timeout) and any seed, a recipe scenario has no violation — from the
 * recipe's own checker or from any other (kernel, ZAB, client history). One file per recipe
 * calls it, so vitest spreads them over its workers.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { nodesOf, runRecipeScenario } from "../../src/scenario/scripts/recipe-run.js";
import { faultPlanArbitrary, faultsOf } from "../../src/property/index.js";

/**
 * Runs per property. The issue asks for 200 per recipe eventually; the suite keeps ~30 so it
 * stays fast (the time per run is printed, so the cost of 200 is RUN_MS × 200).
 * `ZKSIM_RECIPE_RUNS=200 npx vitest run test/recipes` runs the full sweep.
 */
const RUNS = Number(process.env.ZKSIM_RECIPE_RUNS ?? 30);
const FC_SEED = Number(process.env.ZKSIM_FC_SEED ?? 6);

export function recipeProperty(name: string): void {
  describe(`recipes: property: ${name} under generated faults (N=3)`, () => {
    it(`${name}: crash/restart a server, partition or pause a client past its timeout — no violation`, async () => {
      const scenario = loadScenario(name);
      const { servers, clients } = nodesOf(scenario);
      let totalMs = 0;
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(faultPlanArbitrary(servers, clients), fc.integer({ min: 1, max: 0x7fffffff }), async (plan, seed) => {
          const t0 = performance.now();
          const r = await runRecipeScenario(scenario, { seed, faults: faultsOf(plan) });
          totalMs += performance.now() - t0;
          runs++;
          expect(r.violations, `replay: seed ${seed}, faults ${JSON.stringify(faultsOf(plan))}`).toEqual([]);
        }),
        { numRuns: RUNS, seed: FC_SEED, endOnFailure: true },
      );
      console.log(`${name}: ${runs} runs, ${(totalMs / runs).toFixed(0)} ms per run`);
    }, 300_000);
  });
}
