/**
 * Benchmarks (`zksim bench <suite>`). Each figure is one JSON line
 * `{"bench", "metric", "value", "unit"}`. Speed targets are checked here, never by timed
 * assertions in tests.
 *
 * kernel: a datagram storm among 5 nodes with tracing and hashing on (every send and delivery
 * is a hashed trace event), against a bare binary-heap push/pop loop of the same population.
 */
import { performance } from "node:perf_hooks";
import { Simulator } from "../sim/simulator.js";
import { EventQueue } from "../sim/event-queue.js";
import type { NodeContext, Process } from "../sim/node-context.js";
import { UserInputError } from "../sim/errors.js";
import { parseScenario } from "../scenario/parse.js";
import { runScenario } from "../scenario/run.js";
import type { Scenario } from "../scenario/types.js";
import { workloadDef } from "../scenario/registry.js";
import { loadScenario } from "./scenario-files.js";
import { checkLinearizable, zkModel } from "../check/linearizability/index.js";
import { benchmarkLinearizability } from "./bench-history.js";
import { exploreInProcess } from "./explore/explore.js";
import { protocolsBench } from "./bench-protocols.js";
import { soakBench } from "./bench-soak.js";
import { profileSeeds, type SeedProfile } from "./bench-profile.js";
import { checkModelBench } from "./bench-check-model.js";

export interface Figure {
  bench: string;
  metric: string;
  value: number;
  unit: string;
}

export const BENCH_SUITES = ["kernel", "zk", "ensemble", "check", "check-model", "recipes", "tui", "protocols", "soak", "serve"] as const;

export async function runBench(suite: string, targets?: readonly string[]): Promise<Figure[]> {
  switch (suite) {
    case "kernel":
      return kernelBench();
    case "zk":
      return zkBench();
    case "ensemble":
      return ensembleBench();
    case "check":
      return checkBench();
    case "check-model":
      return checkModelBench(targets);
    case "recipes":
      return recipesBench();
    case "tui":
      return (await import("../tui/bench.js")).tuiBench();
    case "protocols":
      return protocolsBench();
    case "soak":
      return soakBench();
    case "serve":
      return (await import("./bench-serve.js")).serveBench();
    case "all":
      return [...kernelBench(), ...(await zkBench()), ...(await ensembleBench()), ...(await checkBench()), ...(await recipesBench()), ...(await protocolsBench())];
    default:
      throw new UserInputError(`bench: unknown suite "${suite}" (known: ${BENCH_SUITES.join(", ")}, all)`);
  }
}

const STORM_NODES = 5;
const IN_FLIGHT_PER_NODE = 200;

class StormNode implements Process {
  delivered = 0;
  constructor(
    private readonly ctx: NodeContext,
    private readonly peers: string[],
  ) {
    for (let i = 0; i < IN_FLIGHT_PER_NODE; i++) ctx.send(ctx.rng.pick(peers), i);
  }
  onDatagram(_from: string, payload: unknown): void {
    this.delivered++;
    this.ctx.send(this.ctx.rng.pick(this.peers), payload);
  }
}

function messageStorm(messages: number): { delivered: number; seconds: number; hash: string } {
  const sim = new Simulator({ seed: 1 });
  const ids = Array.from({ length: STORM_NODES }, (_, i) => `n${i + 1}`);
  const nodes: StormNode[] = [];
  for (const id of ids) {
    sim.addNode(id, (ctx) => {
      const n = new StormNode(ctx, ids.filter((p) => p !== id));
      nodes.push(n);
      return n;
    });
  }
  for (const id of ids) sim.start(id);
  const t0 = performance.now();
  sim.runSync({ maxEvents: messages });
  const seconds = (performance.now() - t0) / 1000;
  const delivered = nodes.reduce((t, n) => t + n.delivered, 0);
  return { delivered, seconds, hash: sim.trace.hash() };
}

function rawHeap(ops: number): number {
  const q = new EventQueue<object>();
  const item = {};
  const population = STORM_NODES * IN_FLIGHT_PER_NODE;
  const delays = new Float64Array(4096);
  for (let i = 0; i < delays.length; i++) delays[i] = 500 + ((i * 7919) % 1001);
  for (let i = 0; i < population; i++) q.push(delays[i % delays.length]!, item);
  const t0 = performance.now();
  let now = 0;
  for (let i = 0; i < ops; i++) {
    now = q.peekTime();
    q.pop();
    q.push(now + delays[i & 4095]!, item);
  }
  return (performance.now() - t0) / 1000;
}

