/**
 * `zksim check TARGET`: the model checker (src/search/, docs/model-checking.md). Explores every
 * choice of a small world — which pending message, timer or disk completion comes next, and
 * crashes, restarts, losses, duplications, cuts and early timeouts up to their budgets — within
 * the bounds, with state hashing and sleep sets, every checker judging every path.
 *
 * Output: a progress line on a terminal (distinct states, frontier, depth, states/s); then a
 * summary: the figures, each checker's verdict (violated, with the counterexample written as a
 * learn session file — `zksim learn --open FILE`, `zksim replay FILE`, `zksim shrink FILE`,
 * `zksim replay FILE --trace F.html` — or holding within the bound), and why the search ended.
 * `--json`: one JSON line instead.
 *
 * Exit codes: 0 no violation within the bounds, 1 a violation (counterexample written), 2 bad
 * input, 130 stopped by SIGINT or SIGTERM (after the summary and the counterexamples).
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { UserInputError } from "../../sim/errors.js";
import { boolFlag, intFlag, parseArgs, stringFlag, type ParsedArgs } from "../args.js";
import type { Command } from "../command.js";
import { checkOutputPath, ensureDir, writeOutputFile } from "../files.js";
import { scenarioNames } from "../scenario-files.js";
import { bounded, checkBounds, faultsText, LIMITS, parseFaults, type SearchBounds } from "../../search/bounds.js";
import { search, type Found, type Progress, type SearchResult } from "../../search/engine.js";
import { TARGETS, targetFor } from "../../search/targets.js";
import type { CheckTarget } from "../../search/target.js";
import type { StartPoint } from "../../search/executor.js";
import { counterexampleSession } from "../../search/counterexample.js";
import { describeStep } from "../../search/choices.js";
import { onStopSignals, SIGNAL_EXIT, type StopSignal } from "../../base/stop-signals.js";


export const check: Command = {
  name: "check",
  args: "<target> [--strategy bfs|dfs] [--depth N] [--faults KIND=N,…] [--reorders N] [--states N] [--time S] [--hold-ms N] [--converge-ms N] [--from start|setup] [--variant V] [--bug ID] [--seed N] [--checkers A,B] [--stop-at-first] [--out DIR] [--json] | --list",
  help: `model-check a small world: every interleaving, crash point, loss… within the bounds
(docs/model-checking.md). --list names the targets. Fault kinds: crash, restart, loss,
duplicate, partition, timeout. Counterexamples are learn session files in --out DIR
(default .): zksim learn --open FILE, zksim replay FILE [--trace F.html], zksim shrink FILE.
exit 0 nothing found within the bounds, 1 a violation, 2 bad input, 130 interrupted`,
  run: cmdCheck,
};

const SPEC = {
  strategy: "string",
  depth: "string",
  faults: "string",
  reorders: "string",
  states: "string",
  time: "string",
  "hold-ms": "string",
  "converge-ms": "string",
  from: "string",
  variant: "string",
  bug: "string",
  seed: "int",
  "stop-at-first": "bool",
  checkers: "string",
  out: "string",
  json: "bool",
  list: "bool",
} as const;

interface CheckRequest {
  target: CheckTarget;
  bounds: SearchBounds;
  from: StartPoint;
  stopAtFirst: boolean;
  checkers: string[] | undefined;
  outDir: string;
  json: boolean;
}

async function cmdCheck(argv: string[]): Promise<number> {
  const args = parseArgs(argv, SPEC, "check");
  if (boolFlag(args, "list")) return listTargets(args);
  const req = parseRequest(args);
  ensureDir(req.outDir, `--out ${req.outDir}`);
  const progress = !req.json && process.stdout.isTTY ? new ProgressLine(process.stdout) : undefined;
  let stop: StopSignal | undefined;
  const release = onStopSignals((signal) => {
    if (stop !== undefined) process.exit(SIGNAL_EXIT[signal]);
    stop = signal;
  });
  let result: SearchResult;
  try {
    result = await search(req.target, {
      bounds: req.bounds,
      from: req.from,
      stopAtFirst: req.stopAtFirst,
      ...(req.checkers !== undefined ? { checkers: req.checkers } : {}),
      now: () => performance.now(),
      shouldStop: () => stop !== undefined,
      ...(progress !== undefined ? { onProgress: (p: Progress) => progress.draw(p) } : {}),
    });
  } finally {
    release();
  }
  progress?.clear();
  const files = await writeCounterexamples(req, result.found);
  if (req.json) console.log(JSON.stringify(jsonReport(req, result, files)));
  else for (const line of summary(req, result, files)) console.log(line);
  if (result.outcome === "interrupted") return SIGNAL_EXIT[stop ?? "SIGINT"];
  return result.found.length > 0 ? 1 : 0;
}

function parseRequest(args: ParsedArgs): CheckRequest {
  if (args.positionals.length === 0) throw new UserInputError(`check: which target? (${TARGETS.map((t) => t.name).join(", ")}; zksim check --list)`);
  if (args.positionals.length > 1) throw new UserInputError(`check: unexpected argument "${args.positionals[1]}"`);
  const name = args.positionals[0]!;
  if (!TARGETS.some((t) => t.name === name) && scenarioNames().includes(name)) {
    throw new UserInputError(`check: scenario ${name} has no stepper: the search runs the learn worlds, through the targets ${TARGETS.map((t) => t.name).join(", ")}`);
  }
  const base = targetFor(name);
  const target = withOverrides(base, args);
  const d = base.bounds;
  const text = (flag: string) => stringFlag(args, flag);
  const num = (flag: string, max: number) => (text(flag) !== undefined ? bounded(text(flag)!, `--${flag}`, max) : undefined);
  const strategy = text("strategy") ?? d.strategy;
  if (strategy !== "bfs" && strategy !== "dfs") throw new UserInputError(`check: --strategy must be bfs or dfs (iterative deepening), got "${strategy}"`);
  const from = text("from") ?? "setup";
  if (from !== "start" && from !== "setup") throw new UserInputError(`check: --from must be start (the world as it becomes ready) or setup (after the target's setup), got "${from}"`);
  const timeS = num("time", LIMITS.timeMs / 1000);
  const bounds = checkBounds({
    strategy,
    depth: num("depth", LIMITS.depth) ?? d.depth,
    faults: text("faults") !== undefined ? parseFaults(text("faults")!, { ...d.faults, crash: 0, restart: 0, loss: 0, duplicate: 0, partition: 0, timeout: 0 }) : d.faults,
    reorders: text("reorders") === "all" ? undefined : (num("reorders", LIMITS.reorders) ?? d.reorders),
    maxStates: num("states", LIMITS.states) ?? d.maxStates,
    maxTimeMs: timeS !== undefined ? timeS * 1000 : d.maxTimeMs,
    holdMs: num("hold-ms", LIMITS.holdMs) ?? d.holdMs,
    convergeMs: num("converge-ms", LIMITS.convergeMs) ?? d.convergeMs,
  });
  const outDir = text("out") ?? ".";
  checkOutputPath(join(outDir, "x.json"), "--out");
  const checkers = text("checkers")?.split(",").map((c) => c.trim()).filter((c) => c !== "");
  return { target, bounds, from, stopAtFirst: boolFlag(args, "stop-at-first"), checkers, outDir, json: boolFlag(args, "json") };
}

/** --variant, --bug (a bug-zoo variant of the target's adapter) and --seed. */
function withOverrides(t: CheckTarget, args: ParsedArgs): CheckTarget {
  const variantFlag = stringFlag(args, "variant");
  const bug = stringFlag(args, "bug");
  if (variantFlag !== undefined && bug !== undefined) throw new UserInputError("check: give --variant or --bug, not both");
  const variant = bug !== undefined ? `bug-${bug.replace(/^(ZK-|ZOOKEEPER-)/i, "")}` : variantFlag;
  if (variant !== undefined && !t.adapter.variants.includes(variant)) {
    throw new UserInputError(`check ${t.name}: unknown ${bug !== undefined ? `bug "${bug}" for this world` : `variant "${variant}"`} (variants: ${t.adapter.variants.join(", ")})`);
  }
  const seed = intFlag(args, "seed");
  return { ...t, ...(variant !== undefined ? { variant } : {}), ...(seed !== undefined ? { seed } : {}) };
}

