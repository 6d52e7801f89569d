/**
 * `userScriptProperty`: "does my code survive partitions, pauses and leader failover?" as a
 * fast-check property. Each case is a world drawn with the property harness's arbitraries
 * (src/property/: `clusterArbitrary` for the ensemble, `disruptionsArbitrary` for the fault
 * schedule, re-aimed at the case's nodes by `projectDisruption`) and a client count; the user's
 * script runs in it with every built-in checker and the script's own. A failing case is shrunk
 * (fewer, shorter, milder disruptions; a smaller ensemble) by `assertSimulation`, re-run,
 * written as a replay file, and reported by a `SimulationFailure` whose message ends with the
 * one-line command that replays it: `npx zksim replay FILE --module ./src/lock.js`.
 *
 * The simulation seed of a case is drawn but never shrunk (another seed is another run).
 */
import fc from "fast-check";
import { UserInputError } from "../sim/errors.js";
import { clusterArbitrary, maxServerNodes, type ClusterOptions } from "../property/cluster.js";
import { disruptionsArbitrary, type FaultScheduleOptions } from "../property/fault-schedule.js";
import { faultsOf, healedAtMs, projectDisruption } from "../property/disruptions.js";
import { nodesOf } from "../property/scenario.js";
import { assertSimulation, SimulationFailure } from "../property/assert-simulation.js";
import { CoverageAccumulator, formatCoverage, type CoverageReport } from "../property/coverage-report.js";
import { CoverageTally } from "./coverage.js";
import { FAULT_MIXES } from "./fault-mixes.js";
import type { Scenario } from "../scenario/types.js";
import { moduleArgOf } from "./files.js";
import { userRunOptions } from "./run-user-script.js";
import { isUserScript, type UserScript } from "./user-script.js";
import { worldScenario, type WorldOptions } from "./world-options.js";

/** Generated fault schedules: the kinds and counts (src/property/), inside a window of virtual time. */
export interface PropertyFaultOptions extends FaultScheduleOptions {
  /** Faults start at or after this (default 1000 ms: the ensemble has elected a leader). */
  startMs?: number;
  /** …and are undone by this (default 20 000 ms). */
  endMs?: number;
}

/** Options of `userScriptProperty`. */
export interface UserPropertyOptions {
  /** fast-check runs (cases), at least 1. */
  numRuns: number;
  /** fast-check's seed: the same seed draws the same cases. */
  seed: number;
  /** Where the shrunk failing case's replay file is written. */
  outDir: string;
  /** Ensembles to draw (default: 3 voters, no observers, tickTime 2000). */
  cluster?: ClusterOptions;
  /** Fault schedules to draw (default `FAULT_MIXES.default`: up to 4 disruptions of every kind in [1000, 20000] ms, isolated servers weighted 3). */
  faults?: PropertyFaultOptions;
  /** Client nodes to draw (default exactly 2). */
  workload?: { clients?: { min: number; max: number } };
  /** The rest of the world, the same for every case (network, disk, run length, checkers). */
  world?: Pick<WorldOptions, "network" | "disk" | "durationMs" | "convergenceBudgetMs" | "checkers">;
  /** Runs spent shrinking a failure, at most (default 60). */
  maxShrinkRuns?: number;
  /** The command that starts zksim, for the printed replay line (default "npx zksim"). */
  replayCommand?: string;
  /** The coverage report printed after the run (stdout): "text" (default), "json" (one line), "off". Returned or attached either way. */
  coverage?: "text" | "json" | "off";
}

/** What a passing property run covered (a failing one throws, with `failure.coverage`). */
export interface UserPropertyReport {
  coverage: CoverageReport;
}

const DEFAULT_CLUSTER: ClusterOptions = { sizes: [3], maxObservers: 0, tickTimeMs: { min: 2000, max: 2000 } };

/**
 * Runs the property; resolves when every case passes, throws a `SimulationFailure` (shrunk case,
 * replay file, replay command in its message) when one fails. Bad options throw UserInputError.
 */
