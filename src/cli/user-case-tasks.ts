/**
 * What `replay`, `shrink` and `run` do with a user's script, as the tasks the user-code worker
 * runs (cli/user-code-worker.ts): each imports the user's module there, calls `progress()` once
 * it has loaded and after every run (each restarts the wall-clock limit), and answers with plain
 * data the command prints in its own thread.
 */
import { replayUserCase, userRunOptions } from "../api/run-user-script.js";
import { importUserScript } from "../api/files.js";
import { replayCaseFromRun, type ReplayCase } from "../scenario/replay-file.js";
import type { ReplayComparison } from "../scenario/replay.js";
import { shrinkCase, type ShrinkOutcome } from "../scenario/shrink.js";
import type { Canary, RunOptions, RunResult, Scenario } from "../scenario/types.js";
import { runTraced, traced, type Traced, type TracedRun } from "./run-traced.js";

/** The user's script a case of `scenario` runs, imported from `module`, as run options. */
async function userOptions(scenario: Scenario, module: string, seed: number): Promise<Pick<RunOptions, "registry" | "extraCheckers">> {
  // The worker bounds the user's code (and tells an await that never settles from a slow load).
  const script = await importUserScript(module, String(scenario.workload.params.export), { timeoutMs: false });
  const { registry, extraCheckers } = userRunOptions(script, seed);
  return { ...(registry !== undefined ? { registry } : {}), ...(extraCheckers !== undefined ? { extraCheckers } : {}) };
}

export interface ReplayUserInput {
  path: string;
  module: string;
  /** `--trace FILE`: the run drawn (HTML, ShiViz) or streamed (JSON lines) there. */
  tracePath?: string;
}

export interface ReplayedUserCase {
  c: ReplayCase;
  result: { traceHash: string; verdict: RunResult["verdict"]; violations: { checker: string; message: string }[] };
  cmp: ReplayComparison;
}

/** `zksim replay FILE --module PATH [--trace F]`: the recorded case run again, compared, and drawn. */
export async function replayUserTask(input: ReplayUserInput, progress: () => void): Promise<Traced<ReplayedUserCase>> {
  const run = await traced(
    input.tracePath,
    (sink) => replayUserCase(input.path, { moduleTimeoutMs: false, module: input.module, onLoaded: progress, ...sink }),
    (r) => ({ ...r.result, scenario: r.replayCase.scenario.name }),
  );
  const { replayCase, result, comparison } = run.result;
  const { traceHash, verdict, violations } = result;
  return { ...run, result: { c: replayCase, result: { traceHash, verdict, violations: violations.map(({ checker, message }) => ({ checker, message })) }, cmp: comparison } };
}

export interface ShrinkUserInput {
  c: ReplayCase;
  module: string;
  maxRuns: number;
}

/** `zksim shrink FILE --module PATH`: the case shrunk (scenario/shrink.ts), every candidate run in the worker. */
export async function shrinkUserTask(input: ShrinkUserInput, progress: () => void): Promise<ShrinkOutcome | undefined> {
  const { registry, extraCheckers } = await userOptions(input.c.scenario, input.module, input.c.seed);
  progress();
  return shrinkCase(input.c, input.maxRuns, registry, extraCheckers, progress);
}

export interface RunUserInput {
  scenario: Scenario;
  module: string;
  seed: number;
  bugs?: string[];
  canary?: Canary;
  tracePath?: string;
  /** Also answer with the replay case of a run that does not pass (`--save`). */
  save: boolean;
}

/** `zksim run SCENARIO --module PATH`: one run, its trace drawn in the worker. */
export async function runUserTask(input: RunUserInput, progress: () => void): Promise<TracedRun & { replayCase?: ReplayCase }> {
  const user = await userOptions(input.scenario, input.module, input.seed);
  progress();
  const options: RunOptions = { seed: input.seed, ...user, ...(input.bugs !== undefined ? { bugs: input.bugs } : {}), ...(input.canary !== undefined ? { canary: input.canary } : {}) };
  const run = await runTraced(input.scenario, options, input.tracePath);
  if (!input.save || run.result.verdict === "pass") return run;
  return { ...run, replayCase: replayCaseFromRun(input.scenario, options, run.result) };
}

/** The tasks, by export name (what `inUserCodeWorker` may run). */
export interface UserCaseTasks {
  replayUserTask: typeof replayUserTask;
  shrinkUserTask: typeof shrinkUserTask;
  runUserTask: typeof runUserTask;
}