function listTargets(args: ParsedArgs): number {
  if (args.positionals.length > 0) throw new UserInputError(`check: --list takes no target (got "${args.positionals[0]}")`);
  const rows = TARGETS.map((t) => ({ name: t.name, description: t.description, depth: t.bounds.depth, faults: faultsText(t.bounds.faults), reorders: t.bounds.reorders ?? "all", canary: t.canary?.variant }));
  if (boolFlag(args, "json")) console.log(JSON.stringify(rows));
  else for (const r of rows) console.log(`${r.name.padEnd(14)} ${r.description}\n${"".padEnd(14)} depth ${r.depth}, faults ${r.faults}, reorders ${r.reorders}${r.canary !== undefined ? `; canary --variant ${r.canary}` : ""}`);
  return 0;
}

interface Written {
  checker: string;
  file: string | undefined;
  error?: string;
}

async function writeCounterexamples(req: CheckRequest, found: readonly Found[]): Promise<Written[]> {
  const out: Written[] = [];
  for (const f of found) {
    const file = join(req.outDir, `zksim-check-${req.target.name}-${f.checker.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`);
    const end = f.inTail ? { holdMs: req.bounds.holdMs, convergeMs: req.bounds.convergeMs } : undefined;
    const session = await counterexampleSession(req.target, req.from, { path: f.path, checker: f.checker, end });
    try {
      writeOutputFile(file, `${JSON.stringify(session, null, 1)}\n`, "counterexample");
      out.push({ checker: f.checker, file });
    } catch (err) {
      out.push({ checker: f.checker, file: undefined, error: (err as Error).message });
    }
  }
  return out;
}

