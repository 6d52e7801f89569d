/**
 * `zksim replay <file> [--json]`: re-executes a recorded case (a "replay/1" file written by
 * `run --save`, `explore --save-dir` or `shrink`) and checks that it reproduces: the same
 * trace hash, the same verdict and the same checkers, in order.
 *
 * Exit codes (REPLAY_EXIT): 1 reproduced a failing case (it still fails, exactly as recorded);
 * 0 reproduced a recorded pass; 4 did not reproduce (hash, verdict or checkers differ — the
 * code or the simulator changed what this seed does, or the file was edited); 2 bad file (one
 * line on stderr); 3 internal error. 4 and not 3 because 3 already means "internal error" for
 * every command.
 *
 * Also the file I/O for replay files (the format itself is pure: scenario/replay-file.ts).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { UserInputError } from "../sim/errors.js";
import type { SimplifyRange } from "../sim/decision-tape.js";
import { runScenario } from "../scenario/run.js";
import type { RunResult } from "../scenario/types.js";
import { parseReplayFile, replayRunOptions, serializeReplayCase, type ExpectedViolation, type ReplayCase } from "../scenario/replay-file.js";
import { boolFlag, parseArgs } from "./args.js";
import { isSessionFile, replaySession } from "../tui/replay-session.js";

export const REPLAY_EXIT = { reproducedPass: 0, reproducedFail: 1, badInput: 2, internal: 3, notReproduced: 4 } as const;

export function readReplayFile(path: string): ReplayCase {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UserInputError(`cannot read replay file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseReplayFile(text, path);
}

export function writeReplayFile(path: string, c: ReplayCase): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, serializeReplayCase(c));
  } catch (err) {
    throw new UserInputError(`cannot write replay file ${path}: ${(err as Error).message}`);
  }
}

/**
 * Runs a case with the options it was recorded with (overriding the scenario, and the
 * decision-stream simplification, if given: `simplify`, even empty, attaches a decision tape, so
 * the result reports its draws).
 */
export function runReplayCase(c: ReplayCase, scenario = c.scenario, simplify?: readonly SimplifyRange[]): Promise<RunResult> {
  return runScenario(scenario, { ...replayRunOptions(c), ...(simplify !== undefined ? { simplify } : {}) });
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

export async function cmdReplay(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { json: "bool" }, "replay");
  if (args.positionals.length === 0) throw new UserInputError("replay: which replay file? (written by `zksim run --save FILE`)");
  if (args.positionals.length > 1) throw new UserInputError(`replay: unexpected argument "${args.positionals[1]}"`);
  const path = args.positionals[0]!;
  if (isSessionFile(path)) return replaySession(path, boolFlag(args, "json"));
  const c = readReplayFile(path);
  const result = await runReplayCase(c);
  const cmp = compareReplay(c, result);
  const code = !cmp.reproduced ? REPLAY_EXIT.notReproduced : result.verdict === "fail" ? REPLAY_EXIT.reproducedFail : REPLAY_EXIT.reproducedPass;
  if (boolFlag(args, "json")) {
    console.log(JSON.stringify({ file: path, scenario: c.scenario.name, seed: c.seed, reproduced: cmp.reproduced, expected: c.expected.traceHash, actual: result.traceHash, verdict: result.verdict, ...(cmp.reason !== undefined ? { reason: cmp.reason } : {}), ...(cmp.firstDifference !== undefined ? { firstDifference: cmp.firstDifference } : {}) }));
    return code;
  }
  const flags = caseFlags(c);
  console.log(`zksim replay ${path}: ${c.scenario.name} seed ${c.seed}${flags ? ` ${flags}` : ""} (${c.scenario.faults.length} fault${c.scenario.faults.length === 1 ? "" : "s"}, ${c.scenario.durationMs} ms)`);
  if (cmp.reproduced) {
    const what = result.verdict === "fail" ? `still fails: ${describeCheckers(result)}` : "passes, as recorded";
    console.log(`reproduced: ${result.traceHash} (${what})`);
  } else {
    console.log(`did not reproduce: ${cmp.reason}`);
    const d = cmp.firstDifference;
    if (d !== undefined) {
      console.log(`  first differing violation #${d.index}:`);
      console.log(`    expected: ${describeViolation(d.expected)}`);
      console.log(`    actual:   ${describeViolation(d.actual)}`);
    }
  }
  return code;
}

function describeViolation(v: ExpectedViolation | undefined): string {
  return v === undefined ? "(none)" : `[${v.checker}] ${v.message}`;
}

function describeCheckers(r: RunResult): string {
  const counts = new Map<string, number>();
  for (const v of r.violations) counts.set(v.checker, (counts.get(v.checker) ?? 0) + 1);
  return [...counts].map(([checker, n]) => `${n}× ${checker}`).join(", ");
}
