/**
 * Running a recipe scenario in tests with more recipe checkers than its defaults: adds the
 * wanted ones (every one, unless named) to the scenario's checker list, so a test judges a run
 * by checkers its script did not declare too. Also used by property tests, which swap in a
 * generated fault schedule.
 */
import fc from "fast-check";
import { RECIPE_CHECKERS } from "../../check/recipes/index.js";
import { STALL_MS } from "../../check/recipes/exclusive.js";
import { RECIPE_TIMINGS, type CreateLossTrap, type RecipeWorkload } from "./recipe-support.js";
import { scriptNamed } from "./index.js";
import { runScenario } from "../run.js";
import { timedWithUndo, type Fault, type FaultAction } from "../../sim/faults.js";
import { entry } from "../nemesis/draw.js";
import { UserInputError } from "../../sim/errors.js";
import type { RunOptions, RunResult, Scenario } from "../types.js";

export interface RecipeRunOptions extends RunOptions {
  /** Recipe checkers to add (default: every one; they ignore runs without their recipe). */
  recipeCheckers?: readonly string[];
  /** Replaces the scenario's fault schedule. */
  faults?: readonly Fault[];
}

export function withRecipeCheckers(scenario: Scenario, options: RecipeRunOptions = {}): Scenario {
  const wanted = options.recipeCheckers ?? [...RECIPE_CHECKERS.keys()];
  const checkers = [...scenario.checkers, ...wanted.filter((c) => !scenario.checkers.includes(c))];
  return { ...scenario, checkers, faults: options.faults !== undefined ? [...options.faults] : scenario.faults };
}

export async function runRecipeScenario(scenario: Scenario, options: RecipeRunOptions = {}): Promise<RunResult> {
  const { recipeCheckers, faults, ...run } = options;
  return runScenario(withRecipeCheckers(scenario, { ...(recipeCheckers !== undefined ? { recipeCheckers } : {}), ...(faults !== undefined ? { faults } : {}) }), run);
}

/** One generated disruption, undone after `forMs` (all within the recipe fault window). */
export type FaultPlan =
  | { kind: "crash-server"; node: string; atMs: number; forMs: number }
  | { kind: "isolate-server"; node: string; atMs: number; forMs: number }
  | { kind: "partition-client"; node: string; atMs: number; forMs: number; direction: "both" | "to-client" | "from-client" }
  | { kind: "pause-client"; node: string; atMs: number; forMs: number }
  | { kind: "create-loss"; node: string; atMs: number; forMs: number }
  | { kind: "crash-client"; node: string; atMs: number; forMs: number; afterRequest?: ClientRequest }
  | { kind: "crash-server-after"; node: string; atMs: number; forMs: number; message: ZabMessage; received: boolean }
  | { kind: "pause-server"; node: string; atMs: number; forMs: number }
  | { kind: "clock-skew"; node: string; atMs: number; forMs: number; rate: number }
  | { kind: "slow-fsync"; node: string; atMs: number; forMs: number; fsyncLatencyMs: number }
  | { kind: "disk-full"; node: string; atMs: number; forMs: number }
  | { kind: "clog"; node: string; atMs: number; forMs: number; extraDelayMs: number }
  | { kind: "loss"; node: string; atMs: number; forMs: number; rate: number };

/** The requests a client may crash right after sending (kernel `send` details). */
export const CLIENT_REQUESTS = ["create", "delete", "setData", "getData", "exists", "getChildren", "multi", "sync"] as const;
type ClientRequest = (typeof CLIENT_REQUESTS)[number];
/** The ZAB messages of a serving ensemble a server may crash right after sending or receiving. */
export const RECIPE_ZAB_MESSAGES = ["REQUEST", "PROPOSAL", "ACK", "COMMIT", "PING", "fle.notification", "FOLLOWERINFO", "NEWLEADER", "UPTODATE"] as const;
type ZabMessage = (typeof RECIPE_ZAB_MESSAGES)[number];

/**
 * The fault kinds of sim/faults.ts the recipe plans never draw, and why: the recipes' declaration
 * of the corner they leave alone (as `ZAB_SWARM_LEFT_OUT` is the ZooKeeper swarms').
 */
export const RECIPE_FAULTS_LEFT_OUT: readonly { fault: string; why: string }[] = [
  { fault: "duplicate", why: "a recipe's client and the servers talk over TCP connections, exactly-once while up: the kernel duplicates datagrams only, and ZooKeeper sends none" },
  { fault: "reorder", why: "TCP connections are FIFO: the kernel reorders datagrams only" },
  { fault: "delay", why: "a link's base delay is the scenario's setting; clog adds delay to a node's links during the window" },
  { fault: "partition", why: "isolate-server and partition-client are its cuts, aimed finer (a server from the others, a client from every server, one way or both)" },
  { fault: "restart", why: "a crash followed by a start after its down time is the same fault (crash-server, crash-client, crash-server-after)" },
];

