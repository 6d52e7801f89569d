/**
 * `zksim explore <scenario> --seeds N [--from S] [--workers K] [--shard i/n] [--bug ID]
 * [--canary NAME] [--variant V] [--generate] [--json] [--save-dir DIR]`: runs a scenario over a range of seeds and reports
 * every failing seed with its one-line replay command. With --save-dir, each failing seed that
 * ran to the end is also written as a replay file `DIR/<scenario>-seed-<N>.json` (`zksim
 * replay`, `zksim shrink`); a seed whose run threw has no trace hash to record and is only listed.
 * --save-dir also gets the sweep report (sweep-report.ts), and `zksim explore --merge DIR…`
 * combines the reports of a sweep's shards into what one unsharded run would print (docs/sweeps.md).
 *
 * Output: a progress bar on a TTY (never with --json), then one line per failure and a summary;
 * with --json only one line `{scenario, seedsRun, failures: [{seed, checker, replay}],
 * expected: [...], seedsPerSec}` (and `interrupted: true` after a SIGINT). A seed whose only
 * violations are of the scenario's declared flaws (`expectedViolations`, scenario/verdict.ts)
 * is listed apart under `expected`, grouped by checker with the declaration's reason: it is not
 * a failure. Exit 1 if any seed failed, 0 when every seed passed or showed only expected
 * violations, 2 on bad input. The lists are sorted by seed and do not depend on --workers.
 *
 * SIGINT (Ctrl-C) or SIGTERM: the sweep stops taking seeds (a seed already running in-process finishes
 * first; workers drop theirs), prints the summary of the seeds that ran — failures with their
 * replay lines, the JSON line under --json, replay files under --save-dir — and exits 130 (143 after
 * SIGTERM). A second signal exits at once.
 *
 * --save-dir is created before the sweep (a bad directory is exit 2 before any run); a replay
 * file that cannot be written afterwards (a full disk) is one stderr line, and the exit code
 * stays the sweep's: the failures and their replay lines are printed first.
 */
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { UserInputError } from "../../sim/errors.js";
import { CANARIES, type Canary } from "../../scenario/types.js";
import { bugEntry } from "../../scenario/bug-zoo.js";
import { boolFlag, intFlag, parseArgs, stringFlag } from "../args.js";
import type { Command } from "../command.js";
import { OutputError, ensureDir, writeOutputFile } from "../files.js";
import { loadScenario } from "../scenario-files.js";
import { exploreInProcess, exploreInWorkers, type SeedOutcome, type SeedRunOptions } from "./explore.js";
import { ProgressBar } from "./progress.js";
import { formatFraction } from "../../scenario/judged.js";
import { coverageLines, leftOutOf, perThousand, summarizeCoverage, type CoverageSummary } from "./coverage-report.js";
import { join } from "node:path";
import { onStopSignals, SIGNAL_EXIT } from "../../base/stop-signals.js";
import type { Scenario } from "../../scenario/types.js";
import { writeReplayFile } from "../replay.js";
import { scenarioAsRun } from "../../scenario/replay-file.js";
import { assertRecipeScenario, generatedRecipeScenario } from "../../scenario/scripts/recipe-run.js";
import { parseShard, shardSeeds, type Shard } from "./seeds.js";
import { SWEEP_REPORT_KIND, SWEEP_REPORT_VERSION, findSweepReports, mergeSweepReports, readSweepReport, sweepReportFileName, type MergedSweep, type SweepReport } from "./sweep-report.js";

export interface ExploreFailure {
  seed: number;
  checker: string;
  replay: string;
}

export interface ExploreReport {
  scenario: string;
  seedsRun: number;
  failures: ExploreFailure[];
  /** Seeds whose only violations are the scenario's documented flaws: not failures. */
  expected: ExploreFailure[];
  /** Passing seeds with stretches a checker could not judge (not failures; docs/long-runs.md). */
  seedsWithUnknown: number;
  /**
   * How much the checkers judged over the sweep: the mean fraction of checker-time judged per
   * seed (scenario/judged.ts), the seeds judged only in part, and per checker how many seeds
   * it read no event on.
   */
  judged: { fraction: number; seedsPartly: number; idle: Record<string, number> };
  seedsPerSec: number;
  /** How many seeds per 1,000 reached each fault kind and protocol state (0: declared, never reached). */
  coverage: { seeds: number; perThousand: Record<string, number> };
  /** The faults the scenario's nemesis declares it leaves out, and why. */
  leftOut: { fault: string; why: string }[];
  /** Present (true) when a SIGINT stopped the sweep early. */
  interrupted?: true;
}


