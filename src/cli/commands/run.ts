/**
 * `zksim run <scenario>`: one scenario, one seed; prints the narrative, the verdict and the
 * replay line (or one JSON line with --json).
 *
 * Outputs (`--trace`, `--save`) never cost the verdict: when one cannot be written (a full
 * disk, a path under /proc), the verdict and the replay line are still printed, stderr says
 * what was lost, and a failing run still exits 1; a passing run whose `--trace` failed exits 2.
 * A run whose only violations are of the scenario's declared flaws (`expectedViolations`) has
 * the verdict EXPECTED, names the declarations, and exits 0 as a pass does; `--save` saves it.
 * Paths that are wrong before the run starts (no such directory, a directory given as a file)
 * are exit 2 before anything runs.
 */
import { performance } from "node:perf_hooks";
import { UserInputError } from "../../sim/errors.js";
import type { TraceEvent } from "../../sim/trace.js";
import { runScenario } from "../../scenario/run.js";
import { CANARIES, type Canary, type RunResult, type Scenario } from "../../scenario/types.js";
import { describeExpected } from "../../scenario/verdict.js";
import { describeJudged, strictFailure } from "../../scenario/judged.js";
import { replayCaseFromRun } from "../../scenario/replay-file.js";
import { generatedRecipeScenario } from "../../scenario/scripts/recipe-run.js";
import { bugEntry } from "../../scenario/bug-zoo.js";
import { boolFlag, intFlag, parseArgs, stringFlag } from "../args.js";
import type { Command } from "../command.js";
import { OutputError, checkOutputPath } from "../files.js";
import { openTraceReport } from "../report/trace-report.js";
import { writeReplayFile } from "../replay.js";
import { oneScenario } from "../scenario-files.js";
import { TraceFileWriter } from "../trace-file.js";
import { USER_DOCUMENTS } from "../../api/user-workload.js";
import { userCaseOptions, userModuleFlags } from "../user-module.js";

const FLAGS = { strict: "bool", seed: "int", json: "bool", trace: "string", canary: "string", bug: "string", save: "string", variant: "string", generate: "bool", module: "string", "module-timeout-ms": "int" } as const;

export const run: Command = {
  name: "run",
  args: "<scenario> [--seed N] [--json] [--trace FILE] [--bug ID] [--canary NAME] [--variant V] [--generate] [--strict] [--save FILE] [--module PATH]",
  help: `run one scenario with one seed (--bug re-injects a historical defect;
--variant naive: the recipe's naive variant, e.g. a herd lock, a polling barrier;
--generate: a recipe scenario with a workload shape and faults drawn from the seed,
as the property tests draw them;
--trace F.html: space-time diagram, F.shiviz: ShiViz log, else JSON lines;
--save F: if the run fails, write a replay file to F;
--strict: a stretch a checker left unjudged, or a checker that read no event, fails the run;
a scenario of a user's script (workload "user", the public API) imports it from --module PATH,
default the module it names; --module-timeout-ms N bounds its loading, default 30000)`,
  run: cmdRun,
};