/**
 * Small fault schedules for property tests, inside the short timing's fault window: up to
 * `maxFaults` of the whole vocabulary that makes sense for a recipe over an ensemble —
 * - servers: crash/restart (down 0.5–5 s); cut off from the other servers; a crash right after
 *   it sends or receives a ZAB message of a drawn kind (a REQUEST, a PROPOSAL, an ACK, a COMMIT, a
 *   PING, a vote, a sync packet), started again 0.2–5 s later; a pause of 1–8 s (past the
 *   recipes' 4 s session timeout: their sessions expire on the others); a full disk (it stops
 *   itself, freed and restarted) or slow fsyncs (20–1500 ms);
 * - clients: partitioned from every server (both ways, or one way only: its requests arrive but
 *   no reply does, or the reverse); paused; crashed (at once, or right after it sends a request
 *   of a drawn kind) and started again 0.2–8 s later — its session is abandoned, not closed, and
 *   the worker's next process starts a new one (`withSessions`); a CONNECTIONLOSS in the middle
 *   of its next create;
 * - any node: its clock run 1.2–4× fast or 2–8× slow; its links clogged (20–2000 ms extra) or
 *   lossy (1–40 %).
 * Partitions and pauses last up to 6–8 s, past the recipes' 4 s session timeout. What is left
 * out, and why: `RECIPE_FAULTS_LEFT_OUT`. A script that cannot survive its client's crash
 * (`ScriptDef.clientCrashes === false`) gets no client crashes (`clientCrashes` here).
 */
export function faultPlanArbitrary(servers: readonly string[], clients: readonly string[], maxFaults = 3, clientCrashes = true): fc.Arbitrary<FaultPlan[]> {
  const { faultWindowStartMs: start, faultWindowEndMs: end } = RECIPE_TIMINGS.short;
  const span = (minForMs: number, maxForMs: number) => ({ atMs: fc.integer({ min: start, max: end - maxForMs }), forMs: fc.integer({ min: minForMs, max: maxForMs }) });
  const server = fc.constantFrom(...servers);
  const client = fc.constantFrom(...clients);
  const anyNode = fc.constantFrom(...servers, ...clients);
  const kinds: fc.Arbitrary<FaultPlan>[] = [
    fc.record({ kind: fc.constant("crash-server" as const), node: server, ...span(500, 5000) }),
    fc.record({ kind: fc.constant("isolate-server" as const), node: server, ...span(500, 5000) }),
    fc.record({ kind: fc.constant("partition-client" as const), node: client, ...span(500, 6000), direction: fc.constantFrom("both" as const, "to-client" as const, "from-client" as const) }),
    fc.record({ kind: fc.constant("pause-client" as const), node: client, ...span(500, 6000) }),
    fc.record({ kind: fc.constant("create-loss" as const), node: client, ...span(1000, 5000) }),
    fc.record({ kind: fc.constant("pause-server" as const), node: server, ...span(1000, 8000) }),
    fc.record({ kind: fc.constant("clock-skew" as const), node: anyNode, ...span(1000, 8000), rate: fc.oneof(fc.integer({ min: 120, max: 400 }).map((r) => r / 100), fc.integer({ min: 2, max: 8 }).map((d) => 1 / d)) }),
    fc.record({ kind: fc.constant("slow-fsync" as const), node: server, ...span(500, 6000), fsyncLatencyMs: fc.integer({ min: 20, max: 1500 }) }),
    fc.record({ kind: fc.constant("disk-full" as const), node: server, ...span(500, 5000) }),
    fc.record({ kind: fc.constant("clog" as const), node: anyNode, ...span(500, 6000), extraDelayMs: fc.integer({ min: 20, max: 2000 }) }),
    fc.record({ kind: fc.constant("loss" as const), node: anyNode, ...span(500, 6000), rate: fc.integer({ min: 1, max: 40 }).map((r) => r / 100) }),
  ];
  if (servers.length > 1) kinds.push(fc.record({ kind: fc.constant("crash-server-after" as const), node: fc.constantFrom("$leader", ...servers), ...span(200, 5000), message: fc.constantFrom(...RECIPE_ZAB_MESSAGES), received: fc.boolean() }));
  if (clientCrashes) {
    kinds.push(
      fc.record(
        { kind: fc.constant("crash-client" as const), node: client, ...span(200, 8000), afterRequest: fc.constantFrom(...CLIENT_REQUESTS) },
        { requiredKeys: ["kind", "node", "atMs", "forMs"] },
      ),
    );
  }
  return fc.array(fc.oneof(...kinds), { minLength: 0, maxLength: maxFaults });
}

