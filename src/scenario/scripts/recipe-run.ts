/**
 * Running a recipe scenario in tests with more recipe checkers than its defaults: adds the
 * wanted ones (every one, unless named) to the scenario's checker list, so a test judges a run
 * by checkers its script did not declare too. Also used by property tests, which swap in a
 * generated fault schedule.
 */
import fc from "fast-check";
import { RECIPE_CHECKERS } from "../../check/recipes/index.js";
import { STALL_MS } from "../../check/recipes/exclusive.js";
import { RECIPE_TIMINGS, type CreateLossTrap } from "./recipe-support.js";
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
  | { kind: "isolate-server"; node: string; atMs: number; forMs: number }
  | { kind: "partition-client"; node: string; atMs: number; forMs: number; direction: "both" | "to-client" | "from-client" }
  | { kind: "pause-client"; node: string; atMs: number; forMs: number }
  | { kind: "create-loss"; node: string; atMs: number; forMs: number };

/**
 * Small fault schedules for property tests, inside the short timing's fault window: up to
 * `maxFaults` of crash/restart a server, cut a server off from the other servers, partition a
 * client from every server (both ways, or one way only: its requests arrive but no reply
 * does, or the reverse), pause a client, and a CONNECTIONLOSS in the middle of a client's
 * next create. Partitions and pauses last up to 6 s, past the recipes' 4 s session timeout.
 */
export function faultPlanArbitrary(servers: readonly string[], clients: readonly string[], maxFaults = 3): fc.Arbitrary<FaultPlan[]> {
  const { faultWindowStartMs: start, faultWindowEndMs: end } = RECIPE_TIMINGS.short;
  const span = (minForMs: number, maxForMs: number) => ({ atMs: fc.integer({ min: start, max: end - maxForMs }), forMs: fc.integer({ min: minForMs, max: maxForMs }) });
  const server = fc.constantFrom(...servers);
  const client = fc.constantFrom(...clients);
  const one: fc.Arbitrary<FaultPlan> = fc.oneof(
    fc.record({ kind: fc.constant("crash-server" as const), node: server, ...span(500, 5000) }),
    fc.record({ kind: fc.constant("isolate-server" as const), node: server, ...span(500, 5000) }),
    fc.record({ kind: fc.constant("partition-client" as const), node: client, ...span(500, 6000), direction: fc.constantFrom("both" as const, "to-client" as const, "from-client" as const) }),
    fc.record({ kind: fc.constant("pause-client" as const), node: client, ...span(500, 6000) }),
    fc.record({ kind: fc.constant("create-loss" as const), node: client, ...span(1000, 5000) }),
  );
  return fc.array(one, { minLength: 0, maxLength: maxFaults });
}

/** The plan's timed faults (sorted by time; each disruption with its undo). */
export function faultsOf(plan: readonly FaultPlan[], servers: readonly string[]): Fault[] {
  const out: Fault[] = [];
  for (const p of plan) {
    const [atMs, endMs] = [p.atMs, p.atMs + p.forMs];
    if (p.kind === "crash-server") out.push({ atMs, kind: "crash", node: p.node }, { atMs: endMs, kind: "restart", node: p.node });
    if (p.kind === "pause-client") out.push({ atMs, kind: "pause", node: p.node }, { atMs: endMs, kind: "resume", node: p.node });
    if (p.kind === "isolate-server") {
      const links = { from: [p.node], to: servers.filter((s) => s !== p.node) };
      out.push({ atMs, kind: "cut", ...links }, { atMs: endMs, kind: "heal", ...links });
    }
    if (p.kind === "partition-client") {
      const links = p.direction === "to-client" ? { from: [...servers], to: [p.node], oneWay: true } : { from: [p.node], to: [...servers], oneWay: p.direction === "from-client" };
      out.push({ atMs, kind: "cut", ...links }, { atMs: endMs, kind: "heal", ...links });
    }
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/**
 * The scenario a property run executes: the short timing, the plan's faults instead of the
 * scenario's, its create-loss traps as a workload parameter. A plain scenario, so a failing
 * case replays with `runRecipeScenario(propertyScenario(scenario, plan, servers), { seed })`.
 */
export function propertyScenario(scenario: Scenario, plan: readonly FaultPlan[], servers: readonly string[]): Scenario {
  const traps: CreateLossTrap[] = plan.filter((p) => p.kind === "create-loss").map(({ node, atMs, forMs }) => ({ node, atMs, forMs }));
  return {
    ...scenario,
    durationMs: RECIPE_TIMINGS.short.durationMs,
    workload: { ...scenario.workload, params: { ...scenario.workload.params, recipeTiming: "short", createLossTraps: traps } },
    faults: faultsOf(plan, servers),
    // The recipe checkers' quiet period after the last fault fits in the run: no extension.
    convergence: { budgetMs: STALL_MS },
  };
}

/** Server and client node names of a zk-workload scenario. */
export function nodesOf(scenario: Scenario): { servers: string[]; clients: string[] } {
  const p = scenario.workload.params;
  const servers = Array.from({ length: typeof p.servers === "number" ? p.servers : 1 }, (_, i) => `s${i + 1}`);
  const clients = Array.from({ length: typeof p.clients === "number" ? p.clients : 2 }, (_, i) => `c${i + 1}`);
  return { servers, clients };
}
