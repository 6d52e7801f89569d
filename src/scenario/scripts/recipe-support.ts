/**
 * Helpers for the recipe scenario scripts: the client node a recipe runs on, connecting a
 * handle without turning a slow connect into a failed expectation (faults may be under way),
 * running application workers that rebuild their handle after session expiry, and waiting for
 * workers with a budget. Recipe scripts hold no faults of their own unless their story needs a
 * precisely timed one; the scenario's fault schedule (or a property test's) supplies the rest.
 */
import type { NodeContext } from "../../sim/node-context.js";
import type { ZooKeeper } from "../../zk/client/index.js";
import { createClient } from "../../zk/client/index.js";
import { CLIENT_PORT } from "../../zk/proto/wire.js";
import { applyFault, type FaultAction } from "../../sim/faults.js";
import { UserInputError } from "../../sim/errors.js";
import { SessionLostError, type RecipeHost } from "../../recipes/recipe-support.js";
import type { AnnotationKind, TraceAnnotations } from "../../sim/trace-schema.js";
import type { ClientInvokeFields } from "../../zk/trace-events.js";
import type { ScriptContext } from "./script.js";
import type { LatchVariant } from "../../recipes/leader-election.js";
import type { LockVariant } from "../../recipes/lock.js";
import { EnsembleView } from "./ensemble.js";

/** Session timeout of the recipes' handles (tickTime 1000 ms: the server allows 2–20 s). */
export const RECIPE_SESSION_TIMEOUT_MS = 4000;
/** A long-lived handle, like a separate storage connection, that outlives short faults. */
export const STORAGE_SESSION_TIMEOUT_MS = 20_000;

export function hostOf(s: ScriptContext, node: string): NodeContext {
  const ctx = s.sim.node(node).context;
  if (ctx === undefined) throw new Error(`client node ${node} is down`);
  return ctx;
}

/** The latch a run's canary asks for: `stays-leader` under `latch-stays-leader`, `no-suspend` under `latch-ignores-disconnect`, else the careful one. */
export const latchVariantOf = (s: ScriptContext): LatchVariant => (s.canary === "latch-stays-leader" ? "stays-leader" : s.canary === "latch-ignores-disconnect" ? "no-suspend" : "careful");

/**
 * The recipe host a run's canary asks for: under `group-unannounced` the group recipe's
 * annotations are dropped, under `barrier-entry-unannounced` the double barrier's `entered`,
 * under `counter-unknown-unannounced` the counter's increments of unknown outcome (the
 * recipe's history loses them; what it does is unchanged); else `host` itself.
 */
export function recipeHostOf(s: ScriptContext, host: RecipeHost): RecipeHost {
  const drops: ((kind: AnnotationKind, fields: unknown) => boolean) | undefined =
    s.canary === "group-unannounced" ? (kind) => kind === "recipe.group"
    : s.canary === "barrier-entry-unannounced" ? (kind, fields) => kind === "recipe.barrier" && (fields as TraceAnnotations["recipe.barrier"]).event === "entered"
    : s.canary === "counter-unknown-unannounced" ? (kind, fields) => kind === "recipe.counter" && (fields as TraceAnnotations["recipe.counter"]).outcome === "unknown"
    : undefined;
  if (drops === undefined) return host;
  return {
    id: host.id,
    annotate<K extends AnnotationKind>(kind: K, fields: TraceAnnotations[K]): void {
      if (!drops(kind, fields)) host.annotate(kind, fields);
    },
    nowMs: () => host.nowMs(),
    sleepMs: (ms) => host.sleepMs(ms),
    deferred: () => host.deferred(),
  };
}

/** The lock a run's canary asks for (`trusts-expired` under `lock-trusts-expired`), else `variant`. */
export const lockVariantOf = (s: ScriptContext, variant: LockVariant = "herd-free"): LockVariant => (s.canary === "lock-trusts-expired" ? "trusts-expired" : variant);

