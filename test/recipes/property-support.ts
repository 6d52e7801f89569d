/**
 * The recipe property: under generated workloads (how many clients, the workers' pace and
 * start offsets, the items' priorities — the knobs the recipe's script reads) and generated
 * faults (the whole recipe vocabulary of `faultPlanArbitrary`: server and client crashes — right
 * after a drawn message or request too —, a server cut off, a client partitioned both ways or one
 * way, pauses past the session timeout, clock skew, slow or full disks, clogged and lossy links, a
 * CONNECTIONLOSS in the middle of a create) and any seed, a recipe scenario in its short timing has no violation — from the recipe's own checker or from any other (kernel, ZAB, client
 * history). One file per recipe calls it, so vitest spreads them over its workers.
 *
 * The property must be able to fail: `canaries` names broken twins (a naive recipe variant's
 * scenario, or a server canary) that the same property, on the same generated schedules, must
 * reject.
 *
 * A failure reports like every other failing run: fast-check's shrunk case is re-run and written
 * as a replay file (under `replay/`), and the report ends with its `zksim replay <file>` line.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { readReplayFile, writeReplayFile } from "../../src/cli/replay.js";
import { compareReplay, runReplayCase } from "../../src/scenario/replay.js";
import { replayCaseFromRun } from "../../src/scenario/replay-file.js";
import { runScenario } from "../../src/scenario/run.js";
import { nodesOf, propertyScenario, recipeRunPlanArbitrary, runRecipeScenario, withRecipeCheckers, type RecipeRunPlan } from "../../src/scenario/scripts/recipe-run.js";
import type { Canary, Scenario } from "../../src/scenario/types.js";

/**
 * Runs per property (docs/testing.md, "Test budget"): `npm test` runs the first FAST_RUNS generated
 * cases of each recipe, `npm run test:deep` all DEEP_RUNS of them (property.deep.test.ts; the same
 * fast-check seed draws the same cases in the same order, so the fast runs are the deep sweep's
 * first ones). FAST_RUNS keeps a recipe's `npm test` part to a few seconds of CPU (about 0.2 s a
 * run on CI's machine; it was 40, 145 s of the suite's CPU for fifteen recipes). The time per run
 * is printed. `ZKSIM_RECIPE_RUNS=1000 npx vitest run test/recipes/property-lock.test.ts` runs a
 * longer sweep of one recipe.
 */
export const FAST_RUNS = Number(process.env.ZKSIM_RECIPE_RUNS ?? 15);
export const DEEP_RUNS = 200;
const FC_SEED = Number(process.env.ZKSIM_FC_SEED ?? 6);
/** Runs a broken twin gets before the property must have failed. */
const CANARY_RUNS = 30;

export interface BrokenTwin {
  /** A naive variant's scenario (default: the recipe's own). */
  scenario?: string;
  /** A server canary to run it with. */
  canary?: Canary;
  /** Generated runs it gets before the property must have failed (default CANARY_RUNS): for a twin only a rarer plan shows. */
  runs?: number;
}

function property(scenario: Scenario, check: (plan: RecipeRunPlan, seed: number) => Promise<void>) {
  return fc.asyncProperty(recipeRunPlanArbitrary(scenario), fc.integer({ min: 1, max: 0x7fffffff }), check);
}

/**
 * Re-runs a failing generated case (fast-check's shrunk counterexample), writes it as a replay
 * file in `dir`, and returns the file and the failure's report, which ends with the case's
 * `zksim replay` line.
 */
async function replayReport(scenario: Scenario, servers: readonly string[], [plan, seed]: [RecipeRunPlan, number], dir: string, canary?: Canary) {
  const ran = withRecipeCheckers(propertyScenario(scenario, plan.faults, servers, plan.workload));
  const options = canary !== undefined ? { canary } : {};
  const result = await runScenario(ran, { seed, ...options });
  const file = join(dir, `${scenario.name}-fc${FC_SEED}-seed${seed}.json`);
  writeReplayFile(file, replayCaseFromRun(ran, options, result));
  const violations = result.violations.map((v) => `${v.checker}: ${v.message}`).join("; ");
  return { file, message: [`${scenario.name}: a generated case fails (fast-check seed ${FC_SEED}, simulation seed ${seed}): ${violations}`, `  replay file: ${file}`, `  replay: zksim replay ${file}`].join("\n") };
}

/** The property over `runs` generated cases: no violation. */
function generatedRuns(name: string, scenario: Scenario, servers: readonly string[], runs: number): void {
  it(`${name}: ${runs} generated workloads; generated faults (crashes, pauses, partitions, clock skew, disk and link faults, a lost create reply) — no violation`, async () => {
    let totalMs = 0;
    let ran = 0;
    const outcome = await fc.check(
      property(scenario, async ({ workload, faults }, seed) => {
        const t0 = performance.now();
        const r = await runRecipeScenario(propertyScenario(scenario, faults, servers, workload), { seed });
        totalMs += performance.now() - t0;
        ran++;
        expect(r.violations).toEqual([]);
      }),
      { numRuns: runs, seed: FC_SEED },
    );
    if (outcome.failed && outcome.counterexample !== null) throw new Error((await replayReport(scenario, servers, outcome.counterexample, "replay")).message);
    expect(outcome.failed, fc.defaultReportMessage(outcome)).toBe(false);
    console.log(`${name}: ${ran} runs, ${(totalMs / ran).toFixed(0)} ms per run`);
  }, 600_000);
}

/** The long sweep of one recipe's property (`npm run test:deep`). */
export function recipePropertySweep(name: string): void {
  const scenario = loadScenario(name);
  describe(`recipes: property: ${name} under generated faults (N=3), the long sweep`, () => {
    generatedRuns(name, scenario, nodesOf(scenario).servers, DEEP_RUNS);
  });
}

/** `npm test`'s part of a recipe's property: its first FAST_RUNS cases, and its broken twins. */
export function recipeProperty(name: string, twins: readonly BrokenTwin[] = []): void {
  const scenario = loadScenario(name);
  const { servers } = nodesOf(scenario);
  describe(`recipes: property: ${name} under generated faults (N=3)`, () => {
    generatedRuns(name, scenario, servers, FAST_RUNS);

    for (const twin of twins) {
      const label = [twin.scenario, twin.canary !== undefined ? `canary ${twin.canary}` : undefined].filter((x) => x !== undefined).join(", ");
      it(`${name}: the property fails for its broken twin (${label})`, async () => {
        const broken = twin.scenario !== undefined ? loadScenario(twin.scenario) : scenario;
        const outcome = fc.check(
          property(broken, async ({ workload, faults }, seed) => {
            const r = await runRecipeScenario(propertyScenario(broken, faults, servers, workload), { seed, ...(twin.canary !== undefined ? { canary: twin.canary } : {}) });
            expect(r.violations).toEqual([]);
          }),
          { numRuns: twin.runs ?? CANARY_RUNS, seed: FC_SEED, endOnFailure: true },
        );
        const failed = await outcome;
        expect(failed.failed, `${label} passed ${twin.runs ?? CANARY_RUNS} generated runs`).toBe(true);
        // Its report names a replay file that `zksim replay` reproduces.
        const report = await replayReport(broken, servers, failed.counterexample!, mkdtempSync(join(tmpdir(), "zksim-recipe-property-")), twin.canary);
        expect(report.message).toContain(`  replay: zksim replay ${report.file}`);
        const saved = readReplayFile(report.file);
        expect(compareReplay(saved, await runReplayCase(saved)).reproduced).toBe(true);
      }, Math.max(300_000, (twin.runs ?? CANARY_RUNS) * 10_000));
    }
  });
}
