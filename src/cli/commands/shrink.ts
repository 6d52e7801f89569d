/**
 * `zksim shrink <file> [--out FILE] [--max-runs N]`: minimises a recorded failing case
 * (scenario/shrink.ts says how) and writes the shrunk case as a replay file.
 *
 * Exit codes: 0 shrunk file written; 4 the recorded case does not fail with its checker any more
 * (nothing to shrink; see `zksim replay`); 2 bad input (the output directory is checked and
 * created before the first run, so a bad --out costs no runs); 3 internal error.
 */
import { dirname } from "node:path";
import { UserInputError } from "../../sim/errors.js";
import { caseFlags } from "../../scenario/replay.js";
import { DEFAULT_MAX_RUNS, shrinkCase } from "../../scenario/shrink.js";
import { workloadDef } from "../../scenario/registry.js";
import { intFlag, parseArgs, stringFlag } from "../args.js";
import type { Command } from "../command.js";
import { checkOutputPath, ensureDir, readInputFile, writeOutputFile } from "../files.js";
import { REPLAY_EXIT, REPLAY_REGISTRY, readReplayFile, writeReplayFile } from "../replay.js";
import { isSessionFileText, readSessionFile } from "../../tui/session-file.js";
import { shrinkCounterexample } from "../../search/shrink.js";
import { inUserCodeWorker, userModuleFlags, userModuleOf, USER_MODULE_FLAGS, USER_MODULE_USAGE } from "../user-module.js";

/** An upper bound on --max-runs, as explore bounds --seeds: past it a number is a typo, not a plan. */
const MAX_SHRINK_RUNS = 1_000_000;

export const shrink: Command = {
  name: "shrink",
  args: `<file> [--out FILE] [--max-runs N] ${USER_MODULE_USAGE}`,
  help: `minimise a failing replay file: ddmin over its faults (and a served session's connections), then a shorter durationMs
(at most N runs, default ${DEFAULT_MAX_RUNS}); a zksim check counterexample (a learn session): ddmin over its
steps; writes FILE (default <file>.shrunk.json); exit 0 written, 4 the case no longer fails;
a user's script's case (the public API) imports the script as \`zksim replay\` does (--module PATH)
and shrinks it in a worker thread: loading the module, and each run, must each finish within
--user-code-limit-s N seconds of wall-clock time (default 120), else exit 2`,
  run: cmdShrink,
};