/** A new handle on `node`, once connected; throws if it cannot connect within the budget. */
export async function connectClient(s: ScriptContext, node: string, sessionTimeoutMs = RECIPE_SESSION_TIMEOUT_MS, budgetMs = 120_000): Promise<ZooKeeper> {
  const host = hostOf(s, node);
  const connectString = s.servers.map((id) => `${id}:${CLIENT_PORT}`).join(",");
  // A world-level caller (a script starting a worker) may find the node paused: a paused
  // process does nothing, so start once it runs (node-local timers wait for the resume).
  await host.sleepMs(0);
  for (;;) {
    const zk = createClient(host, { connectString, sessionTimeoutMs, ...s.clientDefaults });
    const deadlineUs = s.sim.nowUs + budgetMs * 1000;
    while (zk.getState() !== "CONNECTED" && zk.getState() !== "CLOSED" && s.sim.nowUs < deadlineUs) await host.sleepMs(20);
    if (zk.getState() === "CONNECTED") return zk;
    await zk.close();
    if (s.sim.nowUs >= deadlineUs) throw new Error(`${node} could not connect within ${budgetMs} ms`);
  }
}

/**
 * Runs `body` with a fresh handle on `node`'s current process (`host`); when the session is
 * lost (SessionLostError) it closes the dead handle, makes a new one and calls `body` again —
 * the application's job, per "resilient applications". `body` keeps its own progress so a retry
 * resumes where it stopped.
 *
 * A crash of the client node (a generated `crash-client`) ends the process and its handle with
 * it: nothing of the old incarnation acts again (its timers never fire), its session is
 * abandoned, not closed, and expires on the servers. Once the node is started again, `body`
 * runs anew in the new process with a new session, as a restarted application resumes from the
 * progress it kept (the script's variables stand for what it kept on its own disk).
 */
export async function withSessions(s: ScriptContext, node: string, sessionTimeoutMs: number, body: (zk: ZooKeeper, host: NodeContext) => Promise<void>): Promise<void> {
  for (;;) {
    const host = await liveHost(s, node);
    const crash = crashOf(s, host);
    const zk = await Promise.race([connectClient(s, node, sessionTimeoutMs), crash.promise.then(() => undefined)]);
    if (zk === undefined) {
      s.note(`${node}: crashed while connecting; its next process starts over`);
      continue;
    }
    try {
      const ended = await Promise.race([body(zk, host).then(() => "done" as const), crash.promise.then(() => "crashed" as const)]);
      if (ended === "crashed") {
        s.note(`${node}: crashed; its session is abandoned, its next process starts a new one`);
        continue;
      }
      crash.stop();
      await zk.close();
      return;
    } catch (err) {
      crash.stop();
      if (!(err instanceof SessionLostError)) throw err;
      s.note(`${node}: ${err.message}`);
      await zk.close();
    }
  }
}

/**
 * A worker's delay before its first round, `ms` of `node`'s local time; a crash of the node
 * meanwhile ends the delay once the node runs again (its new process starts at once).
 */
export async function startDelay(s: ScriptContext, node: string, ms: number): Promise<void> {
  const host = await liveHost(s, node);
  const crash = crashOf(s, host);
  await Promise.race([host.sleepMs(ms), crash.promise]);
  crash.stop();
  await liveHost(s, node);
}

/** The node's current process, once it runs (a crashed client node is started again by its fault's undo). */
async function liveHost(s: ScriptContext, node: string): Promise<NodeContext> {
  for (;;) {
    const ctx = s.sim.node(node).context;
    if (ctx?.alive === true) return ctx;
    await s.sleepMs(50);
  }
}

/** Settles when `host`'s incarnation crashes (never, if it does not); `stop` ends the watch. */
function crashOf(s: ScriptContext, host: NodeContext): { promise: Promise<void>; stop: () => void } {
  const crashed = s.sim.deferred<void>();
  // Subscribed while `host` runs: the node's next crash is this incarnation's.
  const stop = s.sim.trace.subscribe(
    (e) => {
      if (e.node !== host.id) return;
      stop();
      crashed.resolve();
    },
    ["crash"],
  );
  return { promise: crashed.promise, stop };
}

/**
 * Arms the run's generated create-loss traps, then waits for the ensemble (if any) to serve
 * before the story starts. Every recipe script begins with it.
 */
export async function settle(s: ScriptContext): Promise<void> {
  armCreateLossTraps(s);
  if (s.servers.length > 1) await new EnsembleView(s.sim, s).settled(60_000);
}

/**
 * Waits for every worker, returning as the last one ends (no polling: a run spends most of its
 * virtual time here); a worker still running after `budgetMs` is a failed expectation.
 */
