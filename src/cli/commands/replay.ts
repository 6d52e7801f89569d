/**
 * `zksim replay <file> [--json] [--trace FILE]`: re-executes a recorded case (a "replay/1" file
 * written by `run --save`, `explore --save-dir`, `shrink` or a user's property) and checks that it
 * reproduces (scenario/replay.ts); `--trace` draws the re-executed run.
 * Exit codes: REPLAY_EXIT (cli/replay.ts).
 */
import { UserInputError } from "../../sim/errors.js";
import type { RunResult } from "../../scenario/types.js";
import type { ExpectedViolation } from "../../scenario/replay-file.js";
import { caseFlags, compareReplay, runReplayCase, type ReplayComparison } from "../../scenario/replay.js";
import { boolFlag, parseArgs, stringFlag } from "../args.js";
import type { Command } from "../command.js";
import { REPLAY_EXIT } from "../replay.js";
import { readInputFile } from "../files.js";
import { USER_CODE_LIMIT_FLAG } from "../user-code-worker.js";
import { inUserCodeWorker, userModuleFlags, userModuleOf, USER_MODULE_FLAGS, type UserModuleFlags } from "../user-module.js";
import { parseReplayFile, type ReplayCase } from "../../scenario/replay-file.js";
import { isSessionFileText } from "../../tui/session-file.js";
import { replaySession } from "../../tui/replay-session.js";
import { JOURNAL_FORMAT, servedCaseFromJournal } from "../../serve/serve-recorder.js";
import { REPLAY_REGISTRY, writeReplayFile } from "../replay.js";
import { openTraceReport } from "../report/trace-report.js";
import { TraceFileWriter } from "../trace-file.js";
import { traced, type Traced } from "../run-traced.js";

export const replay: Command = {
  name: "replay",
  args: `<file> [--module PATH] [${USER_CODE_LIMIT_FLAG} N] [--json] [--trace FILE]`,
  help: `re-run a replay file and check it reproduces (same trace hash and checkers):
exit 1 reproduced (the case still fails), 0 reproduced a recorded pass (or a case that shows
only the scenario's documented flaws, verdict "expected"),
4 did not reproduce, 2 unreadable or invalid file.
A replay of a user's script (the public API: runUserScript, userScriptProperty) imports the
script from --module PATH (default: the module the file records, relative to this directory)
and runs it in a worker thread: loading the module, and the run, must each finish within
${USER_CODE_LIMIT_FLAG} N seconds of wall-clock time (default 120; the same for shrink and run):
a module or script that never finishes is an error, exit 2.
A learn session (zksim learn --save, a zksim check counterexample) re-executes to its saved
step. --trace F.html draws the run replayed, a user's script's as well, as a space-time diagram
(F.shiviz: ShiViz log, else JSON lines); a passing replay whose trace could not be written exits 2`,
  run: cmdReplay,
};