export async function userScriptProperty(script: UserScript, options: UserPropertyOptions): Promise<UserPropertyReport> {
  const at = "userScriptProperty";
  if (!isUserScript(script)) throw new UserInputError(`${at}: the first argument must be a defineUserScript(…) value`);
  checkOptions(options, at);
  const module = moduleArgOf(script.module);
  const drawn = new WeakMap<Scenario, readonly string[]>();
  const arb = userScenarioArbitrary(script, options, module, drawn);
  const { registry, extraCheckers = [] } = userRunOptions(script, 0);
  // One tally per run (runs are sequential); the generated cases' are summed, the shrinking runs' dropped.
  const coverage = new CoverageAccumulator(script.labels);
  let tally: CoverageTally | undefined;
  const report = (): CoverageReport => {
    const r = coverage.result();
    if (options.coverage === "json") console.log(JSON.stringify({ coverage: r }));
    else if (options.coverage !== "off") console.log(formatCoverage(r, `${at}(${script.export}) coverage`));
    return r;
  };
  try {
    await assertSimulation(arb, {
      numRuns: options.numRuns,
      seed: options.seed,
      outDir: options.outDir,
      maxShrinkRuns: options.maxShrinkRuns ?? 60,
      replayCommand: options.replayCommand ?? "npx zksim",
      replayArgs: `--module ${module}`,
      ...(registry !== undefined ? { registry } : {}),
      extraCheckers: [...extraCheckers, () => (tally = new CoverageTally())],
      onRun(scenario, _result, phase) {
        if (phase === "case" && tally !== undefined) coverage.add(tally.coverage(drawn.get(scenario) ?? []));
      },
    });
  } catch (err) {
    if (err instanceof SimulationFailure) err.coverage = report();
    throw err;
  }
  return { coverage: report() };
}

/** The generated worlds of the property, as scenarios of the "user" workload. */
export function userScenarioArbitrary(script: UserScript, options: UserPropertyOptions, module: string, drawn?: WeakMap<Scenario, readonly string[]>): fc.Arbitrary<Scenario> {
  const at = "userScriptProperty";
  const faults: PropertyFaultOptions = options.faults ?? FAULT_MIXES.default;
  const { startMs = 1000, endMs = 20_000, ...kinds } = faults;
  const clients = options.workload?.clients ?? { min: 2, max: 2 };
  const cluster = { ...DEFAULT_CLUSTER, ...options.cluster };
  const world = options.world ?? {};
  // Validated once here (as the first case would), so a bad option fails before fast-check runs.
  worldScenario(script, world, at, module);
  const largest = nodesOf({ servers: maxServerNodes(cluster), observers: 0 }, { clients: clients.max });
  let arbitraries;
  try {
    arbitraries = {
      seed: fc.noShrink(fc.integer({ min: 0, max: 0x7fffffff })),
      cluster: clusterArbitrary(cluster),
      clients: fc.integer(clients),
      disruptions: disruptionsArbitrary(largest, { startMs, endMs }, kinds),
    };
  } catch (err) {
    if (err instanceof RangeError) throw new UserInputError(`${at}: ${err.message}`);
    throw err;
  }
  return fc.record(arbitraries).map(({ seed, cluster: c, clients: n, disruptions }) => {
    const nodes = nodesOf(c, { clients: n });
    const projected = disruptions.flatMap((d) => projectDisruption(d, nodes) ?? []);
    const durationMs = Math.max(world.durationMs ?? 60_000, healedAtMs(projected) + 1000);
    const w: WorldOptions = { ...world, ...c, clients: n, seed, durationMs, faults: faultsOf(projected) };
    const scenario = worldScenario(script, w, at, module);
    drawn?.set(scenario, projected.map((d) => d.kind));
    return scenario;
  });
}

function checkOptions(o: UserPropertyOptions, at: string): void {
  if (typeof o !== "object" || o === null) throw new UserInputError(`${at}: options { numRuns, seed, outDir } are required`);
  if (!Number.isSafeInteger(o.numRuns) || o.numRuns < 1) throw new UserInputError(`${at}: options.numRuns must be a whole number ≥ 1, got ${JSON.stringify(o.numRuns)}`);
  if (!Number.isSafeInteger(o.seed)) throw new UserInputError(`${at}: options.seed must be an integer, got ${JSON.stringify(o.seed)}`);
  if (typeof o.outDir !== "string" || o.outDir === "") throw new UserInputError(`${at}: options.outDir must name a directory for the replay file`);
  if (o.maxShrinkRuns !== undefined && (!Number.isSafeInteger(o.maxShrinkRuns) || o.maxShrinkRuns < 0)) throw new UserInputError(`${at}: options.maxShrinkRuns must be a whole number ≥ 0, got ${JSON.stringify(o.maxShrinkRuns)}`);
  const f = o.faults ?? {};
  for (const key of ["startMs", "endMs"] as const) {
    const v = f[key];
    if (v !== undefined && (!Number.isSafeInteger(v) || v < 0)) throw new UserInputError(`${at}: options.faults.${key} must be a whole number of ms ≥ 0, got ${JSON.stringify(v)}`);
  }
  const c = o.workload?.clients;
  if (c !== undefined && !(Number.isSafeInteger(c.min) && Number.isSafeInteger(c.max) && 1 <= c.min && c.min <= c.max && c.max <= 50)) {
    throw new UserInputError(`${at}: options.workload.clients must be whole numbers with 1 ≤ min ≤ max ≤ 50, got ${JSON.stringify(c)}`);
  }
}