/** The middle of three measurements, ordered by `by`: steadier than one on a noisy host. */
function medianOf3<T>(xs: readonly T[], by: (x: T) => number): T {
  return [...xs].sort((a, b) => by(a) - by(b))[1]!;
}

function kernelBench(): Figure[] {
  messageStorm(200_000); // warm-up (JIT)
  rawHeap(200_000);
  // Three storms and three heap loops, interleaved so the ratio compares like with like on a
  // noisy host; each figure is the median.
  const heapOps = 3_000_000;
  const rates: { messages: number; heap: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const storm = messageStorm(3_000_000);
    rates.push({ messages: storm.delivered / storm.seconds, heap: heapOps / rawHeap(heapOps) });
  }
  const messagesPerSec = Math.round(medianOf3(rates, (r) => r.messages).messages);
  const heapOpsPerSec = Math.round(medianOf3(rates, (r) => r.heap).heap);
  return [
    { bench: "kernel", metric: "messages_per_sec", value: messagesPerSec, unit: "delivered messages/s (tracing + hashing on)" },
    { bench: "kernel", metric: "raw_heap_ops_per_sec", value: heapOpsPerSec, unit: "push+pop pairs/s" },
    { bench: "kernel", metric: "heap_to_messages_ratio", value: Math.round((heapOpsPerSec / messagesPerSec) * 100) / 100, unit: "x (target ≤ 5)" },
  ];
}

/**
 * zk: one standalone server and 10 clients running the bench's client load (`clientLoad`: the
 * zk workload and traffic.ts's op loop).
 *
 * The headline figure is steady state: the median of three 20-virtual-second runs after the JIT
 * has warmed up (a sweep of thousands of seeds runs warm). The first run in a fresh process is
 * reported too, as `client_ops_per_sec_cold`.
 */
/** Virtual time of one measured client-load run: long enough (about a wall second) to time steadily. */
const BENCH_VIRTUAL_MS = 20_000;

async function zkBench(): Promise<Figure[]> {
  const r = await clientLoad(1, BENCH_VIRTUAL_MS);
  return [
    { bench: "zk", metric: "client_ops_per_sec", value: r.opsPerSec, unit: "simulated client ops completed per wall second, warm (target ≥ 100000)" },
    { bench: "zk", metric: "client_ops_per_sec_cold", value: r.coldOpsPerSec, unit: "the same, the suite's first run (JIT cold when the suite runs alone)" },
    { bench: "zk", metric: "client_ops_total", value: r.ops, unit: `ops in ${BENCH_VIRTUAL_MS / 1000} virtual seconds` },
    { bench: "zk", metric: "events_per_sec", value: r.eventsPerSec, unit: "kernel events per wall second, warm" },
  ];
}

/**
 * ensemble: 3 voters and 10 clients spread over them, the same client load (steady state, as
 * for zk); and how much virtual time per wall second the book's leader-crash scenario runs at.
 */
async function ensembleBench(): Promise<Figure[]> {
  const r = await clientLoad(3, BENCH_VIRTUAL_MS);
  const scenario = loadScenario("zab-leader-crash-before-commit");
  await runScenario(scenario, { seed: 1 }); // warm-up (JIT)
  const t0 = performance.now();
  const run = await runScenario(scenario, { seed: 1 });
  const wallSeconds = (performance.now() - t0) / 1000;
  return [
    { bench: "ensemble", metric: "client_ops_per_sec", value: r.opsPerSec, unit: "simulated client ops per wall second, 3 voters, warm (target ≥ 50000)" },
    { bench: "ensemble", metric: "client_ops_per_sec_cold", value: r.coldOpsPerSec, unit: "the same, the suite's first run (JIT cold when the suite runs alone)" },
    { bench: "ensemble", metric: "client_ops_total", value: r.ops, unit: `ops in ${BENCH_VIRTUAL_MS / 1000} virtual seconds` },
    { bench: "ensemble", metric: "virtual_to_wall_ratio", value: Math.round(run.virtualMs / 1000 / wallSeconds), unit: "virtual seconds per wall second (zab-leader-crash-before-commit)" },
  ];
}

/** explore_seeds_per_sec's swarm and seeds (1–20); `runOneSeed` runs each with coverage, as the profile does. */
const EXPLORE_BENCH_SCENARIO = "zab-random-faults";
const EXPLORE_BENCH_SEEDS = 20;
const EXPLORE_RUN_OPTIONS = { coverage: true } as const;

