/**
 * `simulationProperty`: a generated scenario, run with its checkers, as a fast-check property —
 * it holds when the run has no violation. A failing run throws `SimulationViolationError`,
 * which names the violations and keeps the run's result for the report.
 */
import fc from "fast-check";
import { runScenario } from "../scenario/run.js";
import type { Canary, RunOptions, RunResult, Scenario } from "../scenario/types.js";

export interface SimulationOptions {
  /** Bug-zoo ids to re-inject (`--bug`): the property should then fail. */
  bugs?: readonly string[];
  /** A deliberately broken build (`--canary`): the property should then fail. */
  canary?: Canary;
  /** Where the scenarios' workloads and checkers are found (default: the built-ins; a user's script: src/api/). */
  registry?: RunOptions["registry"];
  /** Checkers beyond the scenarios' named ones (a user's own). */
  extraCheckers?: RunOptions["extraCheckers"];
}

export class SimulationViolationError extends Error {
  constructor(
    readonly scenario: Scenario,
    readonly result: RunResult,
  ) {
    super(`${result.violations.length} violation(s) in ${scenario.name} seed ${result.seed} (trace ${result.traceHash}): ${describeViolations(result)}`);
    this.name = "SimulationViolationError";
  }
}

/** The options that run a scenario of this property (its own seed, the bugs, the canary). */
export function simulationRunOptions(scenario: Scenario, options: SimulationOptions): RunOptions {
  return {
    seed: scenario.defaultSeed,
    ...(options.bugs !== undefined && options.bugs.length > 0 ? { bugs: options.bugs } : {}),
    ...(options.canary !== undefined ? { canary: options.canary } : {}),
    ...(options.registry !== undefined ? { registry: options.registry } : {}),
    ...(options.extraCheckers !== undefined ? { extraCheckers: options.extraCheckers } : {}),
  };
}

export function simulationProperty(arb: fc.Arbitrary<Scenario>, options: SimulationOptions = {}): fc.IAsyncPropertyWithHooks<[Scenario]> {
  return fc.asyncProperty(arb, async (scenario) => {
    const result = await runScenario(scenario, simulationRunOptions(scenario, options));
    if (result.verdict === "fail") throw new SimulationViolationError(scenario, result);
  });
}

/** "[checker] message; …", the first few, one line each shortened. */
export function describeViolations(result: RunResult, max = 3): string {
  const shown = result.violations.slice(0, max).map((v) => `[${v.checker}] ${v.message.length > 300 ? `${v.message.slice(0, 300)}…` : v.message}`);
  const more = result.violations.length > max ? `; and ${result.violations.length - max} more` : "";
  return shown.join("; ") + more;
}
