/**
 * `assertSimulation`: runs `simulationProperty` with fast-check; on failure takes fast-check's
 * shrunk counterexample, re-runs it, writes it as a "replay/1" file (scenario/replay-file.ts)
 * into `outDir`, and throws a `SimulationFailure` whose message carries the fast-check seed and
 * path, the simulation seed, the file and a one-line replay command (`zksim replay <file>`).
 *
 * This is the property harness's one file with real I/O (it writes the replay file), like cli/:
 * the determinism lint exempts it. Everything it runs is simulated and deterministic.
 *
 * Shrinking is bounded by a count, not a clock (`maxShrinkRuns`): past the budget the property
 * reports every further candidate as passing without running it, so fast-check stops at the
 * smallest failing case found so far — the same case on every machine.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { runScenario } from "../scenario/run.js";
import { replayCaseFromRun, serializeReplayCase, type ReplayCase } from "../scenario/replay-file.js";
import type { RunResult, Scenario } from "../scenario/types.js";
import type { CoverageReport } from "./coverage-report.js";
import { describeViolations, simulationRunOptions, SimulationViolationError, type SimulationOptions } from "./simulation-property.js";

export interface AssertSimulationOptions extends SimulationOptions {
  numRuns: number;
  /** fast-check's seed: the same seed generates the same cases. */
  seed: number;
  /** Where the shrunk failing case is written as a replay file. */
  outDir: string;
  /** Property runs spent shrinking a failure, at most (default 150). */
  maxShrinkRuns?: number;
  /** The command a user types to replay (default "zksim"; e.g. "node bin/zksim.js"). */
  replayCommand?: string;
  /** Arguments after the file on the replay line (e.g. `--module ./lock.js` for a user's script). */
  replayArgs?: string;
  /** Called after every run: `case` for a generated case (the failing one included), `shrink` for a shrinking candidate. */
  onRun?: (scenario: Scenario, result: RunResult, phase: "case" | "shrink") => void;
}

/** What a failed `assertSimulation` found; the message says it all in a few lines. */
export class SimulationFailure extends Error {
  constructor(
    message: string,
    readonly fcSeed: number,
    readonly fcPath: string,
    readonly replayFile: string,
    readonly replayCase: ReplayCase,
    readonly result: RunResult,
    readonly numShrinks: number,
  ) {
    super(message);
    this.name = "SimulationFailure";
  }

  /** What the generated cases covered, up to the failing one (a user's property: `userScriptProperty`). */
  coverage?: CoverageReport;
}

export async function assertSimulation(arb: fc.Arbitrary<Scenario>, options: AssertSimulationOptions): Promise<void> {
  checkOptions(options);
  const maxShrinkRuns = options.maxShrinkRuns ?? 150;
  let failures = 0;
  let shrinkRuns = 0;
  const property = fc.asyncProperty(arb, async (scenario) => {
    if (failures > 0 && ++shrinkRuns > maxShrinkRuns) return; // budget spent: stop shrinking here
    const result = await runScenario(scenario, simulationRunOptions(scenario, options));
    options.onRun?.(scenario, result, failures > 0 ? "shrink" : "case");
    if (result.verdict === "pass") return;
    failures++;
    throw new SimulationViolationError(scenario, result);
  });
  const details = await fc.check(property, { numRuns: options.numRuns, seed: options.seed });
  if (!details.failed) return;
  if (details.counterexample === null) throw new Error(`assertSimulation: fast-check stopped without a counterexample (seed ${options.seed}): ${fc.defaultReportMessage(details) ?? "no report"}`);
  if (!(details.errorInstance instanceof SimulationViolationError)) throw details.errorInstance;
  const [scenario] = details.counterexample;
  // Re-run the shrunk case: the file records what this run produced (and proves it reproduces).
  const result = await runScenario(scenario, simulationRunOptions(scenario, options));
  const replayCase = replayCaseFromRun(scenario, options, result);
  const file = join(options.outDir, `${scenario.name}-fc${options.seed}-seed${result.seed}.json`);
  mkdirSync(options.outDir, { recursive: true });
  writeFileSync(file, serializeReplayCase(replayCase));
  const command = `${options.replayCommand ?? "zksim"} replay ${file}${options.replayArgs !== undefined ? ` ${options.replayArgs}` : ""}`;
  const reproduced = result.traceHash === details.errorInstance.result.traceHash;
  const message = [
    `simulation property failed after ${details.numRuns} run(s) and ${details.numShrinks} shrink(s) (fast-check seed ${details.seed}, path "${details.counterexamplePath}")`,
    `  shrunk case: ${scenario.description}; simulation seed ${result.seed}; trace hash ${result.traceHash}; ${scenario.faults.length} fault entries`,
    `  violations: ${describeViolations(result)}`,
    ...(reproduced ? [] : [`  NOT DETERMINISTIC: the re-run's trace hash ${result.traceHash} differs from the failing run's ${details.errorInstance.result.traceHash}`]),
    `  replay file: ${file}`,
    `  replay: ${command}`,
  ].join("\n");
  throw new SimulationFailure(message, details.seed, details.counterexamplePath, file, replayCase, result, details.numShrinks);
}

function checkOptions(o: AssertSimulationOptions): void {
  const at = "assertSimulation";
  if (!Number.isInteger(o.numRuns) || o.numRuns < 1) throw new RangeError(`${at}: numRuns must be a whole number ≥ 1, got ${o.numRuns}`);
  if (!Number.isInteger(o.seed)) throw new RangeError(`${at}: seed must be an integer, got ${o.seed}`);
  if (typeof o.outDir !== "string" || o.outDir === "") throw new RangeError(`${at}: outDir must name a directory`);
  if (o.maxShrinkRuns !== undefined && (!Number.isInteger(o.maxShrinkRuns) || o.maxShrinkRuns < 0)) throw new RangeError(`${at}: maxShrinkRuns must be a whole number ≥ 0, got ${o.maxShrinkRuns}`);
}