/**
 * check: the linearizability checker on the 10,000-op benchmark history (10 clients, 5%
 * indeterminate ops), and how many seeds per second `zksim explore` gets through in-process on
 * one core on the swarm scenario `zab-random-faults` (every checker on, no trace retention; the
 * CLI's worker threads multiply it by the cores).
 */
async function checkBench(): Promise<Figure[]> {
  const history = benchmarkLinearizability(10_000, 0.05);
  checkLinearizable(benchmarkLinearizability(1_000, 0.05), zkModel()); // warm-up (JIT)
  const t0 = performance.now();
  const verdict = checkLinearizable(history, zkModel());
  const checkMs = performance.now() - t0;
  if (!verdict.ok) throw new Error("bench check: the benchmark history should be linearizable");
  const scenario = loadScenario(EXPLORE_BENCH_SCENARIO);
  const seeds = Array.from({ length: EXPLORE_BENCH_SEEDS }, (_, i) => i + 1);
  await exploreInProcess(scenario, seeds.slice(0, 5), {}); // warm-up
  const t1 = performance.now();
  await exploreInProcess(scenario, seeds, {});
  const seedsPerSec = seeds.length / ((performance.now() - t1) / 1000);
  return [
    { bench: "check", metric: "linearizability_10k_ms", value: Math.round(checkMs), unit: "ms to check a 10,000-op history (5% indeterminate)" },
    { bench: "check", metric: "explore_seeds_per_sec", value: Math.round(seedsPerSec * 10) / 10, unit: "seeds/s in-process on one core (zab-random-faults, seeds 1-20, every checker on)" },
  ];
}

/**
 * The client load of `zk` and `ensemble`: the zk workload (workloads/zk.ts) with `servers`
 * servers (1 = standalone) and 10 clients running the bench-traffic script (traffic.ts's op
 * loop, closed: each client sends its next op as soon as the last one completes) over 20 keys, with the
 * whole pipeline on (Jute encoding, fsync group commit at 1 ms, trace hashing) and no checker.
 * The mix: 60% getData, 25% setData, 10% getChildren, 2.5% create, 2.5% delete (a create or
 * delete that finds its key taken or gone still completes an op).
 *
 * Each run lets the servers elect and the clients connect for `LOAD_WARM_UP_MS` of virtual time,
 * then times `virtualMs` more; ops are the `client.complete` trace events in that window. A
 * violation the workload reports (the root never created) fails the bench.
 */
const LOAD_WARM_UP_MS = 3000;
const LOAD_MIX = { getData: 24, setData: 10, getChildren: 4, create: 1, delete: 1, multi: 0, ephemeral: 0 };

function clientLoadScenario(servers: number, virtualMs: number): Scenario {
  const untilMs = LOAD_WARM_UP_MS + virtualMs;
  const traffic = { keys: 20, opGapMsMax: 0, sessionTimeoutMs: 10_000, mix: LOAD_MIX, untilMs };
  return parseScenario(
    {
      name: `bench-load-${servers}`,
      durationMs: untilMs,
      convergence: false,
      checkers: [],
      disk: { fsyncLatencyMs: 1 },
      workload: { kind: "zk", script: "bench-traffic", servers, clients: 10, tickTimeMs: 2000, traffic },
    },
    "bench",
  );
}

async function clientLoad(servers: number, virtualMs: number) {
  const scenario = clientLoadScenario(servers, virtualMs);
  const run = async () => {
    const sim = new Simulator({ seed: 1, network: scenario.network });
    const problems: string[] = [];
    const workload = workloadDef(scenario.workload.kind).create({ sim, scenario, params: scenario.workload.params, report: (checker, message) => problems.push(`[${checker}] ${message}`) });
    workload.setup();
    let ops = 0;
    sim.trace.subscribe(
      () => ops++,
      ["client.complete"],
    );
    const startUs = LOAD_WARM_UP_MS * 1000;
    await sim.run({ untilUs: startUs });
    const opsBefore = ops;
    const eventsBefore = sim.eventCount;
    const t0 = performance.now();
    await sim.run({ untilUs: startUs + virtualMs * 1000 });
    const seconds = (performance.now() - t0) / 1000;
    if (problems.length > 0) throw new Error(`bench: the client load failed: ${problems.join("; ")}`);
    return { ops: ops - opsBefore, seconds, events: sim.eventCount - eventsBefore };
  };
  const cold = await run();
  // Warm the JIT, then take the median of three runs.
  for (let i = 0; i < 3; i++) await run();
  const warm = medianOf3([await run(), await run(), await run()], (r) => r.seconds);
  return {
    ops: warm.ops,
    opsPerSec: Math.round(warm.ops / warm.seconds),
    eventsPerSec: Math.round(warm.events / warm.seconds),
    coldOpsPerSec: Math.round(cold.ops / cold.seconds),
  };
}