export async function joinWorkers(s: ScriptContext, workers: Record<string, Promise<void>>, budgetMs: number): Promise<void> {
  const done = new Set<string>();
  const failures: string[] = [];
  const ended = Object.entries(workers).map(([name, p]) =>
    p.then(
      () => void done.add(name),
      (err: unknown) => {
        done.add(name);
        failures.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      },
    ),
  );
  const names = Object.keys(workers);
  const finished = await Promise.race([Promise.all(ended).then(() => true), s.sleepMs(budgetMs).then(() => false)]);
  if (!finished) s.expect(false, `timed out after ${budgetMs} ms waiting for: workers ${names.filter((n) => !done.has(n)).join(", ")} finish`);
  for (const f of failures) s.expect(false, `worker failed: ${f}`);
}

/**
 * Arms a one-shot fault that fires at the virtual instant a client invokes an op matching
 * `match` (right after the request is queued, before any reply can arrive) — to make a
 * CONNECTIONLOSS hit exactly that request.
 */
export function onInvoke(s: ScriptContext, match: (fields: ClientInvokeFields, node: string) => boolean, fault: FaultAction, then?: () => void): void {
  let armed = true;
  const unsubscribe = s.sim.trace.subscribe(
    (e) => {
      if (!armed || !match(e.fields, e.node)) return;
      armed = false;
      s.sim.schedule(s.sim.nowUs, () => {
        applyFault(s.sim, fault);
        unsubscribe();
        then?.();
      });
    },
    ["client.invoke"],
  );
}

/** How long a reply cut (`cutRepliesOnInvoke`) lasts in the scripted stories: past the client's read timeout, within its session timeout. */
export const REPLY_CUT_MS = 3500;

/**
 * When `client` invokes an op whose fields `match`, cuts the servers' replies to it for `forMs`
 * (or, given `{ untilMs }`, until that virtual time, and not at all once it has passed): the
 * request gets through, the client hears nothing, and CONNECTIONLOSS follows. One-shot;
 * `note` narrates it when it fires.
 */
export function cutRepliesOnInvoke(s: ScriptContext, client: string, match: (fields: ClientInvokeFields) => boolean, length: number | { untilMs: number }, note: string | ((forMs: number) => string)): void {
  const links = { from: [...s.servers], to: [client], oneWay: true };
  const forMs = () => (typeof length === "number" ? length : length.untilMs - s.sim.nowUs / 1000);
  onInvoke(s, (f, node) => node === client && forMs() > 0 && match(f), { kind: "cut", ...links }, () => {
    const ms = forMs();
    s.note(typeof note === "string" ? note : note(ms));
    s.sim.schedule(s.sim.nowUs + ms * 1000, () => s.fault({ kind: "heal", ...links }));
  });
}

/** Starts `work` on every client node: the workers by node, for `joinWorkers`. */
export function clientWorkers(s: ScriptContext, work: (node: string, index: number) => Promise<void>): Record<string, Promise<void>> {
  const workers: Record<string, Promise<void>> = {};
  s.clients.forEach((c, i) => (workers[c] = work(c, i)));
  return workers;
}

/**
 * Recipe scenarios keep their faults (scheduled or generated) inside [faultWindowStartMs,
 * faultWindowEndMs] and heal everything by the end of it; workers go on with their rounds
 * through the window, and after checkPhaseAtMs the scripts run their heal-then-check phase
 * (a leader again, the queue drained, the counter read).
 *
 * Two timings, chosen by the workload parameter `recipeTiming`:
 * - `full` (the scenario files): 33 s of faults;
 * - `short` (the property tests, hundreds of runs): 11.5 s of faults with the same session
 *   timeout and tick, so a pause or a partition of a few seconds still expires a session, and
 *   a run of `durationMs` that leaves the liveness checkers their 20 s of quiet after the window.
 */
export interface RecipeTiming {
  faultWindowStartMs: number;
  faultWindowEndMs: number;
  checkPhaseAtMs: number;
  /** Rounds of the double barrier (every member must run the same number). */
  doubleBarrierRounds: number;
  /** A run long enough for the check phase and the liveness checkers' quiet period. */
  durationMs: number;
}

export const RECIPE_TIMINGS = {
  full: { faultWindowStartMs: 2_000, faultWindowEndMs: 35_000, checkPhaseAtMs: 40_000, doubleBarrierRounds: 8, durationMs: 60_000 },
  short: { faultWindowStartMs: 1_500, faultWindowEndMs: 13_000, checkPhaseAtMs: 16_000, doubleBarrierRounds: 3, durationMs: 40_000 },
} as const satisfies Record<string, RecipeTiming>;