async function cmdShrink(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { out: "string", "max-runs": "int", ...USER_MODULE_FLAGS }, "shrink");
  const userFlags = userModuleFlags(args);
  if (args.positionals.length === 0) throw new UserInputError("shrink: which replay file? (written by `zksim run --save FILE`)");
  if (args.positionals.length > 1) throw new UserInputError(`shrink: unexpected argument "${args.positionals[1]}"`);
  const path = args.positionals[0]!;
  const out = stringFlag(args, "out") ?? `${path.replace(/\.json$/, "")}.shrunk.json`;
  const maxRuns = intFlag(args, "max-runs") ?? DEFAULT_MAX_RUNS;
  if (maxRuns < 1) throw new UserInputError(`shrink: --max-runs must be at least 1, got ${maxRuns}`);
  if (maxRuns > MAX_SHRINK_RUNS) throw new UserInputError(`shrink: --max-runs ${maxRuns} is more than ${MAX_SHRINK_RUNS} (each is a whole run of the case: a million is already days)`);
  const text = readInputFile(path, "replay file");
  if (isSessionFileText(text)) return shrinkSessionFile(path, out, maxRuns);
  const c = readReplayFile(path);
  checkOutputPath(out, "--out");
  ensureDir(dirname(out), `the directory of --out ${out}`);
  const target = c.expected.violations[0]?.checker;
  if (target === undefined) throw new UserInputError(`shrink: ${path} records a passing run; only a failing case can be shrunk`);
  const module = userModuleOf(c.scenario, path, userFlags, "shrink");
  const moduleArg = module !== undefined ? ` --module ${module}` : "";
  const flags = caseFlags(c);
  console.log(`zksim shrink ${path}: ${c.scenario.name} seed ${c.seed}${flags ? ` ${flags}` : ""}, keeping failures of [${target}]; budget ${maxRuns} runs`);
  // A user's script runs in the user-code worker (cli/user-module.ts), a built-in workload here.
  const outcome = module !== undefined ? await inUserCodeWorker("shrinkUserTask", { c, module, maxRuns }, module, userFlags) : await shrinkCase(c, maxRuns, REPLAY_REGISTRY);
  if (outcome === undefined) {
    console.log(`not shrunk: the recorded case no longer fails with [${target}] (see \`zksim replay ${path}${moduleArg}\`)`);
    return REPLAY_EXIT.notReproduced;
  }
  const s = outcome.shrunk.scenario;
  console.log(`  faults:     ${c.scenario.faults.length} → ${s.faults.length}`);
  console.log(`  durationMs: ${c.scenario.durationMs} → ${s.durationMs}`);
  const parts = workloadDef(c.scenario.workload.kind, REPLAY_REGISTRY).removableParts;
  if (parts !== undefined) console.log(`  ${parts.what}: ${parts.list(c.scenario.workload.params).length} → ${parts.list(s.workload.params).length}`);
  const { draws, simplified, runs } = outcome.decisions;
  const ranges = outcome.shrunk.simplify.length;
  console.log(`  decision stream: ${simplified.toLocaleString("en-US")} of ${draws.toLocaleString("en-US")} draws simplified (${ranges} range${ranges === 1 ? "" : "s"}, ${runs} runs)`);
  console.log(`  runs:       ${outcome.runsUsed} of at most ${maxRuns}${outcome.budgetSpent ? " (budget spent: smaller, but perhaps not minimal)" : ""}`);
  if (outcome.threw.runs > 0) console.log(`  candidates that threw (a different failure, not adopted): ${outcome.threw.runs}, the first: ${outcome.threw.first}`);
  console.log(`  shrunk case fails with: ${outcome.shrunk.expected.violations[0]!.checker}; trace hash ${outcome.shrunk.expected.traceHash}`);
  writeReplayFile(out, outcome.shrunk);
  console.log(`wrote ${out}`);
  console.log(`replay: zksim replay ${out}${moduleArg}`);
  return 0;
}

/** A `zksim check` counterexample (a learn session): fewer steps, same violation (search/shrink.ts). */
async function shrinkSessionFile(path: string, out: string, maxRuns: number): Promise<number> {
  const file = readSessionFile(path);
  checkOutputPath(out, "--out");
  ensureDir(dirname(out), `the directory of --out ${out}`);
  console.log(`zksim shrink ${path}: a zksim check counterexample (${file.check?.target ?? "?"}, ${file.check?.checker ?? "?"}); budget ${maxRuns} runs`);
  const outcome = await shrinkCounterexample(file, maxRuns);
  if (outcome === undefined) {
    console.log(`not shrunk: the path no longer violates ${file.check?.checker ?? "its checker"} (see \`zksim replay ${path}\`)`);
    return REPLAY_EXIT.notReproduced;
  }
  console.log(`  steps: ${outcome.stepsBefore} → ${outcome.stepsAfter}`);
  console.log(`  runs:  ${outcome.runs} of at most ${maxRuns}${outcome.budgetSpent ? " (budget spent: smaller, but perhaps not minimal)" : ""}`);
  console.log(`  shrunk path violates: ${outcome.checker}; trace hash ${outcome.file.traceHash}`);
  writeOutputFile(out, `${JSON.stringify(outcome.file, null, 1)}\n`, "shrunk counterexample");
  console.log(`wrote ${out}`);
  console.log(`replay: zksim replay ${out}; learn: zksim learn --open ${out}`);
  return 0;
}
