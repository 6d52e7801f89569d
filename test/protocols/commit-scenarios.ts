/** Shared by the 2PC and 3PC scenario tests: run a named scenario, report what the tests pin. */
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import type { RunResult } from "../../src/scenario/types.js";

export async function runNamed(name: string, seed?: number, variant?: string): Promise<RunResult> {
  return runScenario(loadScenario(name, variant), seed === undefined ? {} : { seed });
}

export function checkersOf(r: RunResult): string[] {
  return [...new Set(r.violations.map((v) => v.checker))].sort();
}