export type RecipeTimingName = keyof typeof RECIPE_TIMINGS;

/**
 * A CONNECTIONLOSS in the middle of a write: from `atMs` on, the next request of kind `op`
 * (default `create`; any of `LOSS_TRAP_OPS`) that `node` sends reaches the servers, but their
 * replies to `node` are cut (one way) until `atMs + forMs`. The write lands and the client does
 * not know: the retry paths of a recipe (a vote's setData, a member's create, a multi) run.
 */
export interface CreateLossTrap {
  node: string;
  atMs: number;
  forMs: number;
  op?: LossTrapOp;
  /** Only a request at this path or below it (a multi names no path: never matched then). */
  path?: string;
}

/** The writes a loss trap may aim at. */
export const LOSS_TRAP_OPS = ["create", "setData", "delete", "multi"] as const;
export type LossTrapOp = (typeof LOSS_TRAP_OPS)[number];

/**
 * The shape of a recipe workload beyond its story, which property tests generate (a scenario
 * file may set it too, as the workload parameter `recipeWorkload`):
 * - `pacePercent`: scales every worker's hold and think times (100: the script's own pace;
 *   50: twice as fast, so more contention; 200: half as fast);
 * - `startOffsetsMs`: per worker in client order, the delay before its first round (a worker
 *   past the list's end keeps the script's own stagger);
 * - `priorities`: the priorities producers give their items, in turn (queues with priority).
 * The number of workers is the workload's `clients`, within the range the script accepts.
 */
export interface RecipeWorkload {
  pacePercent?: number;
  startOffsetsMs?: readonly number[];
  priorities?: readonly number[];
}

/** Workload parameters the recipe scripts read (see checkRecipeParams). */
export const RECIPE_PARAMS = ["recipeTiming", "createLossTraps", "recipeWorkload"];

/** Validates the recipe parameters eagerly (the zk workload calls it before anything runs). */
export function checkRecipeParams(params: Record<string, unknown>): void {
  const t = params.recipeTiming;
  if (t !== undefined && !(typeof t === "string" && t in RECIPE_TIMINGS)) throw new UserInputError(`workload.recipeTiming: expected one of ${Object.keys(RECIPE_TIMINGS).join(", ")}, got ${JSON.stringify(t)}`);
  createLossTrapsOf(params);
  recipeWorkloadOf(params);
}

const intsIn = (v: unknown, min: number, max: number): boolean => Array.isArray(v) && v.every((x) => Number.isInteger(x) && x >= min && x <= max);

/** Validated workloads by parameter object: scripts ask on every sleep. */
const workloads = new WeakMap<object, RecipeWorkload>();

function recipeWorkloadOf(params: Readonly<Record<string, unknown>>): RecipeWorkload {
  const known = workloads.get(params);
  if (known !== undefined) return known;
  const raw = params.recipeWorkload;
  if (raw === undefined) return {};
  const what = `workload.recipeWorkload: expected {"pacePercent": 10..1000, "startOffsetsMs": [0..60000, …], "priorities": [0..1000, …]} (each optional)`;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserInputError(`${what}, got ${JSON.stringify(raw)}`);
  const w = raw as Record<string, unknown>;
  for (const key of Object.keys(w)) if (!["pacePercent", "startOffsetsMs", "priorities"].includes(key)) throw new UserInputError(`${what}; unknown key ${JSON.stringify(key)}`);
  const pace = w.pacePercent;
  if (pace !== undefined && !(Number.isInteger(pace) && (pace as number) >= 10 && (pace as number) <= 1000)) throw new UserInputError(`${what}; pacePercent is ${JSON.stringify(pace)}`);
  if (w.startOffsetsMs !== undefined && !intsIn(w.startOffsetsMs, 0, 60_000)) throw new UserInputError(`${what}; startOffsetsMs is ${JSON.stringify(w.startOffsetsMs)}`);
  if (w.priorities !== undefined && !(intsIn(w.priorities, 0, 1000) && (w.priorities as unknown[]).length > 0)) throw new UserInputError(`${what}; priorities is ${JSON.stringify(w.priorities)}`);
  const out = w as RecipeWorkload;
  workloads.set(params, out);
  return out;
}

