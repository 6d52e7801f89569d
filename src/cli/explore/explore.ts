/**
 * Runs one scenario over many seeds, in-process or on `node:worker_threads` workers, and
 * returns one outcome per seed sorted by seed: the result never depends on the number of
 * workers or on which worker finished first (each seed's run is deterministic by itself).
 *
 * Workers pull seeds one at a time (a slow seed does not hold up a pre-assigned batch). A run
 * that throws is an outcome too (checker "exception"): a sweep reports every seed it could not
 * run cleanly, with the replay command, instead of stopping at the first.
 */
import { Worker } from "node:worker_threads";
import { runScenario } from "../../scenario/run.js";
import type { Canary, Scenario, Verdict } from "../../scenario/types.js";
import { generatedRecipeScenario } from "../../scenario/scripts/recipe-run.js";
import { strictFailure } from "../../scenario/judged.js";

export interface SeedRunOptions {
  /** Bug-zoo ids, already normalised (`bugEntry(raw).id`). */
  bugs?: readonly string[];
  canary?: Canary;
  /** `--generate`: each seed runs its own generated recipe scenario (`generatedRecipeScenario`). */
  generate?: boolean;
  /** `--strict`: a pass with an unjudged stretch or a checker that read nothing is a failure (checker "strict"). */
  strict?: boolean;
}

export interface SeedOutcome {
  seed: number;
  /** "expected": only violations of the scenario's declared flaws (scenario/verdict.ts). */
  verdict: Verdict;
  /** The first violation's checker (or "exception"), for failures and expected ones. */
  checker?: string;
  message?: string;
  traceHash?: string;
  /** Every violation's checker and message, for failures that ran to the end (for --save-dir). */
  violations?: { checker: string; message: string }[];
  /** Stretches a checker could not judge (RunResult.unknown): a pass with gaps is still a pass. */
  unknown?: number;
  /** The fraction of checker-time judged (RunResult.judged), when below 1. */
  judged?: number;
  /** The checkers that read no event (RunResult.judged.idle), when any. */
  idle?: string[];
  /** The fault kinds and protocol states the run reached (RunResult.coverage). */
  coverage?: string[];
}

/** Called after each seed, in completion order (for progress only). */
export type OnSeedDone = (outcome: SeedOutcome) => void;

export async function runOneSeed(scenario: Scenario, seed: number, options: SeedRunOptions): Promise<SeedOutcome> {
  try {
    const r = await runScenario(options.generate === true ? generatedRecipeScenario(scenario, seed) : scenario, {
      seed,
      coverage: true,
      ...(options.canary !== undefined ? { canary: options.canary } : {}),
      ...(options.bugs !== undefined ? { bugs: options.bugs } : {}),
    });
    const coverage = r.coverage ?? [];
    const judged = { ...(r.judged.fraction < 1 ? { judged: r.judged.fraction } : {}), ...(r.judged.idle.length > 0 ? { idle: r.judged.idle } : {}) };
    const strict = options.strict === true && r.verdict === "pass" ? strictFailure(r.judged, r.unknown) : undefined;
    if (strict !== undefined) return { seed, verdict: "fail", checker: "strict", message: strict, traceHash: r.traceHash, coverage, ...judged };
    if (r.verdict === "pass") return { seed, verdict: "pass", traceHash: r.traceHash, coverage, ...(r.unknown.length > 0 ? { unknown: r.unknown.length } : {}), ...judged };
    const first = r.violations[0];
    const violations = r.violations.map(({ checker, message }) => ({ checker, message }));
    return { seed, verdict: r.verdict, checker: first?.checker ?? "unknown", message: first?.message ?? "", traceHash: r.traceHash, violations, coverage, ...judged };
  } catch (err) {
    return { seed, verdict: "fail", checker: "exception", message: err instanceof Error ? err.message : String(err) };
  }
}

/** Lets the event loop turn (a signal handler run) between two seeds: a run itself never yields to it. */
const eventLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs the seeds one after another; when `stop` is aborted, returns the outcomes of the seeds
 * run so far (the running seed finishes first). Given `stop`, the loop yields to the event
 * loop between seeds so that a SIGINT handler can abort it.
 */
export async function exploreInProcess(scenario: Scenario, seeds: readonly number[], options: SeedRunOptions, onDone?: OnSeedDone, stop?: AbortSignal): Promise<SeedOutcome[]> {
  const outcomes: SeedOutcome[] = [];
  for (const seed of seeds) {
    if (stop !== undefined) await eventLoopTurn();
    if (stop?.aborted === true) break;
    const o = await runOneSeed(scenario, seed, options);
    outcomes.push(o);
    onDone?.(o);
  }
  return bySeed(outcomes);
}

/** What a worker needs to rebuild the scenario (it loads the file itself). */
export interface WorkerInit extends SeedRunOptions {
  /** The scenario name or path as the user gave it (workers share the process's cwd). */
  scenario: string;
  /** `--variant`: the recipe variant its script is replaced with. */
  variant?: string;
}

export type ToWorker = { kind: "seed"; seed: number };
export type FromWorker = { kind: "ready" } | { kind: "outcome"; outcome: SeedOutcome } | { kind: "fatal"; message: string };

/** As exploreInProcess, on worker threads; when `stop` is aborted, the seeds still running are dropped. */
export async function exploreInWorkers(init: WorkerInit, seeds: readonly number[], workers: number, onDone?: OnSeedDone, stop?: AbortSignal): Promise<SeedOutcome[]> {
  const queue = [...seeds];
  const outcomes: SeedOutcome[] = [];
  const pool: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let live = Math.min(workers, queue.length);
      if (live === 0) resolve();
      stop?.addEventListener("abort", () => resolve(), { once: true });
      const feed = (w: Worker) => {
        const seed = queue.shift();
        if (seed !== undefined) {
          w.postMessage({ kind: "seed", seed } satisfies ToWorker);
        } else if (--live === 0) {
          resolve();
        }
      };
      for (let i = 0; i < live; i++) {
        // The young generation the CLI gives its main thread (bin/zksim.js): 3 × a 64 MiB semi-space.
        const w = new Worker(new URL("./worker.js", import.meta.url), { workerData: init, resourceLimits: { maxYoungGenerationSizeMb: 192 } });
        pool.push(w);
        w.on("message", (m: FromWorker) => {
          if (stop?.aborted === true) return;
          if (m.kind === "fatal") return reject(new Error(`explore worker: ${m.message}`));
          if (m.kind === "outcome") {
            outcomes.push(m.outcome);
            onDone?.(m.outcome);
          }
          feed(w);
        });
        w.on("error", reject);
        w.on("exit", (code) => {
          if (code !== 0) reject(new Error(`explore worker exited with code ${code}`));
        });
      }
    });
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
  return bySeed(outcomes);
}

function bySeed(outcomes: SeedOutcome[]): SeedOutcome[] {
  return outcomes.sort((a, b) => a.seed - b.seed);
}