function rate(r: SearchResult): number {
  return Math.round((r.unique / Math.max(r.wallMs / 1000, 1e-3)) * 10) / 10;
}

const OUTCOME_TEXT: Record<SearchResult["outcome"], string> = {
  complete: "explored every state within the bounds",
  found: "stopped at the first violation (--stop-at-first)",
  states: "stopped: --states reached (not every state within the bounds was explored)",
  time: "stopped: --time reached (not every state within the bounds was explored)",
  interrupted: "interrupted (not every state within the bounds was explored)",
};

function summary(req: CheckRequest, r: SearchResult, files: readonly Written[]): string[] {
  const b = req.bounds;
  const lines = [
    `zksim check ${r.target}: ${req.target.adapter.protocol} [${req.target.variant}] seed ${req.target.seed}, from ${r.from}, ${r.strategy === "bfs" ? "breadth-first" : "depth-first, iterative deepening"}`,
    `  bounds: depth ${b.depth}, faults ${faultsText(b.faults)}, reorders ${b.reorders ?? "all"}; each path ends: hold ${b.holdMs} ms, heal, converge ${b.convergeMs} ms`,
    `  ${r.unique.toLocaleString("en-US")} distinct states, ${r.transitions.toLocaleString("en-US")} transitions, depth ${r.depth}, ${r.ends.toLocaleString("en-US")} path ends judged; ${(r.wallMs / 1000).toFixed(1)} s, ${rate(r)} states/s (${r.worldsBuilt.toLocaleString("en-US")} re-executions, ${r.eventsRun.toLocaleString("en-US")} events)`,
    `  ${OUTCOME_TEXT[r.outcome]}`,
  ];
  for (const name of r.checkers) {
    const f = r.found.find((x) => x.checker === name);
    if (f === undefined) {
      lines.push(`  ✓ ${name}: ${r.outcome === "complete" ? "holds within the bounds" : "no violation in the states explored"}`);
      continue;
    }
    const w = files.find((x) => x.checker === name);
    lines.push(`  ✗ ${name}: ${f.message}`);
    lines.push(`      ${f.path.length} step(s)${f.inTail ? " then the end of the path (hold, heal, converge)" : ""}, found after ${f.atUnique.toLocaleString("en-US")} states: ${f.path.map(describeStep).join(", ")}`);
    if (w?.file !== undefined) lines.push(`      counterexample: ${w.file} (zksim learn --open ${w.file}; zksim replay ${w.file})`);
    else lines.push(`      counterexample not written: ${w?.error ?? "?"}`);
  }
  return lines;
}

function jsonReport(req: CheckRequest, r: SearchResult, files: readonly Written[]): object {
  return {
    target: r.target,
    protocol: req.target.adapter.protocol,
    variant: req.target.variant,
    seed: req.target.seed,
    from: r.from,
    strategy: r.strategy,
    bounds: { depth: req.bounds.depth, faults: req.bounds.faults, reorders: req.bounds.reorders ?? null, holdMs: req.bounds.holdMs, convergeMs: req.bounds.convergeMs },
    outcome: r.outcome,
    states: r.unique,
    transitions: r.transitions,
    depth: r.depth,
    ends: r.ends,
    reexecutions: r.worldsBuilt,
    events: r.eventsRun,
    wallMs: Math.round(r.wallMs),
    statesPerSec: rate(r),
    violations: r.found.map((f) => ({ checker: f.checker, message: f.message, steps: f.path.length, atEnd: f.inTail, statesToFind: f.atUnique, file: files.find((w) => w.checker === f.checker)?.file ?? null })),
    holds: r.checkers.filter((c) => !r.found.some((f) => f.checker === c)),
    ...(r.outcome === "interrupted" ? { interrupted: true } : {}),
  };
}

/** The progress line on a terminal, redrawn in place at most five times a second. */
class ProgressLine {
  constructor(private readonly out: NodeJS.WriteStream) {}

  draw(p: Progress): void {
    const perSec = p.unique / Math.max(p.wallMs / 1000, 1e-3);
    const text = `${p.unique.toLocaleString("en-US")} states, frontier ${p.frontier.toLocaleString("en-US")}, depth ${p.depth}, ${p.transitions.toLocaleString("en-US")} transitions, ${perSec.toFixed(0)} states/s, ${(p.wallMs / 1000).toFixed(0)} s`;
    const cols = this.out.columns || 80;
    this.out.write(`\r${text.length < cols ? text : text.slice(0, cols - 1)}\x1b[K`);
  }

  clear(): void {
    this.out.write("\r\x1b[K");
  }
}
