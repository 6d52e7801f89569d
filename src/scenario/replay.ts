/**
 * Re-executing a recorded case (a "replay/1" file: scenario/replay-file.ts) and judging whether
 * it reproduced: the same trace hash, the same verdict and the same checkers, in order. Pure:
 * the command line (`zksim replay`, cli/commands/replay.ts) reads the file and maps the
 * comparison to exit codes; `zksim shrink` (scenario/shrink.ts) runs its candidates through
 * `runReplayCase`.
 */
import type { SimplifyRange } from "../sim/decision-tape.js";
import { runScenario } from "./run.js";
import type { RunOptions, RunResult, Scenario } from "./types.js";
import type { Registry } from "./registry.js";
import { replayRunOptions, type ExpectedViolation, type ReplayCase } from "./replay-file.js";

export interface ReplayRunOverrides {
  /** Instead of the case's scenario. */
  scenario?: Scenario;
  /** The decision-stream simplification (even empty, it attaches a decision tape, so the result reports its draws). */
  simplify?: readonly SimplifyRange[];
  /** Where the scenario's workload and checkers are found (a serve or user case needs its layer's). */
  registry?: Registry;
  /** Checkers beside the scenario's (a user script's own). */
  extraCheckers?: RunOptions["extraCheckers"];
  /** Every trace event of the run (a `--trace` file). */
  onTraceEvent?: RunOptions["onTraceEvent"];
}

/** Runs a case with the options it was recorded with, and the overrides given. */
export function runReplayCase(c: ReplayCase, overrides: ReplayRunOverrides = {}): Promise<RunResult> {
  const { scenario = c.scenario, simplify, ...options } = overrides;
  return runScenario(scenario, { ...replayRunOptions(c), ...(simplify !== undefined ? { simplify } : {}), ...definedOnly(options) });
}

/** The flags a case was recorded with, as they would appear on a `zksim run` line. */
export function caseFlags(c: ReplayCase): string {
  return [...c.bugs.map((b) => `--bug ${b}`), ...(c.canary !== undefined ? [`--canary ${c.canary}`] : [])].join(" ");
}

export interface ReplayComparison {
  reproduced: boolean;
  /** Why not, in one line (when not reproduced). */
  reason?: string;
  /** The first violation (by index) whose checker or message differs, if any. */
  firstDifference?: { index: number; expected: ExpectedViolation | undefined; actual: ExpectedViolation | undefined };
}

/** Reproduced means: same trace hash, same verdict, and the same checkers in the same order. */
export function compareReplay(c: ReplayCase, actual: RunResult): ReplayComparison {
  const want = c.expected.violations;
  const got = actual.violations.map(({ checker, message }) => ({ checker, message }));
  let firstDifference: ReplayComparison["firstDifference"];
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    const w = want[i];
    const g = got[i];
    if (w?.checker !== g?.checker || w?.message !== g?.message) {
      firstDifference = { index: i, expected: w, actual: g };
      break;
    }
  }
  const sameCheckers = want.length === got.length && want.every((w, i) => w.checker === got[i]!.checker);
  const diff = firstDifference !== undefined ? { firstDifference } : {};
  if (actual.traceHash !== c.expected.traceHash) {
    return { reproduced: false, reason: `expected trace hash ${c.expected.traceHash}, got ${actual.traceHash}`, ...diff };
  }
  if (actual.verdict !== c.expected.verdict || !sameCheckers) {
    return { reproduced: false, reason: `same trace hash ${actual.traceHash}, but the verdict or the failing checkers differ`, ...diff };
  }
  return { reproduced: true, ...diff };
}

/** `o` without its undefined fields (the run options are exact: an absent option is left out). */
function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