async function cmdRun(argv: string[]): Promise<number> {
  const args = parseArgs(argv, FLAGS, "run");
  const variant = stringFlag(args, "variant");
  const generate = boolFlag(args, "generate");
  const loaded = oneScenario(args.positionals, "run", variant, USER_DOCUMENTS);
  // Replay lines name the scenario as given: a file's path, not its name field (a modified copy of a built-in keeps the built-in's name).
  const scenarioArg = args.positionals[0]!;
  const user = await userCaseOptions(loaded, args.positionals[0]!, userModuleFlags(args, "run"), "run");
  const seed = intFlag(args, "seed") ?? loaded.defaultSeed;
  const scenario = generate ? generatedRecipeScenario(loaded, seed) : loaded;
  const canary = stringFlag(args, "canary");
  if (canary !== undefined && !(CANARIES as readonly string[]).includes(canary)) {
    throw new UserInputError(`run: unknown canary "${canary}" (known: ${CANARIES.join(", ")})`);
  }
  const bug = stringFlag(args, "bug");
  const bugs = bug === undefined ? undefined : [bugEntry(bug).id];
  const savePath = stringFlag(args, "save");
  if (savePath !== undefined) checkOutputPath(savePath, "--save replay file");
  const tracePath = stringFlag(args, "trace");
  const report = tracePath !== undefined ? openTraceReport(tracePath) : undefined;
  const writer = tracePath !== undefined && report === undefined ? new TraceFileWriter(tracePath) : undefined;
  const started = performance.now();
  let result: RunResult;
  let traceFailure: string | undefined;
  try {
    result = await runScenario(scenario, {
      seed,
      ...user.options,
      ...(canary !== undefined ? { canary: canary as Canary } : {}),
      ...(bugs !== undefined ? { bugs } : {}),
      ...(writer ? { onTraceEvent: (e: TraceEvent) => writer.write(e) } : {}),
      ...(report ? { onTraceEvent: (e: TraceEvent) => report.add(e) } : {}),
    });
  } finally {
    traceFailure = writer?.close();
  }
  const wallMs = Math.round(performance.now() - started);
  const lost: string[] = []; // what could not be written, one stderr line each
  if (traceFailure !== undefined) lost.push(traceFailure);
  if (report !== undefined) {
    try {
      const reportNote = report.finish(result);
      if (reportNote !== undefined) console.error(`zksim: --trace ${tracePath}: ${reportNote}`);
    } catch (err) {
      if (!(err instanceof OutputError)) throw err;
      lost.push(`--trace: ${err.message}`);
    }
  }
  const json = boolFlag(args, "json");
  const strict = boolFlag(args, "strict") && result.verdict === "pass" ? strictFailure(result.judged, result.unknown) : undefined;
  const flags = `${user.module !== undefined ? ` --module ${user.module}` : ""}${variant !== undefined ? ` --variant ${variant}` : ""}${generate ? " --generate" : ""}${bugs !== undefined ? ` --bug ${bugs[0]}` : ""}${canary !== undefined ? ` --canary ${canary}` : ""}`;
  if (json) {
    const { narrative: _n, counts: _c, ...rest } = result;
    console.log(JSON.stringify({ ...rest, wallMs, ...(strict !== undefined ? { strict } : {}) }));
  } else {
    printRunSummary(result, wallMs, tracePath !== undefined && lost.length === 0 ? tracePath : undefined, flags, scenario, scenarioArg);
    if (strict !== undefined) console.log(`verdict under --strict: FAIL (${strict})`);
  }
  if (savePath !== undefined) {
    // Notes go to stderr with --json: stdout stays one JSON line.
    const note = json ? (line: string) => console.error(`zksim: ${line}`) : (line: string) => console.log(line);
    if (result.verdict !== "pass") {
      const options = { ...user.options, ...(bugs !== undefined ? { bugs } : {}), ...(canary !== undefined ? { canary: canary as Canary } : {}) };
      try {
        writeReplayFile(savePath, replayCaseFromRun(scenario, options, result));
        note(`saved failing case to ${savePath}; replay: zksim replay ${savePath}${user.module !== undefined ? ` --module ${user.module}` : ""}`);
      } catch (err) {
        if (!(err instanceof OutputError)) throw err;
        lost.push(`--save: ${err.message}; nothing saved (re-run it: zksim run ${shellWord(scenarioArg)} --seed ${result.seed}${flags} --save FILE)`);
      }
    } else {
      note(`--save ${savePath}: the run passed, nothing saved`);
    }
  }
  for (const line of lost) console.error(`zksim: ${line}`);
  if (strict !== undefined) console.error(`zksim: ${strict}`);
  if (result.verdict === "fail" || strict !== undefined) return 1;
  return lost.length === 0 ? 0 : 2;
}

/**
 * The human summary of a run: narrative, counts, verdict, and the replay line (also `zksim demo`'s).
 * An "expected" verdict names the scenario's declarations that excused its violations.
 */
export function printRunSummary(r: RunResult, wallMs: number, tracePath?: string, replayFlags = "", scenario?: Pick<Scenario, "expectedViolations">, scenarioArg = r.scenario): void {
  console.log(`zksim run ${shellWord(scenarioArg)} --seed ${r.seed}`);
  for (const line of r.narrative) console.log(`  ${line}`);
  const c = r.counts;
  const n = (k: string) => c[k] ?? 0;
  console.log(
    `  network: ${n("send")} sent, ${n("deliver")} delivered, ${n("drop")} dropped, ${n("duplicate")} duplicated, ${n("hold")} held by partitions; ` +
      `faults: ${n("partition")} partitions, ${n("heal")} heals, ${n("crash")} crashes, ${n("restart")} restarts, ${n("pause")} pauses; ` +
      `disk: ${n("disk.append")} appends, ${n("disk.fsync.done")} fsyncs, ${n("disk.lost")} files lost unsynced bytes`,
  );
  console.log(`  ${r.events} events, ${r.virtualMs} virtual ms in ${wallMs} wall ms; trace hash ${r.traceHash}`);
  if (tracePath) console.log(`  trace written to ${tracePath}`);
  const violations = `${r.violations.length} violation${r.violations.length === 1 ? "" : "s"}`;
  const judged = describeJudged(r.judged);
  if (r.verdict === "pass") console.log(`verdict: PASS (${judged})`);
  // A failure stands however little was judged: its line names the violations only.
  if (r.verdict === "fail") console.log(`verdict: FAIL (${violations})`);
  if (r.verdict === "expected") {
    console.log(`verdict: EXPECTED (${violations}, each of a flaw the scenario documents; not a regression; ${judged})`);
    for (const line of describeExpected(scenario ?? {}, r.violations)) console.log(`  expected: ${line}`);
  }
  for (const v of r.violations.slice(0, 10)) console.log(`  [${v.checker}] at ${v.atMs}ms (event #${v.eventIndex}): ${v.message}`);
  // Stretches a checker could not judge within its budget: neither a pass nor a violation there.
  for (const u of r.unknown) console.log(`  unknown: [${u.checker}] ${u.fromMs}–${u.toMs} ms not judged: ${u.reason}`);
  console.log(`replay: zksim run ${shellWord(scenarioArg)} --seed ${r.seed}${replayFlags}`);
}

/** A path as a shell reads it back: as is when it holds only safe characters, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w./@:+,=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