/** The other nodes of the plan's run (a node's link faults cut or slow it from these). */
const othersOf = (node: string, nodes: readonly string[]) => nodes.filter((n) => n !== node);

/** The fault a plan entry starts with (create-loss is a workload trap, a trace-aimed crash a `when` entry: none). */
function planAction(p: FaultPlan, servers: readonly string[], nodes: readonly string[]): FaultAction | undefined {
  switch (p.kind) {
    case "crash-server":
    case "crash-client":
      return { kind: "crash", node: p.node };
    case "pause-client":
    case "pause-server":
      return { kind: "pause", node: p.node };
    case "isolate-server":
      return { kind: "cut", from: [p.node], to: servers.filter((s) => s !== p.node) };
    case "partition-client":
      return p.direction === "to-client" ? { kind: "cut", from: [...servers], to: [p.node], oneWay: true } : { kind: "cut", from: [p.node], to: [...servers], oneWay: p.direction === "from-client" };
    case "clock-skew":
      return { kind: "clock", node: p.node, rate: p.rate };
    case "slow-fsync":
      return { kind: "disk", node: p.node, fault: "slow-fsync", fsyncLatencyMs: p.fsyncLatencyMs };
    case "disk-full":
      return { kind: "disk", node: p.node, fault: "full" };
    case "clog":
      return { kind: "clog", from: [p.node], to: othersOf(p.node, nodes), extraDelayMs: p.extraDelayMs };
    case "loss":
      return { kind: "loss", from: [p.node], to: othersOf(p.node, nodes), rate: p.rate };
    case "create-loss":
    case "crash-server-after":
      return undefined;
  }
}

/**
 * The trace-aimed crashes of a plan entry: a server right after it sends (or receives) its next
 * ZAB message of the drawn kind, a client right after it sends its next request of the drawn
 * kind — armed at `atMs`, abandoned if none comes before the window's end leaves room for the
 * down time, started again `forMs` after the crash.
 */
function aimedCrash(p: FaultPlan): Fault[] {
  const withinMs = RECIPE_TIMINGS.short.faultWindowEndMs - p.atMs - p.forMs;
  if (withinMs < 1) return [];
  if (p.kind === "crash-server-after") {
    const step = { after: p.received ? "deliver" : "send", detail: p.message, ...(p.node === "$leader" ? { node: "$leader" } : { node: p.node }), withinMs };
    return [entry({ kind: "crash", node: "$0" }, p.atMs, p.forMs, [step])];
  }
  if (p.kind === "crash-client" && p.afterRequest !== undefined) return [entry({ kind: "crash", node: "$0" }, p.atMs, p.forMs, [{ after: "send", node: p.node, detail: p.afterRequest, withinMs }])];
  return [];
}

/** The plan's faults (sorted by time; each disruption with its undo, `undoOf`, or its trace condition). */
export function faultsOf(plan: readonly FaultPlan[], servers: readonly string[], clients: readonly string[] = []): Fault[] {
  const nodes = [...servers, ...clients];
  return plan
    .flatMap((p) => {
      if (p.kind === "crash-server-after" || (p.kind === "crash-client" && p.afterRequest !== undefined)) return aimedCrash(p);
      const action = planAction(p, servers, nodes);
      return action === undefined ? [] : timedWithUndo(action, p.atMs, p.atMs + p.forMs);
    })
    .sort((a, b) => a.atMs - b.atMs);
}

/** A generated workload shape: how many client workers, and the script's workload knobs. */
export interface WorkloadPlan {
  clients: number;
  recipeWorkload: RecipeWorkload;
}

/** Most client workers a property run generates (more cost more per run, and find little new). */
const MAX_PROPERTY_CLIENTS = 5;

/**
 * Workload shapes for property tests: the number of clients within the range the scenario's
 * script accepts (at least two, for contention; at most five), and the knobs it reads — the
 * pace of its workers (40–250 % of the script's own hold and think times), each worker's start
 * offset (0–2 s), the producers' item priorities. A script that declares neither keeps the
 * scenario's own shape.
 */
export function workloadPlanArbitrary(scenario: Scenario): fc.Arbitrary<WorkloadPlan> {
  const script = scriptNamed(String(scenario.workload.params.script));
  const own = nodesOf(scenario).clients.length;
  const [min, max] = script.clientRange ?? [own, own];
  const lo = Math.min(Math.max(2, min), max);
  const hi = Math.max(lo, Math.min(MAX_PROPERTY_CLIENTS, max));
  const knobs = new Set(script.workloadKnobs ?? []);
  return fc.integer({ min: lo, max: hi }).chain((clients) =>
    fc
      .record({
        pacePercent: knobs.has("pacePercent") ? fc.integer({ min: 40, max: 250 }) : fc.constant(undefined),
        startOffsetsMs: knobs.has("startOffsetsMs") ? fc.array(fc.integer({ min: 0, max: 2000 }), { minLength: clients, maxLength: clients }) : fc.constant(undefined),
        priorities: knobs.has("priorities") ? fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 6 }) : fc.constant(undefined),
      })
      .map((w) => ({ clients, recipeWorkload: Object.fromEntries(Object.entries(w).filter(([, v]) => v !== undefined)) as RecipeWorkload })),
  );
}