interface ExploreRequest {
  /** The scenario as the user named it (a name or a path), for workers and replay lines. */
  scenarioArg: string;
  /** `--variant`, for workers and replay lines. */
  variant: string | undefined;
  /** The whole range `from … from+count−1`, before sharding. */
  from: number;
  count: number;
  seeds: number[];
  workers: number;
  options: SeedRunOptions;
  shard: Shard | undefined;
  json: boolean;
  saveDir: string | undefined;
}

/** The seed list is built up front; ten million seeds is already days of runs. */
const MAX_SEEDS = 10_000_000;
/** Each worker is a thread with its own heap and a copy of the simulator: past this a sweep only thrashes. */
const MAX_WORKERS = 256;

const FLAGS = { strict: "bool", merge: "bool", seeds: "int", from: "int", workers: "int", shard: "string", bug: "string", canary: "string", variant: "string", generate: "bool", json: "bool", "save-dir": "string" } as const;

export const explore: Command = {
  name: "explore",
  args: "<scenario> --seeds N [--from S] [--workers K] [--shard i/n] [--bug ID] [--canary NAME] [--variant V] [--generate] [--strict] [--json] [--save-dir DIR] | --merge DIR… [--json]",
  help: `sweep seeds S … S+N-1 (default S = 1) on K worker threads; exit 1 if any fails
(--save-dir: one replay file per failing seed, DIR/<scenario>-seed-<N>.json, and the sweep report;
--merge DIR…: combine the sweep reports of a sharded sweep's --save-dir directories;
--generate: each seed draws its own workload shape and faults, as in run;
--strict: a seed whose checkers left a stretch unjudged, or read no event, fails;
Ctrl-C or SIGTERM: the summary of the seeds run so far, exit ${SIGNAL_EXIT.SIGINT} (${SIGNAL_EXIT.SIGTERM} after SIGTERM))`,
  run: cmdExplore,
};

