/**
 * Runs one scenario with one seed: builds the simulator, the workload and the checkers,
 * draws the nemesis's faults (if the scenario names one) and installs the fault schedule, runs virtual time to the end, and returns the verdict with the
 * trace hash. Pure with respect to the outside world: no clock, no files (the CLI measures
 * wall time and writes trace files).
 */
import { MAX_EVENTS_PER_INSTANT, Simulator } from "../sim/simulator.js";
import { DecisionTape } from "../sim/decision-tape.js";
import { endAllFaults, installFaults } from "../sim/faults.js";
import { FAULT_EVENT_KINDS } from "../sim/trace-schema.js";
import { msToUs } from "../sim/time.js";
import { makeChecker, workloadDef } from "./registry.js";
import { withDrawnFaults } from "./nemesis/index.js";
import type { Workload } from "./workload.js";
import { DEFAULT_CONVERGENCE_BUDGET_MS, type RunOptions, type RunResult, type Scenario } from "./types.js";
import { subscribeCheckersInBatches, type Checker, type Violation } from "../check/checker.js";
import { missingFlaws, runVerdict } from "./verdict.js";
import { judgedSummary } from "./judged.js";
import { CoverageRecorder } from "./coverage.js";
import { pollHeap, setHeapPoll } from "../base/heap-poll.js";
import { HeapGuard, HeapLimitError, defaultHeapGuard, formatBytes, itemsHeld, oldGenerationLimitBytes } from "./heap-guard.js";

export interface RunHandle {
  sim: Simulator;
  result: RunResult;
}

export async function runScenario(scenario: Scenario, options: RunOptions = {}): Promise<RunResult> {
  return (await runScenarioWithSim(scenario, options)).result;
}

export async function runScenarioWithSim(scenarioAsGiven: Scenario, options: RunOptions = {}): Promise<RunHandle> {
  const seed = options.seed ?? scenarioAsGiven.defaultSeed;
  const def = workloadDef(scenarioAsGiven.workload.kind, options.registry);
  const scenario = withDrawnFaults(scenarioAsGiven, seed, def);
  const tape = options.simplify !== undefined ? new DecisionTape(options.simplify) : undefined;
  const sim = new Simulator({
    seed,
    network: scenario.network,
    retainTrace: options.retainTrace ?? false,
    keepHashes: options.keepHashes ?? false,
    ...(tape !== undefined ? { decisionTape: tape } : {}),
  });
  if (options.canary === "connection-reorder") sim.network.canaryReorderConnections = true;
  const checkers = [...scenario.checkers.map((name) => makeChecker(name, options.registry)), ...(options.extraCheckers ?? []).map((make) => make())];
  let lastFaultUs: number | undefined;
  sim.trace.subscribe((e) => (lastFaultUs = e.atUs), FAULT_EVENT_KINDS);
  // Each checker reads only its kinds (most read a handful of a run's ~50), in batches of events:
  // nothing reads a checker before the run's end.
  const checking = subscribeCheckersInBatches(sim.trace, checkers, options.checkerBatchEvents);
  if (options.onTraceEvent) sim.trace.subscribe(options.onTraceEvent);
  const coverage = options.coverage === true ? new CoverageRecorder(def.coverage) : undefined;
  if (coverage !== undefined) sim.trace.subscribe(coverage.onEvent.bind(coverage), coverage.kinds);
  const reported: Violation[] = [];
  const report = (checker: string, message: string) =>
    reported.push({ checker, message, eventIndex: Math.max(0, sim.trace.count - 1), atMs: sim.nowUs / 1000 });
  const guardOptions = options.heapGuard ?? defaultHeapGuard();
  const guard = guardOptions === false ? undefined : new HeapGuard(guardOptions);
  const limits = (untilUs: number) => (guard === undefined ? { untilUs } : { untilUs, until: guard.overLimit });
  // Inside one event (a long linearizability search) or the workload's setup the guard probes
  // through base/heap-poll.ts.
  const previousPoll = setHeapPoll(guard === undefined ? undefined : () => {
    if (guard.probe()) throw new HeapTripped();
  });
  try {
    const workload = def.create({
      sim,
      scenario,
      params: scenario.workload.params,
      ...(options.canary !== undefined ? { canary: options.canary } : {}),
      ...(options.bugs !== undefined ? { bugs: options.bugs } : {}),
      report,
    });
    workload.setup();
    pollHeap();
    installFaults(sim, scenario.faults, def.traceRoles);
    return await runToEnd(workload);
  } catch (err) {
    if (err instanceof HeapTripped) throw heapLimitError(scenario, seed, sim, checkers, guard!);
    throw err;
  } finally {
    setHeapPoll(previousPoll);
  }

  async function runToEnd(workload: Workload): Promise<{ sim: Simulator; result: RunResult }> {
  let stop = await sim.run(limits(msToUs(scenario.durationMs)));
  if (stop !== "livelock" && stop !== "predicate" && scenario.convergence !== false) {
    // Convergence: every fault ends, then at least the budget passes after the last one.
    endAllFaults(sim);
    const budgetUs = msToUs(scenario.convergence?.budgetMs ?? DEFAULT_CONVERGENCE_BUDGET_MS);
    if (lastFaultUs !== undefined && lastFaultUs + budgetUs > sim.nowUs) stop = await sim.run(limits(lastFaultUs + budgetUs));
  }
  if (stop === "predicate" && guard?.trippedAtBytes !== undefined) throw new HeapTripped();
  if (stop === "livelock") {
    report(
      "kernel.time-progress",
      `virtual time stopped at ${sim.nowUs / 1000} ms: ${MAX_EVENTS_PER_INSTANT} events in a row at that instant without time advancing (a livelock of zero-delay work); the run was cut there`,
    );
  }
  await workload.finish?.();
  const last = sim.trace.last;
  const end = last.index < 0 ? undefined : stop === "quiescent" ? { index: last.index, atUs: last.atUs, quiescent: true } : last;
  checking.flush();
  const found = [...reported, ...checkers.flatMap((c) => c.finish(end))];
  const violations = [...found, ...missingFlaws(scenario, options, found, end)];
  const unknown = checkers.flatMap((c) => c.unknowns?.() ?? []);
  const counts = sim.trace.kindCounts();
  const result: RunResult = {
    scenario: scenario.name,
    seed,
    traceHash: sim.trace.hash(),
    events: sim.trace.count,
    virtualMs: sim.nowUs / 1000,
    verdict: runVerdict(scenario, options, violations),
    violations,
    unknown,
    judged: judgedSummary(checkers, counts, unknown, sim.nowUs / 1000),
    narrative: workload.narrative?.() ?? [],
    counts,
    ...(coverage !== undefined ? { coverage: coverage.reached() } : {}),
    ...(tape !== undefined ? { decisions: tape.report() } : {}),
  };
  return { sim, result };
  }
}