/** A property run's generated inputs: the workload shape and the fault plan over its nodes. */
export interface RecipeRunPlan {
  workload: WorkloadPlan;
  faults: FaultPlan[];
}

export function recipeRunPlanArbitrary(scenario: Scenario, maxFaults = 3): fc.Arbitrary<RecipeRunPlan> {
  const { servers } = nodesOf(scenario);
  const clientCrashes = scriptNamed(String(scenario.workload.params.script)).clientCrashes !== false;
  return workloadPlanArbitrary(scenario).chain((workload) => faultPlanArbitrary(servers, clientNames(workload.clients), maxFaults, clientCrashes).map((faults) => ({ workload, faults })));
}

const clientNames = (n: number): string[] => Array.from({ length: n }, (_, i) => `c${i + 1}`);

/**
 * The scenario a property run executes: the short timing, the plan's faults instead of the
 * scenario's, its create-loss traps as a workload parameter, and the generated workload shape
 * (if any). A plain scenario (with `withRecipeCheckers`, what `runRecipeScenario` runs), so a
 * failing case saves as a replay file that `zksim replay` re-executes.
 */
export function propertyScenario(scenario: Scenario, plan: readonly FaultPlan[], servers: readonly string[], workload?: WorkloadPlan): Scenario {
  const traps: CreateLossTrap[] = plan.filter((p) => p.kind === "create-loss").map(({ node, atMs, forMs }) => ({ node, atMs, forMs }));
  const shape = workload === undefined ? {} : { clients: workload.clients, ...(Object.keys(workload.recipeWorkload).length > 0 ? { recipeWorkload: workload.recipeWorkload } : {}) };
  const script = scriptNamed(String(scenario.workload.params.script));
  return {
    ...scenario,
    durationMs: script.generatedDurationMs ?? RECIPE_TIMINGS.short.durationMs,
    workload: { ...scenario.workload, params: { ...scenario.workload.params, ...shape, recipeTiming: "short", createLossTraps: traps } },
    faults: faultsOf(plan, servers, workload !== undefined ? clientNames(workload.clients) : nodesOf(scenario).clients),
    // The recipe checkers' quiet period after the last fault fits in the run: no extension.
    convergence: { budgetMs: STALL_MS },
  };
}

/**
 * `--generate` (zksim run and explore): the recipe scenario as a property run with this seed
 * would run it — a workload shape and a fault plan drawn from the same generators as the
 * property tests, by fast-check's generator seeded with `seed` — so a sweep of seeds goes on
 * where the 200 runs of `npm test` stop. The result is a plain scenario (its faults listed), so
 * a failing seed saves as a replay file and shrinks like any other.
 */
export function generatedRecipeScenario(scenario: Scenario, seed: number): Scenario {
  assertRecipeScenario(scenario);
  const [plan] = fc.sample(recipeRunPlanArbitrary(scenario), { seed, numRuns: 1 });
  const { servers } = nodesOf(scenario);
  const generated = propertyScenario(scenario, plan!.faults, servers, plan!.workload);
  return { ...generated, description: `${scenario.description} (generated by --generate from seed ${seed})` };
}

/** `--generate` needs a recipe scenario: a UserInputError names one that runs no recipe script. */
export function assertRecipeScenario(scenario: Scenario): void {
  const script = scenario.workload.kind === "zk" ? scriptNamed(String(scenario.workload.params.script)) : undefined;
  if (script?.recipeCheckers === undefined) throw new UserInputError(`--generate: scenario "${scenario.name}" is not a recipe scenario (its workload runs no recipe script)`);
  if (script.noGenerate !== undefined) throw new UserInputError(`--generate: scenario "${scenario.name}" runs a timed story that takes no generated faults: ${script.noGenerate}`);
}

/** Server and client node names of a zk-workload scenario. */
export function nodesOf(scenario: Scenario): { servers: string[]; clients: string[] } {
  const p = scenario.workload.params;
  const servers = Array.from({ length: typeof p.servers === "number" ? p.servers : 1 }, (_, i) => `s${i + 1}`);
  return { servers, clients: clientNames(typeof p.clients === "number" ? p.clients : 2) };
}