async function cmdExplore(argv: string[]): Promise<number> {
  if (argv.includes("--merge")) return cmdMerge(argv);
  const req = parseExploreArgs(argv);
  const scenario = loadScenario(req.scenarioArg, req.variant);
  if (req.options.generate === true) assertRecipeScenario(scenario); // refused here, not per seed
  if (req.saveDir !== undefined) ensureDir(req.saveDir, `--save-dir ${req.saveDir}`);
  if (!req.json) printHeader(req);
  const bar = !req.json && process.stdout.isTTY ? new ProgressBar(process.stdout, req.seeds.length) : undefined;
  const onDone = bar ? (o: SeedOutcome) => bar.tick(o.verdict === "fail") : undefined;
  const interrupt = new AbortController();
  // SIGTERM (a job scheduler, `timeout`, `kill`) keeps the results as SIGINT does: the workers are threads of this process.
  let exitCode = SIGNAL_EXIT.SIGINT;
  const release = onStopSignals((signal) => {
    if (interrupt.signal.aborted) process.exit(exitCode);
    exitCode = SIGNAL_EXIT[signal];
    interrupt.abort();
  });
  const started = performance.now();
  let outcomes: SeedOutcome[];
  try {
    outcomes =
      req.workers <= 1
        ? await exploreInProcess(scenario, req.seeds, req.options, onDone, interrupt.signal)
        : await exploreInWorkers({ scenario: req.scenarioArg, ...(req.variant !== undefined ? { variant: req.variant } : {}), ...req.options }, req.seeds, req.workers, onDone, interrupt.signal);
  } finally {
    release();
  }
  const seconds = (performance.now() - started) / 1000;
  bar?.clear();
  const failed = outcomes.filter((o) => o.verdict === "fail");
  const expected = outcomes.filter((o) => o.verdict === "expected");
  const interrupted = interrupt.signal.aborted;
  const coverage = summarizeCoverage(scenario, outcomes.map((o) => o.coverage));
  const listed = (o: SeedOutcome): ExploreFailure => ({ seed: o.seed, checker: o.checker ?? "unknown", replay: replayCommand(req.scenarioArg, o.seed, req.options, req.variant) });
  const report: ExploreReport = {
    scenario: scenario.name,
    seedsRun: outcomes.length,
    failures: failed.map(listed),
    expected: expected.map(listed),
    seedsWithUnknown: outcomes.filter((o) => (o.unknown ?? 0) > 0).length,
    judged: judgedOverSeeds(outcomes),
    seedsPerSec: Math.round((outcomes.length / Math.max(seconds, 1e-6)) * 10) / 10,
    coverage: { seeds: coverage.seeds, perThousand: perThousand(coverage) },
    leftOut: [...leftOutOf(scenario, req.options.generate === true)],
    ...(interrupted ? { interrupted: true as const } : {}),
  };
  if (req.json) {
    console.log(JSON.stringify(report));
  } else {
    printExpected(scenario, expected);
    printFailures(report, failed, seconds, req.seeds.length, coverageLines(scenario, coverage, req.options.generate === true));
  }
  if (req.saveDir !== undefined) {
    const replayFiles = saveFailures(req, scenario, [...failed, ...expected]);
    saveSweepReport(req, report, replayFiles, seconds, coverage);
  }
  return interrupted ? exitCode : failed.length === 0 ? 0 : 1;
}

function parseExploreArgs(argv: string[]): ExploreRequest {
  const args = parseArgs(argv, FLAGS, "explore");
  if (args.positionals.length === 0) throw new UserInputError("explore: which scenario? (try `zksim list`)");
  if (args.positionals.length > 1) throw new UserInputError(`explore: unexpected argument "${args.positionals[1]}"`);
  const n = intFlag(args, "seeds");
  if (n === undefined) throw new UserInputError("explore: how many seeds? (--seeds N)");
  if (n < 1) throw new UserInputError(`explore: --seeds must be a positive integer, got ${n}`);
  if (n > MAX_SEEDS) throw new UserInputError(`explore: --seeds ${n} is more than one sweep holds (${MAX_SEEDS}); split it with --from or --shard`);
  const from = intFlag(args, "from") ?? 1;
  // Compared before adding: past 2^53 the sum rounds, and a rounded last seed can look safe.
  if (from > Number.MAX_SAFE_INTEGER - (n - 1)) throw new UserInputError(`explore: --from ${from} --seeds ${n} runs past the largest seed, ${Number.MAX_SAFE_INTEGER}`);
  const workers = intFlag(args, "workers") ?? Math.min(2, availableParallelism());
  if (workers < 1) throw new UserInputError(`explore: --workers must be at least 1, got ${workers}`);
  if (workers > MAX_WORKERS) throw new UserInputError(`explore: --workers ${workers} is more than ${MAX_WORKERS} (each worker is a thread with its own heap; this machine has ${availableParallelism()} cores)`);
  const shardText = stringFlag(args, "shard");
  const shard = shardText === undefined ? undefined : parseShard(shardText, "explore");
  const canary = stringFlag(args, "canary");
  if (canary !== undefined && !(CANARIES as readonly string[]).includes(canary)) {
    throw new UserInputError(`explore: unknown canary "${canary}" (known: ${CANARIES.join(", ")})`);
  }
  const bug = stringFlag(args, "bug");
  const options: SeedRunOptions = {
    ...(bug !== undefined ? { bugs: [bugEntry(bug).id] } : {}),
    ...(canary !== undefined ? { canary: canary as Canary } : {}),
    ...(boolFlag(args, "generate") ? { generate: true } : {}),
    ...(boolFlag(args, "strict") ? { strict: true } : {}),
  };
  const saveDir = stringFlag(args, "save-dir");
  return { scenarioArg: args.positionals[0]!, variant: stringFlag(args, "variant"), from, count: n, seeds: shardSeeds(from, n, shard), workers, options, shard, json: boolFlag(args, "json"), saveDir };
}

