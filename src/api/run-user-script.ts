/**
 * `runUserScript`: one run of a user's script in a world — the scenario runner
 * (scenario/run.ts) with the "user" workload driving the script, the built-in checkers the world
 * names (by default kernel, ZAB or standalone durability, and the client checkers: sessions,
 * session order, watches, ZooKeeper's consistency guarantees for every client op — reads may be stale — the user's included) and the
 * script's own checkers. The result carries the verdict, the violations, the trace hash and,
 * when asked (`replayDir`), the replay file and its one-line command.
 *
 * `replayUserCase` runs a recorded case again with the script found by its module and export
 * (what `zksim replay FILE --module PATH` does) and says whether it reproduced.
 *
 * Deterministic: the same script, options and seed give the same trace hash, in this process or
 * a fresh one.
 */
import { UserInputError } from "../sim/errors.js";
import type { UnknownVerdict, Violation } from "../check/checker.js";
import { runScenario } from "../scenario/run.js";
import { parseReplayFile, replayCaseFromRun, replayRunOptions, type ReplayCase } from "../scenario/replay-file.js";
import { compareReplay, type ReplayComparison } from "../scenario/replay.js";
import type { RunOptions, RunResult, Scenario, Verdict } from "../scenario/types.js";
import type { TraceEvent } from "../sim/trace.js";
import { importUserScript, moduleArgOf, readReplayText, writeReplayCase } from "./files.js";
import { USER_DOCUMENTS, userRegistry, USER_WORKLOAD } from "./user-workload.js";
import { isUserScript, type UserScript } from "./user-script.js";
import { worldScenario, type WorldOptions } from "./world-options.js";

/** Options of `runUserScript`: the world, and where to write the replay file. */
export interface RunUserScriptOptions extends WorldOptions {
  /** Write the run's replay file into this directory (default: none written). */
  replayDir?: string;
  /** The command that starts zksim, for the printed replay line (default "npx zksim"). */
  replayCommand?: string;
}

/** What one run of a user's script found. */
export interface UserRunResult {
  /** "expected" only for a scenario that declares `expectedViolations` (scenario/types.ts). */
  verdict: Verdict;
  /** Every violation: built-in checkers, the script's own, a failed `world.expect`, a script that threw. */
  violations: readonly Violation[];
  /** Stretches a checker could not judge (not failures; see docs/long-runs.md). */
  unknown: readonly UnknownVerdict[];
  /** The trace's hash: the same script, options and seed give the same hash. */
  traceHash: string;
  seed: number;
  /** Trace events recorded. */
  events: number;
  /** Virtual ms the run lasted (the convergence phase included). */
  virtualMs: number;
  /** The lines the script noted (`world.note`). */
  narrative: readonly string[];
  /** The replay file written (with `replayDir`). */
  replayFile?: string;
  /** The one-line command that replays it (with `replayDir`). */
  replayCommand?: string;
}

/** Runs `script` once in the world `options` describes. Bad options throw UserInputError naming the field. */
export async function runUserScript(script: UserScript, options: RunUserScriptOptions = {}): Promise<UserRunResult> {
  const at = "runUserScript";
  if (!isUserScript(script)) throw new UserInputError(`${at}: the first argument must be a defineUserScript(…) value`);
  const { replayDir, replayCommand, ...world } = options ?? {};
  if (replayDir !== undefined && (typeof replayDir !== "string" || replayDir === "")) throw new UserInputError(`${at}: options.replayDir must name a directory`);
  const module = moduleArgOf(script.module);
  const scenario = worldScenario(script, world, at, module);
  const runOptions = userRunOptions(script, scenario.defaultSeed);
  const result = await runScenario(scenario, runOptions);
  const out = userRunResult(result);
  if (replayDir === undefined) return out;
  const file = writeReplayCase(replayDir, `${script.export}-seed${result.seed}`, replayCaseFromRun(scenario, runOptions, result));
  return { ...out, replayFile: file, replayCommand: replayLine(replayCommand, file, module) };
}

/** The runner's options for a user's script: its workload and its own checkers. */
export function userRunOptions(script: UserScript, seed: number): RunOptions {
  return { seed, registry: userRegistry(script), extraCheckers: script.checkers.map((c) => () => c.make()) };
}

/** `npx zksim replay FILE --module ./src/lock.js`. */
export function replayLine(command: string | undefined, file: string, module: string): string {
  return `${command ?? "npx zksim"} replay ${file} --module ${module}`;
}

/** The runner's result as the API reports it. */
export function userRunResult(r: RunResult): UserRunResult {
  return { verdict: r.verdict, violations: r.violations, unknown: r.unknown, traceHash: r.traceHash, seed: r.seed, events: r.events, virtualMs: r.virtualMs, narrative: r.narrative };
}

/** A replayed case: what was recorded, what the run gave, and whether it reproduced. */
export interface UserReplay {
  replayCase: ReplayCase;
  result: UserRunResult;
  comparison: ReplayComparison;
}

/** Options of `replayUserCase`. */
export interface ReplayUserOptions {
  /** The script's module (default: the path the file records, relative to the working directory). */
  module?: string;
  /**
   * Wall-clock ms the module may take to load (default 30 000): past it, a UserInputError naming
   * the module; `false` when the caller bounds the user's code itself.
   */
  moduleTimeoutMs?: number | false;
}

/** What the command line adds: every trace event of the run (for `--trace`), and a call once the module has loaded (the user-code worker's limit restarts there). */
export interface ReplayUserRunOptions extends ReplayUserOptions {
  onTraceEvent?: (e: TraceEvent) => void;
  onLoaded?: () => void;
}

/**
 * Replays a user run's replay file: imports the script (from `module`, default the path the
 * file records; a `.ts` or `.mts` module as it is), runs the case with its recorded seed and
 * compares (same trace hash, verdict and failing checkers).
 */
export async function replayUserCase(file: string, options: ReplayUserRunOptions = {}): Promise<UserReplay> {
  const c = parseReplayFile(readReplayText(file), file, USER_DOCUMENTS);
  const script = await scriptOfCase(c, file, options);
  const { onTraceEvent, onLoaded } = options;
  onLoaded?.();
  const result = await runScenario(c.scenario, { ...replayRunOptions(c), ...userRunOptions(script, c.seed), ...(onTraceEvent !== undefined ? { onTraceEvent } : {}) });
  return { replayCase: c, result: userRunResult(result), comparison: compareReplay(c, result) };
}

/** The script a user case runs: its export, from `options.module` or the module the case records. */
export function scriptOfCase(c: ReplayCase, file: string, options: ReplayUserOptions = {}): Promise<UserScript> {
  const timeout = options.moduleTimeoutMs !== undefined ? { timeoutMs: options.moduleTimeoutMs } : {};
  return importUserScript(options.module ?? recordedModule(c.scenario, file), recordedExport(c.scenario, file), timeout);
}

/** Whether a parsed scenario runs a user's script (its replay needs the module). */
export function isUserScenario(s: Scenario): boolean {
  return s.workload.kind === USER_WORKLOAD;
}

function recordedModule(s: Scenario, file: string): string {
  if (!isUserScenario(s)) throw new UserInputError(`${file}: not a replay of a user's script (workload "${s.workload.kind}"): replay it without --module`);
  return String(s.workload.params.module);
}

function recordedExport(s: Scenario, file: string): string {
  recordedModule(s, file);
  return String(s.workload.params.export);
}