/** A worker's hold or think time `ms` of the script's own pace, scaled by the workload's `pacePercent`. */
export function paced(s: ScriptContext, ms: number): number {
  const pace = recipeWorkloadOf(s.params).pacePercent;
  return pace === undefined ? ms : Math.round((ms * pace) / 100);
}

/** Worker `index`'s delay before its first round: the workload's, else the script's own `ownMs`. */
export function startOffsetMs(s: ScriptContext, index: number, ownMs: number): number {
  return recipeWorkloadOf(s.params).startOffsetsMs?.[index] ?? ownMs;
}

/** The workload's item priorities, if it gives them. */
export function workloadPriorities(s: ScriptContext): readonly number[] | undefined {
  return recipeWorkloadOf(s.params).priorities;
}

export function timingOf(s: ScriptContext): RecipeTiming {
  return RECIPE_TIMINGS[(s.params.recipeTiming as RecipeTimingName | undefined) ?? "full"];
}

function createLossTrapsOf(params: Readonly<Record<string, unknown>>): CreateLossTrap[] {
  const raw = params.createLossTraps;
  if (raw === undefined) return [];
  const ok = (t: unknown): t is CreateLossTrap => {
    const r = t as Record<string, unknown>;
    return (
      typeof t === "object" &&
      t !== null &&
      typeof r.node === "string" &&
      Number.isInteger(r.atMs) &&
      Number.isInteger(r.forMs) &&
      (r.atMs as number) >= 0 &&
      (r.forMs as number) > 0 &&
      (r.op === undefined || (LOSS_TRAP_OPS as readonly unknown[]).includes(r.op)) &&
      (r.path === undefined || (typeof r.path === "string" && r.path.startsWith("/")))
    );
  };
  if (!Array.isArray(raw) || !raw.every(ok)) throw new UserInputError(`workload.createLossTraps: expected a list like [{"node": "c1", "atMs": 5000, "forMs": 3000, "op": "setData", "path": "/app"}] ("op" optional: one of ${LOSS_TRAP_OPS.join(", ")}, default create; "path" optional: an absolute path the request's path starts with)`);
  return raw;
}

/**
 * Arms the run's create-loss traps (each one-shot, from its time on). A trap's cut ends at
 * `atMs + forMs` however late its create comes (a trap whose create comes after that never
 * fires): generated plans keep every fault inside the fault window, and so must the traps.
 */
function armCreateLossTraps(s: ScriptContext): void {
  for (const trap of createLossTrapsOf(s.params)) {
    const op = trap.op ?? "create";
    const note = (forMs: number) => `${trap.node}'s ${op} reached the servers, but their replies are cut for ${Math.round(forMs)} ms: CONNECTIONLOSS is coming`;
    const at = trap.path;
    const matches = (f: ClientInvokeFields) => f.op === op && (at === undefined || ("path" in f && typeof f.path === "string" && f.path.startsWith(at)));
    s.sim.schedule(trap.atMs * 1000, () => cutRepliesOnInvoke(s, trap.node, matches, { untilMs: trap.atMs + trap.forMs }, note));
  }
}

/** A flag the script sets to stop long-running workers (watch loops, members). */
export interface StopFlag {
  value: boolean;
}

/** Resolves once `stop.value` is set (polled on the node's clock). */
export async function stopped(host: NodeContext, stop: StopFlag): Promise<void> {
  while (!stop.value) await host.sleepMs(100);
}

/** Runs a watch loop until `stop`; a loop that ends early (its session lost) ends the body with its error. */
export async function untilStopped(host: NodeContext, stop: StopFlag, loop: Promise<void>, halt: () => void): Promise<void> {
  const early = await Promise.race([loop.then(() => "ended"), stopped(host, stop).then(() => "stop")]);
  if (early === "stop") halt();
  await loop;
}

/** Sleeps (world time) until the check phase begins. */
export async function untilCheckPhase(s: ScriptContext): Promise<void> {
  const waitMs = timingOf(s).checkPhaseAtMs - s.sim.nowUs / 1000;
  if (waitMs > 0) await s.sleepMs(waitMs);
}

/** True while the fault window lasts: workers keep doing rounds. */
export function inFaultWindow(s: ScriptContext): boolean {
  return s.sim.nowUs < timingOf(s).faultWindowEndMs * 1000;
}
