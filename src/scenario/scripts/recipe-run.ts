/**
 * Running a recipe scenario with the recipe checkers subscribed (until the lead registers them
 * as built-ins and lists them in the scenarios): registers `RECIPE_CHECKERS` and adds the
 * wanted ones to the scenario's checker list. Also used by property tests, which swap in a
 * generated fault schedule.
 */
import fc from "fast-check";
import { RECIPE_CHECKERS } from "../../check/recipes/index.js";
import { FAULT_WINDOW_END_MS, FAULT_WINDOW_START_MS } from "./recipe-support.js";
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

/** One generated disruption, undone after `forMs` (all within the recipe fault window). */
export type FaultPlan =
  | { kind: "crash-server"; node: string; atMs: number; forMs: number }
  | { kind: "partition-client"; node: string; atMs: number; forMs: number }
  | { kind: "pause-client"; node: string; atMs: number; forMs: number };

/**
 * Small fault schedules for property tests: up to `maxFaults` of crash/restart a server,
 * partition a client from every server, pause a client (up to 9 s: past its 4 s session
 * timeout), each starting and ending inside [FAULT_WINDOW_START_MS, FAULT_WINDOW_END_MS].
 */
export function faultPlanArbitrary(servers: readonly string[], clients: readonly string[], maxFaults = 3): fc.Arbitrary<FaultPlan[]> {
  const span = (maxForMs: number) => ({ atMs: fc.integer({ min: FAULT_WINDOW_START_MS, max: FAULT_WINDOW_END_MS - maxForMs }), forMs: fc.integer({ min: 500, max: maxForMs }) });
  const one: fc.Arbitrary<FaultPlan> = fc.oneof(
    fc.record({ kind: fc.constant("crash-server" as const), node: fc.constantFrom(...servers), ...span(7000) }),
    fc.record({ kind: fc.constant("partition-client" as const), node: fc.constantFrom(...clients), ...span(9000) }),
    fc.record({ kind: fc.constant("pause-client" as const), node: fc.constantFrom(...clients), ...span(9000) }),
  );
  return fc.array(one, { minLength: 0, maxLength: maxFaults });
}

/** The plan as a fault schedule (sorted by time; each disruption with its undo). */
export function faultsOf(plan: readonly FaultPlan[], servers: readonly string[]): Fault[] {
  const out: Fault[] = [];
  for (const p of plan) {
    const endMs = p.atMs + p.forMs;
    if (p.kind === "crash-server") out.push({ atMs: p.atMs, kind: "crash", node: p.node }, { atMs: endMs, kind: "restart", node: p.node });
    if (p.kind === "partition-client") {
      out.push({ atMs: p.atMs, kind: "cut", from: [p.node], to: [...servers] }, { atMs: endMs, kind: "heal", from: [p.node], to: [...servers] });
    }
    if (p.kind === "pause-client") out.push({ atMs: p.atMs, kind: "pause", node: p.node }, { atMs: endMs, kind: "resume", node: p.node });
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/** Server and client node names of a zk-workload scenario. */
export function nodesOf(scenario: Scenario): { servers: string[]; clients: string[] } {
  const p = scenario.workload.params;
  const servers = Array.from({ length: typeof p.servers === "number" ? p.servers : 1 }, (_, i) => `s${i + 1}`);
  const clients = Array.from({ length: typeof p.clients === "number" ? p.clients : 2 }, (_, i) => `c${i + 1}`);
  return { servers, clients };
}