/**
 * Writes one replay file per failing seed (notes on stderr with --json: stdout stays one line).
 * A write that fails (a full disk) is reported once, with how many files were not written; the
 * failures' replay lines are already printed.
 */
function saveFailures(req: ExploreRequest, scenario: Scenario, failed: SeedOutcome[]): Map<number, string> {
  const dir = req.saveDir!;
  const written = new Map<number, string>();
  const note = req.json ? (line: string) => console.error(`zksim: ${line}`) : (line: string) => console.log(line);
  let saved = 0;
  let notSaved = 0;
  let firstError: string | undefined;
  for (const o of failed) {
    if (o.traceHash === undefined || o.violations === undefined) {
      const what = o.checker === "strict" ? "passed with stretches unjudged (--strict)" : `threw (${o.checker})`;
      note(`--save-dir: seed ${o.seed} ${what}; no replay file, use: ${replayCommand(req.scenarioArg, o.seed, req.options, req.variant)}`);
      continue;
    }
    const expected = { traceHash: o.traceHash, verdict: o.verdict, violations: o.violations };
    const bugs = [...(req.options.bugs ?? [])];
    const ran = scenarioAsRun(req.options.generate === true ? generatedRecipeScenario(scenario, o.seed) : scenario, o.seed);
    try {
      const name = `${scenario.name}-seed-${o.seed}.json`;
      writeReplayFile(join(dir, name), { scenario: ran, seed: o.seed, bugs, canary: req.options.canary, simplify: [], expected });
      written.set(o.seed, name);
      saved++;
    } catch (err) {
      if (!(err instanceof OutputError)) throw err;
      firstError ??= err.message;
      notSaved++;
    }
  }
  if (saved > 0) note(`saved ${saved} replay file${saved === 1 ? "" : "s"} to ${dir}/ (zksim replay ${join(dir, `${scenario.name}-seed-<N>.json`)})`);
  if (firstError !== undefined) console.error(`zksim: --save-dir: ${firstError}; ${notSaved} replay file${notSaved === 1 ? "" : "s"} not saved (their replay lines are above)`);
  return written;
}

/**
 * Writes the sweep report beside the replay files (sweep-report.ts): what `explore --merge`
 * combines. A write that fails is one stderr line; the sweep's exit code stands.
 */
function saveSweepReport(req: ExploreRequest, report: ExploreReport, replayFiles: Map<number, string>, seconds: number, coverage: CoverageSummary): void {
  const withFile = (f: ExploreFailure) => {
    const file = replayFiles.get(f.seed);
    return file === undefined ? f : { ...f, replayFile: file };
  };
  const sweep: SweepReport = {
    kind: SWEEP_REPORT_KIND,
    version: SWEEP_REPORT_VERSION,
    scenario: report.scenario,
    scenarioArg: req.scenarioArg,
    variant: req.variant ?? null,
    bugs: [...(req.options.bugs ?? [])],
    canary: req.options.canary ?? null,
    generate: req.options.generate === true,
    from: req.from,
    count: req.count,
    shardCount: req.shard?.count ?? 1,
    shardIndex: req.shard?.index ?? 1,
    seedsPlanned: req.seeds.length,
    seedsRun: report.seedsRun,
    failures: report.failures.map(withFile),
    expected: report.expected.map(withFile),
    seedsWithUnknown: report.seedsWithUnknown,
    coverage,
    wallSeconds: Math.round(seconds * 1000) / 1000,
    seedsPerSec: report.seedsPerSec,
    interrupted: report.interrupted === true,
  };
  const path = join(req.saveDir!, sweepReportFileName(req.shard));
  try {
    writeOutputFile(path, `${JSON.stringify(sweep, null, 2)}\n`, "explore report");
  } catch (err) {
    if (!(err instanceof OutputError)) throw err;
    console.error(`zksim: --save-dir: ${err.message}; the sweep report was not saved`);
  }
}