async function cmdReplay(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { json: "bool", trace: "string", ...USER_MODULE_FLAGS }, "replay");
  const userFlags = userModuleFlags(args);
  if (args.positionals.length === 0) throw new UserInputError("replay: which replay file? (written by `zksim run --save FILE`)");
  if (args.positionals.length > 1) throw new UserInputError(`replay: unexpected argument "${args.positionals[1]}"`);
  const path = args.positionals[0]!;
  const text = readInputFile(path, "replay file");
  // A `zksim learn --save` session file replays by re-executing its branch (tui/replay-session.ts).
  if (isSessionFileText(text)) return replaySessionWithTrace(path, boolFlag(args, "json"), stringFlag(args, "trace"));
  // The journal `zksim serve --record FILE` keeps while serving: left behind when serve did not stop cleanly.
  if (text.startsWith(`{"zksim":"${JOURNAL_FORMAT}"`)) return replayJournal(path, text);
  const parsed = parseReplayFile(text, path, REPLAY_REGISTRY);
  const module = userModuleOf(parsed.scenario, path, userFlags, "replay");
  const tracePath = stringFlag(args, "trace");
  const run = module !== undefined ? await replayUser(path, module, userFlags, tracePath) : await replayBuiltin(parsed, tracePath);
  const { c, result, cmp } = run.result;
  if (run.reportNote !== undefined) console.error(`zksim: --trace ${tracePath}: ${run.reportNote}`);
  for (const line of run.lost) console.error(`zksim: ${line}`);
  const reproducedCode = result.verdict === "fail" ? REPLAY_EXIT.reproducedFail : run.lost.length > 0 ? REPLAY_EXIT.badInput : REPLAY_EXIT.reproducedPass;
  const code = cmp.reproduced ? reproducedCode : REPLAY_EXIT.notReproduced;
  if (boolFlag(args, "json")) {
    console.log(JSON.stringify({ file: path, scenario: c.scenario.name, seed: c.seed, reproduced: cmp.reproduced, expected: c.expected.traceHash, actual: result.traceHash, verdict: result.verdict, ...(cmp.reason !== undefined ? { reason: cmp.reason } : {}), ...(cmp.firstDifference !== undefined ? { firstDifference: cmp.firstDifference } : {}) }));
    return code;
  }
  const flags = caseFlags(c);
  console.log(`zksim replay ${path}: ${c.scenario.name} seed ${c.seed}${flags ? ` ${flags}` : ""} (${c.scenario.faults.length} fault${c.scenario.faults.length === 1 ? "" : "s"}, ${c.scenario.durationMs} ms)`);
  if (cmp.reproduced) {
    const what = { fail: `still fails: ${describeCheckers(result)}`, expected: `shows only the scenario's documented flaws, as recorded: ${describeCheckers(result)}`, pass: "passes, as recorded" }[result.verdict];
    console.log(`reproduced: ${result.traceHash} (${what})`);
    if (tracePath !== undefined && run.lost.length === 0) console.log(`  trace written to ${tracePath}`);
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

/** A learn session (or a `zksim check` counterexample), its re-execution drawn to `--trace FILE`. */
async function replaySessionWithTrace(path: string, json: boolean, tracePath: string | undefined): Promise<number> {
  if (tracePath === undefined) return (await replaySession(path, json)).code;
  const report = openTraceReport(tracePath);
  const writer = report === undefined ? new TraceFileWriter(tracePath) : undefined;
  let r: Awaited<ReturnType<typeof replaySession>>;
  try {
    r = await replaySession(path, json, (e) => (report !== undefined ? report.add(e) : writer!.write(e)));
  } finally {
    const failure = writer?.close();
    if (failure !== undefined) console.error(`zksim: ${failure}`);
  }
  if (report !== undefined) {
    const note = report.finish({ scenario: `learn ${r.protocol} (${path})`, seed: r.seed, traceHash: r.traceHash, verdict: r.violations.length > 0 ? "fail" : "pass", violations: r.violations, events: r.events, virtualMs: r.virtualMs });
    if (note !== undefined) console.error(`zksim: --trace ${tracePath}: ${note}`);
  }
  return r.code;
}

/**
 * A serve journal (src/serve/serve-recorder.ts) has no recorded outcome: run it, report, and
 * write it as a replay file beside it (`FILE` for `FILE.partial`) whose `expected` is this run.
 */
async function replayJournal(path: string, text: string): Promise<number> {
  const c = servedCaseFromJournal(text, path);
  const result = await runReplayCase(c, { registry: REPLAY_REGISTRY });
  const out = path.endsWith(".partial") ? path.slice(0, -".partial".length) : `${path}.json`;
  writeReplayFile(out, { ...c, expected: { traceHash: result.traceHash, verdict: result.verdict, violations: result.violations.map(({ checker, message }) => ({ checker, message })) } });
  console.log(`zksim replay ${path}: the journal of a serve session that did not stop cleanly (${c.scenario.faults.length} faults, ${c.scenario.durationMs} ms up to its last input or fault)`);
  console.log(`  ran it: trace hash ${result.traceHash}, ${result.verdict === "fail" ? `fails: ${describeCheckers(result)}` : "passes"}`);
  console.log(`wrote ${out}; replay: zksim replay ${out}`);
  return result.verdict === "fail" ? REPLAY_EXIT.reproducedFail : REPLAY_EXIT.reproducedPass;
}

/** A case run again: the case, what the run gave, and the comparison. */
interface Replayed {
  c: ReplayCase;
  result: { traceHash: string; verdict: RunResult["verdict"]; violations: readonly { checker: string; message: string }[] };
  cmp: ReplayComparison;
}

/** A built-in case, run as recorded (`--trace FILE`: drawn there). */
async function replayBuiltin(c: ReplayCase, tracePath: string | undefined): Promise<Traced<Replayed>> {
  const run = await traced(tracePath, (sink) => runReplayCase(c, { registry: REPLAY_REGISTRY, ...sink }), (r) => r);
  return { ...run, result: { c, result: run.result, cmp: compareReplay(c, run.result) } };
}

/**
 * A user's script: imported from --module (or the recorded path), then run as recorded
 * (api/run-user-script.ts) and drawn, in a worker under a wall-clock limit (cli/user-code-worker.ts).
 */
function replayUser(path: string, module: string, flags: UserModuleFlags, tracePath: string | undefined): Promise<Traced<Replayed>> {
  return inUserCodeWorker("replayUserTask", { path, module, ...(tracePath !== undefined ? { tracePath } : {}) }, module, flags);
}

function describeViolation(v: ExpectedViolation | undefined): string {
  return v === undefined ? "(none)" : `[${v.checker}] ${v.message}`;
}

function describeCheckers(r: Replayed["result"]): string {
  const counts = new Map<string, number>();
  for (const v of r.violations) counts.set(v.checker, (counts.get(v.checker) ?? 0) + 1);
  return [...counts].map(([checker, n]) => `${n}× ${checker}`).join(", ");
}
