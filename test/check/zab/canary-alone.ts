/**
 * A canary proves a checker only if that checker alone catches it: the scenario fails with the
 * canary, every violation comes from the checker, and the scenario passes without the canary.
 */
import { expect } from "vitest";
import { loadScenario } from "../../../src/cli/scenario-files.js";
import { runScenario } from "../../../src/scenario/run.js";
import type { Canary } from "../../../src/scenario/canaries.js";

export async function expectCaughtAlone(scenarioName: string, seed: number, canary: Canary, checker: string): Promise<void> {
  const scenario = loadScenario(scenarioName);
  const broken = await runScenario(scenario, { seed, canary });
  expect(broken.violations.length).toBeGreaterThan(0);
  expect(new Set(broken.violations.map((v) => v.checker))).toEqual(new Set([checker]));
  const clean = await runScenario(scenario, { seed });
  expect(clean.violations).toEqual([]);
}
