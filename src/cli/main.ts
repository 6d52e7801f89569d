/**
 * The `zksim` command line. The only layer (with the UI) that reads the real clock, picks
 * seeds from entropy, or touches files.
 *
 * Exit codes: 0 pass, 1 a checker found a violation (or a determinism divergence), 2 bad
 * input (one line on stderr, never a stack trace), 3 internal error; `replay` and `shrink` add
 * 4, "the recorded case did not reproduce" (see replay.ts).
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { UserInputError, isUserInputError } from "../sim/errors.js";
import { describeEvent, traceEventToJsonLine, type TraceEvent } from "../sim/trace.js";
import { runScenario, runScenarioWithSim } from "../scenario/run.js";
import { CANARIES, type Canary, type RunResult, type Scenario } from "../scenario/types.js";
import { boolFlag, intFlag, parseArgs, stringFlag } from "./args.js";
import { loadScenario, scenarioNames } from "./scenario-files.js";
import { BENCH_SUITES, runBench } from "./bench.js";
import { BUG_ZOO, bugEntry } from "../zk/server/quorum/bug-zoo.js";
import { cmdExplore } from "./explore/command.js";
import { openTraceReport } from "./report/trace-report.js";
import { replayCaseFromRun } from "../scenario/replay-file.js";
import { cmdReplay, writeReplayFile } from "./replay.js";
import { DEFAULT_MAX_RUNS, cmdShrink } from "./shrink.js";
import { generatedRecipeScenario } from "../scenario/scripts/recipe-run.js";
import { cmdLearn } from "../tui/cli.js";

const USAGE = `usage: zksim <command> [options]

commands:
  run <scenario> [--seed N] [--json] [--trace FILE] [--bug ID] [--canary NAME] [--variant V] [--generate] [--save FILE]
                                                      run one scenario with one seed (--bug re-injects a historical defect;
                                                      --variant naive: the recipe's naive variant, e.g. a herd lock, a polling barrier;
                                                      --generate: a recipe scenario with a workload shape and faults drawn from the seed,
                                                      as the property tests draw them;
                                                      --trace F.html: space-time diagram, F.shiviz: ShiViz log, else JSON lines;
                                                      --save F: if the run fails, write a replay file to F)
  explore <scenario> --seeds N [--from S] [--workers K] [--shard i/n] [--bug ID] [--canary NAME] [--variant V] [--generate] [--json] [--save-dir DIR]
                                                      sweep seeds S … S+N-1 (default S = 1) on K worker threads; exit 1 if any fails
                                                      (--save-dir: one replay file per failing seed, DIR/<scenario>-seed-<N>.json;
                                                      --generate: each seed draws its own workload shape and faults, as in run)
  replay <file> [--json]                              re-run a replay file and check it reproduces (same trace hash and checkers):
                                                      exit 1 reproduced (the case still fails), 0 reproduced a recorded pass,
                                                      4 did not reproduce, 2 unreadable or invalid file
  shrink <file> [--out FILE] [--max-runs N]           minimise a failing replay file: ddmin over its faults, then a shorter durationMs
                                                      (at most N runs, default ${DEFAULT_MAX_RUNS}); writes FILE (default <file>.shrunk.json);
                                                      exit 0 written, 4 the case no longer fails
  bugs [--json]                                       the bug zoo: historical ZooKeeper defects and the scenarios that trigger them
  list [--json]                                       list the scenarios
  determinism <scenario> [--seed N]                   run twice, compare trace hashes, name the first divergence
  bench <suite> [--json]                              benchmarks (${BENCH_SUITES.join(", ")}, all)
  demo                                                the headline demo (what \`npm start\` runs)
  learn [zab] [--lesson NAME] [--seed N] [--variant V] [--plain] [--script "step 3; crash s3"] [--open FILE] [--save FILE] [--lessons]
                                                      step through a protocol in a terminal UI (plain text without a TTY); see docs/learn.md

A scenario is a name under scenarios/ or a path to a scenario JSON file.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "run":
        return await cmdRun(rest);
      case "explore":
        return await cmdExplore(rest);
      case "replay":
        return await cmdReplay(rest);
      case "shrink":
        return await cmdShrink(rest);
      case "list":
        return cmdList(rest);
      case "bugs":
        return cmdBugs(rest);
      case "determinism":
        return await cmdDeterminism(rest);
      case "bench":
        return await cmdBench(rest);
      case "demo":
        return await cmdDemo(rest);
      case "learn":
        return await cmdLearn(rest);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        console.log(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UserInputError(`unknown command "${command}" (commands: run, explore, replay, shrink, list, bugs, determinism, bench, demo; see \`zksim help\`)`);
    }
  } catch (err) {
    if (isUserInputError(err)) {
      console.error(`zksim: ${err.message}`);
      return 2;
    }
    throw err;
  }
}

function oneScenario(positionals: string[], command: string, variant?: string): Scenario {
  if (positionals.length === 0) throw new UserInputError(`${command}: which scenario? (try \`zksim list\`)`);
  if (positionals.length > 1) throw new UserInputError(`${command}: unexpected argument "${positionals[1]}"`);
  return loadScenario(positionals[0]!, variant);
}

async function cmdRun(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { seed: "int", json: "bool", trace: "string", canary: "string", bug: "string", save: "string", variant: "string", generate: "bool" }, "run");
  const variant = stringFlag(args, "variant");
  const generate = boolFlag(args, "generate");
  const loaded = oneScenario(args.positionals, "run", variant);
  const seed = intFlag(args, "seed") ?? loaded.defaultSeed;
  const scenario = generate ? generatedRecipeScenario(loaded, seed) : loaded;
  const canary = stringFlag(args, "canary");
  if (canary !== undefined && !(CANARIES as readonly string[]).includes(canary)) {
    throw new UserInputError(`run: unknown canary "${canary}" (known: ${CANARIES.join(", ")})`);
  }
  const bug = stringFlag(args, "bug");
  const bugs = bug === undefined ? undefined : [bugEntry(bug).id];
  const tracePath = stringFlag(args, "trace");
  const report = tracePath !== undefined ? openTraceReport(tracePath) : undefined;
  const writer = tracePath !== undefined && report === undefined ? new TraceFileWriter(tracePath) : undefined;
  const started = performance.now();
  let result: RunResult;
  try {
    result = await runScenario(scenario, {
      seed,
      ...(canary !== undefined ? { canary: canary as Canary } : {}),
      ...(bugs !== undefined ? { bugs } : {}),
      ...(writer ? { onTraceEvent: (e: TraceEvent) => writer.write(e) } : {}),
      ...(report ? { onTraceEvent: (e: TraceEvent) => report.add(e) } : {}),
    });
  } finally {
    writer?.close();
  }
  const wallMs = Math.round(performance.now() - started);
  const reportNote = report?.finish(result);
  if (reportNote !== undefined) console.error(`zksim: --trace ${tracePath}: ${reportNote}`);
  const json = boolFlag(args, "json");
  if (json) {
    const { narrative: _n, counts: _c, ...rest } = result;
    console.log(JSON.stringify({ ...rest, wallMs }));
  } else {
    const extra = `${variant !== undefined ? ` --variant ${variant}` : ""}${generate ? " --generate" : ""}${bugs !== undefined ? ` --bug ${bugs[0]}` : ""}${canary !== undefined ? ` --canary ${canary}` : ""}`;
    printHuman(result, wallMs, tracePath, extra);
  }
  const savePath = stringFlag(args, "save");
  if (savePath !== undefined) {
    // Notes go to stderr with --json: stdout stays one JSON line.
    const note = json ? (line: string) => console.error(`zksim: ${line}`) : (line: string) => console.log(line);
    if (result.verdict === "fail") {
      const options = { ...(bugs !== undefined ? { bugs } : {}), ...(canary !== undefined ? { canary: canary as Canary } : {}) };
      writeReplayFile(savePath, replayCaseFromRun(scenario, options, result));
      note(`saved failing case to ${savePath}; replay: zksim replay ${savePath}`);
    } else {
      note(`--save ${savePath}: the run passed, nothing saved`);
    }
  }
  return result.verdict === "pass" ? 0 : 1;
}

function printHuman(r: RunResult, wallMs: number, tracePath?: string, replayFlags = ""): void {
  console.log(`zksim run ${r.scenario} --seed ${r.seed}`);
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
  if (r.verdict === "pass") {
    console.log(`verdict: PASS`);
  } else {
    console.log(`verdict: FAIL (${r.violations.length} violation${r.violations.length === 1 ? "" : "s"})`);
    for (const v of r.violations.slice(0, 10)) console.log(`  [${v.checker}] at ${v.atMs}ms (event #${v.eventIndex}): ${v.message}`);
  }
  console.log(`replay: zksim run ${r.scenario} --seed ${r.seed}${replayFlags}`);
}

function cmdBugs(argv: string[]): number {
  const args = parseArgs(argv, { json: "bool" }, "bugs");
  if (args.positionals.length > 0) throw new UserInputError(`bugs: unexpected argument "${args.positionals[0]}"`);
  if (boolFlag(args, "json")) {
    console.log(JSON.stringify(BUG_ZOO.map(({ id, title, scenario, invariant }) => ({ id, title, scenario, invariant }))));
    return 0;
  }
  for (const b of BUG_ZOO) console.log(`${b.id.padEnd(9)} ${b.scenario.padEnd(12)} ${b.invariant.padEnd(26)} ${b.title} (fixed in ${b.fixedIn})`);
  console.log(`\nreplay one: zksim run <scenario> --bug <id>   (the same scenario passes without --bug)`);
  return 0;
}

function cmdList(argv: string[]): number {
  const args = parseArgs(argv, { json: "bool" }, "list");
  if (args.positionals.length > 0) throw new UserInputError(`list: unexpected argument "${args.positionals[0]}"`);
  const entries = scenarioNames().map((name) => {
    const s = loadScenario(name);
    return { name, description: s.description, tags: s.tags };
  });
  if (boolFlag(args, "json")) {
    console.log(JSON.stringify(entries));
  } else {
    const width = Math.max(...entries.map((e) => e.name.length), 4);
    for (const e of entries) console.log(`${e.name.padEnd(width)}  ${e.description}`);
  }
  return 0;
}

async function cmdDeterminism(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { seed: "int", json: "bool" }, "determinism");
  const scenario = oneScenario(args.positionals, "determinism");
  const seed = intFlag(args, "seed") ?? scenario.defaultSeed;
  const a = await runScenarioWithSim(scenario, { seed, keepHashes: true, retainTrace: true });
  const b = await runScenarioWithSim(scenario, { seed, keepHashes: true, retainTrace: true });
  const divergence = firstDivergence(a.sim.trace.hashHistory, b.sim.trace.hashHistory);
  const same = divergence < 0 && a.result.traceHash === b.result.traceHash;
  if (boolFlag(args, "json")) {
    console.log(JSON.stringify({ scenario: scenario.name, seed, deterministic: same, hashes: [a.result.traceHash, b.result.traceHash], firstDivergentEvent: divergence < 0 ? null : divergence }));
  } else if (same) {
    console.log(`deterministic: ${scenario.name} seed ${seed} gave trace hash ${a.result.traceHash} twice (${a.result.events} events)`);
  } else {
    console.log(`NOT deterministic: ${scenario.name} seed ${seed}: ${a.result.traceHash} vs ${b.result.traceHash}`);
    const ea = a.sim.trace.events[divergence];
    const eb = b.sim.trace.events[divergence];
    console.log(`  first divergent event #${divergence}:`);
    console.log(`    run 1: ${ea ? describeEvent(ea) : "(trace ended)"}`);
    console.log(`    run 2: ${eb ? describeEvent(eb) : "(trace ended)"}`);
  }
  return same ? 0 : 1;
}

/** Index of the first event whose running hash differs (−1 when the histories agree). */
export function firstDivergence(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

async function cmdBench(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { json: "bool" }, "bench");
  if (args.positionals.length !== 1) throw new UserInputError(`bench: which suite? (${BENCH_SUITES.join(", ")}, all)`);
  const suite = args.positionals[0]!;
  const figures = await runBench(suite);
  for (const f of figures) {
    if (boolFlag(args, "json")) console.log(JSON.stringify(f));
    else console.log(`${f.bench.padEnd(12)} ${f.metric.padEnd(28)} ${String(f.value).padStart(14)} ${f.unit}`);
  }
  return 0;
}