/**
 * `bench recipes --profile`: the JIT warmed over the same seeds as `recipesBench`, then
 * `seeds` seeds of recipe-lock-bench under V8's sampling profiler (bench-profile.ts).
 * `checkers` false (`--no-check`): the scenario without its checkers, warm-up included — the
 * simulation's own cost, as `seeds_per_sec_without_checkers` runs it.
 */
export async function profileRecipes(seeds: number, top: number, checkers = true): Promise<SeedProfile> {
  const loaded = loadScenario("recipe-lock-bench");
  const scenario = checkers ? loaded : { ...loaded, checkers: [] };
  for (let seed = 1; seed <= RECIPES_WARM_UP_SEEDS; seed++) await runScenario(scenario, { seed });
  return profileSeeds(scenario, RECIPES_WARM_UP_SEEDS + 1, seeds, top);
}

/**
 * `bench check --profile`: explore's part of the check suite under the profiler — the swarm
 * `zab-random-faults` run as explore runs a seed (every checker on, coverage recorded), seeds
 * 1–`seeds` after one pass over the bench's seeds 1–20 to warm the JIT. Shows how a swarm seed
 * splits between the simulation and each checker; `checkers` false profiles the simulation alone.
 */
export async function profileExplore(seeds: number, top: number, checkers = true): Promise<SeedProfile> {
  const loaded = loadScenario(EXPLORE_BENCH_SCENARIO);
  const scenario = checkers ? loaded : { ...loaded, checkers: [] };
  for (let seed = 1; seed <= EXPLORE_BENCH_SEEDS; seed++) await runScenario(scenario, { seed, ...EXPLORE_RUN_OPTIONS });
  return profileSeeds(scenario, 1, seeds, top, EXPLORE_RUN_OPTIONS);
}

/** Seeds run before the warm batches: where the JIT has mostly settled (see recipesBench). */
const RECIPES_WARM_UP_SEEDS = 200;

/** Seeds run before the steady batches: where V8's compiler threads have gone quiet (see recipesBench). */
const RECIPES_STEADY_SEEDS = 1200;

/**
 * recipes: `seeds_per_sec` for recipe-lock in the issue's shape — 3 servers, 5 clients, 30
 * virtual seconds with faults (scenario `recipe-lock-bench`: the lock script in its short timing,
 * a partition, a pause past the session timeout, a server crash, a lost create reply), with
 * the scenario's default checkers (kernel, ZAB, client history, and the lock's recipe
 * checkers), one seed after another in-process.
 *
 * The headline figure is warm: the JIT keeps optimizing newly hot functions for a long time
 * (about 9 optimizations a seed over seeds 1–50, 2.6 over seeds 51–100, under 0.7 from seed 200
 * on: `--trace-opt`), so it is taken after 200 seeds: the median of three batches of 20. The
 * first 10 seeds of a fresh process are reported too, as `seeds_per_sec_cold`.
 *
 * Few as they are, the optimizations after seed 200 are of large functions: V8's compiler
 * threads still spend ~5 ms of CPU a seed over seeds 201–300, ~1.5 by seed 600 and under 1 from
 * about seed 1,200 on, where a seed without checkers leaves them ~0.5 (docs/benchmarks.md,
 * "session 44"). So the run goes on to seed `RECIPES_STEADY_SEEDS` and times the warm batches'
 * seeds again, with and without checkers (the same seeds: a seed's cost varies more from seed to
 * seed than the JIT's settling does): `seeds_per_cpu_sec_steady` and
 * `checker_share_percent_steady`, what a long sweep pays a seed once the JIT has settled.
 *
 * "Per core": the warm batches are also timed in CPU time of the whole process (the main
 * thread plus V8's compiler and GC threads), which is what a seed costs a core when every core
 * runs a sweep worker: `seeds_per_cpu_sec`.
 */
