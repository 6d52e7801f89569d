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
import { UserInputError } from "../../sim/errors.js";
import { CANARIES, type Canary, type RunResult, type Scenario } from "../../scenario/types.js";
import { describeExpected } from "../../scenario/verdict.js";
import { describeJudged, strictFailure } from "../../scenario/judged.js";
import { replayCaseFromRun, type ReplayCase } from "../../scenario/replay-file.js";
import { generatedRecipeScenario } from "../../scenario/scripts/recipe-run.js";
import { bugEntry } from "../../scenario/bug-zoo.js";
import { boolFlag, intFlag, parseArgs, stringFlag } from "../args.js";
import type { Command } from "../command.js";
import { OutputError, checkOutputPath } from "../files.js";
import { writeReplayFile } from "../replay.js";
import { runTraced, type TracedRun } from "../run-traced.js";
import { oneScenario } from "../scenario-files.js";
import { USER_DOCUMENTS } from "../../api/user-workload.js";
import { inUserCodeWorker, userModuleFlags, userModuleOf, USER_MODULE_FLAGS, USER_MODULE_USAGE } from "../user-module.js";

const FLAGS = { strict: "bool", seed: "int", json: "bool", trace: "string", canary: "string", bug: "string", save: "string", variant: "string", generate: "bool", ...USER_MODULE_FLAGS } as const;

export const run: Command = {
  name: "run",
  args: `<scenario> [--seed N] [--json] [--trace FILE] [--bug ID] [--canary NAME] [--variant V] [--generate] [--strict] [--save FILE] ${USER_MODULE_USAGE}`,
  help: `run one scenario with one seed (--bug re-injects a historical defect;
--variant naive: the recipe's naive variant, e.g. a herd lock, a polling barrier;
--generate: a recipe scenario with a workload shape and faults drawn from the seed,
as the property tests draw them;
--trace F.html: space-time diagram, F.shiviz: ShiViz log, else JSON lines;
--save F: if the run fails, write a replay file to F;
--strict: a stretch a checker left unjudged, or a checker that read no event, fails the run;
a scenario of a user's script (workload "user", the public API) imports it from --module PATH,
default the module it names, and runs it in a worker thread: loading the module, and the run,
must each finish within --user-code-limit-s N seconds of wall-clock time, default 120)`,
  run: cmdRun,
};

async function cmdRun(argv: string[]): Promise<number> {
  const args = parseArgs(argv, FLAGS, "run");
  const userFlags = userModuleFlags(args);
  const variant = stringFlag(args, "variant");
  const generate = boolFlag(args, "generate");
  const loaded = oneScenario(args.positionals, "run", variant, USER_DOCUMENTS);
  // Replay lines name the scenario as given: a file's path, not its name field (a modified copy of a built-in keeps the built-in's name).
  const scenarioArg = args.positionals[0]!;
  const module = userModuleOf(loaded, scenarioArg, userFlags, "run");
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
  const faultsOf = { ...(canary !== undefined ? { canary: canary as Canary } : {}), ...(bugs !== undefined ? { bugs } : {}) };
  // A user's script runs, and its trace is drawn, in the user-code worker (cli/user-module.ts).
  const run: TracedRun & { replayCase?: ReplayCase } =
    module !== undefined
      ? await inUserCodeWorker("runUserTask", { scenario, module, seed, ...faultsOf, ...(tracePath !== undefined ? { tracePath } : {}), save: savePath !== undefined }, module, userFlags)
      : await runTraced(scenario, { seed, ...faultsOf }, tracePath);
  const { result, wallMs, lost } = run;
  if (run.reportNote !== undefined) console.error(`zksim: --trace ${tracePath}: ${run.reportNote}`);
  const json = boolFlag(args, "json");
  const strict = boolFlag(args, "strict") && result.verdict === "pass" ? strictFailure(result.judged, result.unknown) : undefined;
  const flags = `${module !== undefined ? ` --module ${module}` : ""}${variant !== undefined ? ` --variant ${variant}` : ""}${generate ? " --generate" : ""}${bugs !== undefined ? ` --bug ${bugs[0]}` : ""}${canary !== undefined ? ` --canary ${canary}` : ""}`;
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
      try {
        writeReplayFile(savePath, run.replayCase ?? replayCaseFromRun(scenario, faultsOf, result));
        note(`saved failing case to ${savePath}; replay: zksim replay ${savePath}${module !== undefined ? ` --module ${module}` : ""}`);
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