/** Thrown by the heap poll inside an event: the guard tripped; runScenario reports it. */
class HeapTripped extends Error {}

/** The guard's one line: the heap, where the run was, what holds the most, and how to replay it. */
function heapLimitError(scenario: Scenario, seed: number, sim: Simulator, checkers: readonly Checker[], guard: HeapGuard): HeapLimitError {
  // Counting walks the checkers' collections with a set of what it saw: on a small heap it must
  // fit in the tenth of the old generation the guard left free (at most ~64 bytes a visit).
  const visits = Math.min(5_000_000, Math.max(10_000, Math.floor((oldGenerationLimitBytes() - guard.limitBytes) / 64)));
  const holders = checkers
    .map((c) => ({ name: c.name, items: itemsHeld(c, visits) }))
    .filter((h) => h.items > 0)
    .sort((a, b) => b.items - a.items)
    .slice(0, 3);
  if (sim.trace.retain) holders.unshift({ name: "the retained trace", items: sim.trace.events.length });
  const grew = holders.length === 0 ? "no checker holds anything (the simulated system itself grew)" : `largest holders: ${holders.map((h) => `${h.name} (${h.items} items)`).join(", ")}`;
  return new HeapLimitError(
    `run stopped: the heap reached ${formatBytes(guard.trippedAtBytes!)} (limit ${formatBytes(guard.limitBytes)}) at virtual ${(sim.nowUs / 1e6).toFixed(1)} s ` +
      `after ${sim.trace.count} events; ${grew}; scenario ${scenario.name}, seed ${seed}; replay: zksim run ${scenario.name} --seed ${seed}; ` +
      `to finish it, give node a larger heap (NODE_OPTIONS=--max-old-space-size=MB, now ${Math.round(oldGenerationLimitBytes() / (1 << 20))}) or run a smaller scenario (shorter, with fewer clients or a smaller workload)`,
  );
}