/**
 * `zksim explore --merge PATH… [--json]`: combines the reports of one sweep's shards
 * (sweep-report.ts). Exit 0 when every shard reported and no seed failed, 1 when a seed failed
 * or the sweep is incomplete, 2 when the reports do not belong together.
 */
function cmdMerge(argv: string[]): number {
  const args = parseArgs(argv, { merge: "bool", json: "bool" }, "explore --merge");
  if (args.positionals.length === 0) throw new UserInputError("explore --merge: which shard results? (give the --save-dir directories or their explore-report*.json files)");
  const merged = mergeSweepReports(findSweepReports(args.positionals).map((path) => ({ path, report: readSweepReport(path) })));
  if (boolFlag(args, "json")) {
    console.log(JSON.stringify(merged));
  } else {
    printMerged(merged);
  }
  return merged.failures.length > 0 || merged.incomplete !== undefined ? 1 : 0;
}

function printMerged(m: MergedSweep): void {
  const range = `seeds ${m.from} … ${m.from + m.count - 1}`;
  console.log(`zksim explore --merge ${m.scenarioArg}: ${range}, ${plural(m.shardsMerged, "shard")} of ${m.shardCount}`);
  for (const f of m.failures) {
    console.log(`FAIL seed ${f.seed} [${f.checker}]`);
    console.log(`  replay: ${f.replay}${f.replayFile !== undefined ? ` (or zksim replay ${f.replayFile})` : ""}`);
  }
  for (const [checker, seeds] of byChecker(m.expected.map((f) => ({ seed: f.seed, checkers: [f.checker] })))) console.log(`EXPECTED [${checker}] ${plural(seeds.length, "seed")}: ${seeds.join(", ")}`);
  const verdict = m.failures.length === 0 ? (m.expected.length === 0 ? "all passed" : `no regression (${plural(m.expected.length, "seed")} with expected violations only)`) : plural(m.failures.length, "failing seed");
  const gaps = m.seedsWithUnknown > 0 ? ` (${plural(m.seedsWithUnknown, "seed")} with stretches left unjudged)` : "";
  console.log(`merged ${plural(m.seedsRun, "seed")} of ${m.count} (${m.seedsPerSec} seeds/s over the shards, slowest shard ${m.wallSeconds.toFixed(2)} s): ${verdict}${gaps}`);
  if (m.incomplete !== undefined) {
    const parts = [
      ...(m.incomplete.missingShards.length > 0 ? [`missing shard${m.incomplete.missingShards.length === 1 ? "" : "s"} ${m.incomplete.missingShards.join(", ")}`] : []),
      ...(m.incomplete.interruptedShards.length > 0 ? [`interrupted shard${m.incomplete.interruptedShards.length === 1 ? "" : "s"} ${m.incomplete.interruptedShards.join(", ")}`] : []),
    ];
    console.log(`incomplete: ${parts.join("; ")} (of ${m.shardCount})`);
  }
}

/** The one-line command that re-runs one seed exactly as the sweep ran it. */
export function replayCommand(scenarioArg: string, seed: number, options: SeedRunOptions, variant?: string): string {
  const parts = ["zksim", "run", scenarioArg, "--seed", String(seed)];
  if (variant !== undefined) parts.push("--variant", variant);
  if (options.generate === true) parts.push("--generate");
  for (const b of options.bugs ?? []) parts.push("--bug", b);
  if (options.canary !== undefined) parts.push("--canary", options.canary);
  if (options.strict === true) parts.push("--strict");
  return parts.join(" ");
}

function printHeader(req: ExploreRequest): void {
  const range = `seeds ${req.from} … ${req.from + req.count - 1}`;
  const shard = req.shard ? `, shard ${req.shard.index}/${req.shard.count}` : "";
  const workers = Math.min(req.workers, Math.max(req.seeds.length, 1));
  const variant = `${req.variant !== undefined ? ` --variant ${req.variant}` : ""}${req.options.generate === true ? " --generate" : ""}`;
  console.log(`zksim explore ${req.scenarioArg}${variant}: ${range}${shard}, ${plural(req.seeds.length, "run")}, ${plural(workers, "worker")}`);
}