async function cmdDemo(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { seed: "int" }, "demo");
  const scenario = loadScenario("zab-leader-crash-before-commit");
  const seed = intFlag(args, "seed") ?? scenario.defaultSeed;
  console.log(`zksim demo: a 3-server ZooKeeper ensemble loses its leader mid-commit.`);
  console.log(`${scenario.description}.`);
  console.log(`One seed and one scenario determine the whole run; the same seed gives the same trace hash anywhere.\n`);
  const timeline: string[] = [];
  const started = performance.now();
  const result = await runScenario(scenario, { seed, onTraceEvent: (e) => narrateZab(e, timeline) });
  console.log("What ZAB did:");
  for (const line of timeline) console.log(`  ${line}`);
  console.log("");
  printHuman(result, Math.round(performance.now() - started));
  return result.verdict === "pass" ? 0 : 1;
}

/** One line per ZAB milestone, in the book's vocabulary. */
function narrateZab(e: TraceEvent, out: string[]): void {
  const t = `${(e.atUs / 1000).toFixed(1).padStart(8)} ms`;
  const f = e.fields ?? {};
  switch (e.kind) {
    case "zab.leader.established":
      out.push(`${t}  ${e.node} is the established leader of epoch ${f.epoch} (a quorum ACKed NEWLEADER; history up to ${f.lastZxid})`);
      return;
    case "zab.sync":
      out.push(`${t}  ${e.node} synchronises sid ${f.learner} by ${f.mode} (learner at ${f.peerLastZxid})`);
      return;
    case "zab.truncate":
      out.push(`${t}  ${e.node} truncates its log back to ${f.zxid}: its uncommitted tail is discarded`);
      return;
    case "crash":
      if (e.node.startsWith("s")) out.push(`${t}  ${e.node} crashes`);
      return;
    case "start":
    case "restart":
      if (e.node.startsWith("s") && e.atUs > 0) out.push(`${t}  ${e.node} restarts from its disk`);
      return;
  }
}

/** Streams trace events as JSON lines, buffered (real I/O: cli only). */
class TraceFileWriter {
  private readonly fd: number;
  private buffer: string[] = [];

  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, "w");
    } catch (err) {
      throw new UserInputError(`--trace: cannot write ${path}: ${(err as Error).message}`);
    }
  }

  write(e: TraceEvent): void {
    this.buffer.push(traceEventToJsonLine(e));
    if (this.buffer.length >= 4096) this.flush();
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    writeSync(this.fd, this.buffer.join("\n") + "\n");
    this.buffer = [];
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}