async function recipesBench(): Promise<Figure[]> {
  const scenario = loadScenario("recipe-lock-bench");
  const p = scenario.workload.params;
  let seed = 0;
  let failed = 0;
  // `counted`: the seeds are the run's own (their failures counted, the next batch goes on after them).
  const batch = async (n: number, run: Scenario = scenario, from = seed + 1, counted = true): Promise<{ wall: number; cpu: number }> => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let s = from; s < from + n; s++) if ((await runScenario(run, { seed: s })).verdict === "fail" && counted) failed++;
    const cpu = process.cpuUsage(cpu0);
    if (counted) seed = from + n - 1;
    return { wall: n / ((performance.now() - t0) / 1000), cpu: n / ((cpu.user + cpu.system) / 1e6) };
  };
  const cold = (await batch(10)).wall;
  await batch(RECIPES_WARM_UP_SEEDS - 10);
  const firstWarm = seed + 1;
  // The warm batches: three of 20 seeds from `firstWarm`, with `run`'s checkers (or none).
  const warmSeeds = async (run: Scenario, counted: boolean) => [await batch(20, run, firstWarm, counted), await batch(20, run, firstWarm + 20, counted), await batch(20, run, firstWarm + 40, counted)];
  const warmBatches = await warmSeeds(scenario, true);
  const warm = medianOf3(warmBatches, (b) => b.wall).wall;
  const warmCpu = medianOf3(warmBatches, (b) => b.cpu).cpu;
  // The same seeds without checkers (warm by now): how the time splits between the simulation
  // and the checkers. Failures are not judged here (no checker runs).
  const simulationOnly = { ...scenario, checkers: [] };
  const simulationBatches = await warmSeeds(simulationOnly, false);
  const simulation = medianOf3(simulationBatches, (b) => b.wall).wall;
  const simulationCpu = medianOf3(simulationBatches, (b) => b.cpu).cpu;
  // On to where the compiler threads have gone quiet; then the warm batches' seeds again, with
  // and without checkers (not counted: their failures were, the first time).
  await batch(RECIPES_STEADY_SEEDS - seed);
  const steadyCpu = medianOf3(await warmSeeds(scenario, false), (b) => b.cpu).cpu;
  const steadySimulationCpu = medianOf3(await warmSeeds(simulationOnly, false), (b) => b.cpu).cpu;
  const shape = `${String(p.servers)} servers, ${String(p.clients)} clients, ${scenario.durationMs / 1000} virtual s with faults, ${scenario.checkers.length} checkers`;
  const round = (x: number) => Math.round(x * 10) / 10;
  return [
    { bench: "recipes", metric: "seeds_per_sec", value: round(warm), unit: `seeds/s on one thread, warm (recipe-lock-bench: ${shape}; target ≥ 100)` },
    { bench: "recipes", metric: "seeds_per_cpu_sec", value: round(warmCpu), unit: "the same batches per CPU-second of the whole process (main thread, JIT compiler and GC threads): the cost on one core" },
    { bench: "recipes", metric: "seeds_per_sec_cold", value: round(cold), unit: "the same, the first 10 seeds of the process (JIT cold)" },
    { bench: "recipes", metric: "seeds_per_sec_without_checkers", value: round(simulation), unit: "the warm batches' seeds with no checker: the simulation and the trace hash alone" },
    { bench: "recipes", metric: "seeds_per_cpu_sec_without_checkers", value: round(simulationCpu), unit: "the same, per CPU-second: the ceiling of seeds_per_cpu_sec however cheap the checkers" },
    { bench: "recipes", metric: "checker_share_percent", value: round(100 * Math.max(0, 1 - warmCpu / simulationCpu)), unit: "of a warm seed's CPU time spent in the checkers (1 - seeds_per_cpu_sec / seeds_per_cpu_sec_without_checkers; target ≤ 40)" },
    { bench: "recipes", metric: "seeds_per_cpu_sec_steady", value: round(steadyCpu), unit: `the warm batches' seeds again after ${RECIPES_STEADY_SEEDS} seeds, once V8's compiler threads have gone quiet, per CPU-second: what a long sweep pays` },
    { bench: "recipes", metric: "checker_share_percent_steady", value: round(100 * Math.max(0, 1 - steadyCpu / steadySimulationCpu)), unit: "checker_share_percent for the same steady batches (against their seeds with no checker)" },
    { bench: "recipes", metric: "failed_seeds", value: failed, unit: `of ${seed} (must be 0)` },
  ];
}