/** The failures, then the coverage lines, then the one-line summary (always the last line). */
function printFailures(report: ExploreReport, failed: SeedOutcome[], seconds: number, planned: number, coverage: readonly string[]): void {
  for (const [i, o] of failed.entries()) {
    console.log(`FAIL seed ${o.seed} [${o.checker}] ${o.message ?? ""}`);
    console.log(`  replay: ${report.failures[i]!.replay}`);
  }
  for (const line of coverage) console.log(line);
  const rate = `${report.seedsPerSec} seeds/s`;
  const expectedOnly = report.expected.length === 0 ? "" : `; ${plural(report.expected.length, "seed")} with expected violations only`;
  const verdict = `${failed.length === 0 ? (report.expected.length === 0 ? "all passed" : "no regression") : plural(failed.length, "failing seed")}${expectedOnly}`;
  const stopped = report.interrupted === true ? ` (interrupted: ${report.seedsRun} of ${planned} seeds run)` : "";
  const gaps = report.seedsWithUnknown > 0 ? ` (${plural(report.seedsWithUnknown, "seed")} with stretches left unjudged: see \`zksim run --json\`'s "unknown")` : "";
  console.log(describeSweepJudged(report.judged));
  console.log(`explored ${plural(report.seedsRun, "seed")} in ${seconds.toFixed(2)} s (${rate}): ${verdict}${gaps}${stopped}`);
}

/**
 * The seeds whose only violations are the scenario's documented flaws, apart from failures:
 * one line per declared checker with its seeds and the declaration's reason, and one replay line.
 */
function printExpected(scenario: Scenario, expected: readonly SeedOutcome[]): void {
  if (expected.length === 0) return;
  const why = new Map((scenario.expectedViolations ?? []).map((d) => [d.checker, d.why]));
  console.log(`expected violations (the scenario's documented flaws, not regressions):`);
  for (const [checker, seeds] of byChecker(expected.map((o) => ({ seed: o.seed, checkers: (o.violations ?? []).map((v) => v.checker) })))) {
    console.log(`  EXPECTED [${checker}] ${plural(seeds.length, "seed")}: ${seeds.join(", ")}`);
    console.log(`    why: ${why.get(checker) ?? "declared in the scenario's expectedViolations"}`);
  }
}

/** Seeds grouped by every checker that reported on them (a seed with two checkers is in both groups), checkers sorted. */
function byChecker(outcomes: readonly { seed: number; checkers: readonly string[] }[]): [string, number[]][] {
  const groups = new Map<string, number[]>();
  for (const o of outcomes) for (const c of new Set(o.checkers)) groups.set(c, [...(groups.get(c) ?? []), o.seed]);
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The sweep's judged summary from its seeds' outcomes (an interrupted sweep: of the seeds run). */
function judgedOverSeeds(outcomes: readonly SeedOutcome[]): ExploreReport["judged"] {
  const ran = outcomes.filter((o) => o.checker !== "exception");
  const idle: Record<string, number> = {};
  for (const o of ran) for (const c of o.idle ?? []) idle[c] = (idle[c] ?? 0) + 1;
  const sum = ran.reduce((total, o) => total + (o.judged ?? 1), 0);
  return { fraction: ran.length === 0 ? 1 : sum / ran.length, seedsPartly: ran.filter((o) => o.judged !== undefined).length, idle };
}

/** "judged: 99.2% of checker-time (mean over seeds; 3 seeds judged in part); read nothing: x on 12 seeds". */
function describeSweepJudged(j: ExploreReport["judged"]): string {
  const partly = j.seedsPartly === 0 ? "every seed judged in full" : `${plural(j.seedsPartly, "seed")} judged in part`;
  const idle = Object.entries(j.idle).map(([checker, seeds]) => `${checker} on ${plural(seeds, "seed")}`);
  return `judged: ${formatFraction(j.fraction)} of checker-time (mean over seeds; ${partly})${idle.length > 0 ? `; checkers that read no event: ${idle.join(", ")}` : ""}`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
