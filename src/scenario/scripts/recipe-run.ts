/**
 * Running a recipe scenario with the recipe checkers subscribed (until the lead registers them
 * as built-ins and lists them in the scenarios): registers `RECIPE_CHECKERS` and adds the
 * wanted ones to the scenario's checker list. Also used by property tests, which swap in a
 * generated fault schedule (src/property/recipe-faults.ts).
 */
import { RECIPE_CHECKERS } from "../../check/recipes/index.js";
import { registerChecker } from "../workload.js";
import { runScenario } from "../run.js";
import type { Fault } from "../../sim/faults.js";
import type { RunOptions, RunResult, Scenario } from "../types.js";

export function registerRecipeCheckers(): void {
  for (const [name, make] of RECIPE_CHECKERS) registerChecker(name, make);
}

export interface RecipeRunOptions extends RunOptions {
  /** Recipe checkers to add (default: every one; they ignore runs without their recipe). */
  recipeCheckers?: readonly string[];
  /** Replaces the scenario's fault schedule. */
  faults?: readonly Fault[];
}

export function withRecipeCheckers(scenario: Scenario, options: RecipeRunOptions = {}): Scenario {
  registerRecipeCheckers();
  const wanted = options.recipeCheckers ?? [...RECIPE_CHECKERS.keys()];
  const checkers = [...scenario.checkers, ...wanted.filter((c) => !scenario.checkers.includes(c))];
  return { ...scenario, checkers, faults: options.faults !== undefined ? [...options.faults] : scenario.faults };
}

export async function runRecipeScenario(scenario: Scenario, options: RecipeRunOptions = {}): Promise<RunResult> {
  const { recipeCheckers, faults, ...run } = options;
  return runScenario(withRecipeCheckers(scenario, { ...(recipeCheckers !== undefined ? { recipeCheckers } : {}), ...(faults !== undefined ? { faults } : {}) }), run);
}

/** Server and client node names of a zk-workload scenario. */
export function nodesOf(scenario: Scenario): { servers: string[]; clients: string[] } {
  const p = scenario.workload.params;
  const servers = Array.from({ length: typeof p.servers === "number" ? p.servers : 1 }, (_, i) => `s${i + 1}`);
  const clients = Array.from({ length: typeof p.clients === "number" ? p.clients : 2 }, (_, i) => `c${i + 1}`);
  return { servers, clients };
}
