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
import { SessionLostError } from "../../recipes/recipe-support.js";
import type { ScriptContext } from "./script.js";
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

/** A new handle on `node`, once connected; throws if it cannot connect within the budget. */
export async function connectClient(s: ScriptContext, node: string, sessionTimeoutMs = RECIPE_SESSION_TIMEOUT_MS, budgetMs = 120_000): Promise<ZooKeeper> {
  const host = hostOf(s, node);
  const connectString = s.servers.map((id) => `${id}:${CLIENT_PORT}`).join(",");
  for (;;) {
    const zk = createClient(host, { connectString, sessionTimeoutMs });
    const deadlineUs = s.sim.nowUs + budgetMs * 1000;
    while (zk.getState() !== "CONNECTED" && zk.getState() !== "CLOSED" && s.sim.nowUs < deadlineUs) await host.sleepMs(20);
    if (zk.getState() === "CONNECTED") return zk;
    await zk.close();
    if (s.sim.nowUs >= deadlineUs) throw new Error(`${node} could not connect within ${budgetMs} ms`);
  }
}

/**
 * Runs `body` with a fresh handle; when the session is lost (SessionLostError) it closes the
 * dead handle, makes a new one and calls `body` again — the application's job, per "resilient
 * applications". `body` keeps its own progress so a retry resumes where it stopped.
 */
export async function withSessions(s: ScriptContext, node: string, sessionTimeoutMs: number, body: (zk: ZooKeeper) => Promise<void>): Promise<void> {
  for (;;) {
    const zk = await connectClient(s, node, sessionTimeoutMs);
    try {
      await body(zk);
      await zk.close();
      return;
    } catch (err) {
      if (!(err instanceof SessionLostError)) throw err;
      s.note(`${node}: ${err.message}`);
      await zk.close();
    }
  }
}

/** Waits for the ensemble (if any) to serve before the story starts. */
export async function settle(s: ScriptContext): Promise<void> {
  if (s.servers.length > 1) await new EnsembleView(s.sim, s).settled(60_000);
}

/** Waits for every worker; a worker still running after `budgetMs` is a failed expectation. */
export async function joinWorkers(s: ScriptContext, workers: Record<string, Promise<void>>, budgetMs: number): Promise<void> {
  const done = new Set<string>();
  const failures: string[] = [];
  for (const [name, p] of Object.entries(workers)) {
    p.then(
      () => done.add(name),
      (err: unknown) => {
        done.add(name);
        failures.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
  }
  const names = Object.keys(workers);
  await s.waitFor(() => done.size === names.length, budgetMs, `workers ${names.filter((n) => !done.has(n)).join(", ")} finish`);
  for (const f of failures) s.expect(false, `worker failed: ${f}`);
}

/**
 * Arms a one-shot fault that fires at the virtual instant a client invokes an op matching
 * `match` (right after the request is queued, before any reply can arrive) — to make a
 * CONNECTIONLOSS hit exactly that request.
 */
export function onInvoke(s: ScriptContext, match: (fields: Record<string, unknown>, node: string) => boolean, fault: FaultAction, then?: () => void): void {
  let armed = true;
  const unsubscribe = s.sim.trace.subscribe((e) => {
    if (!armed || e.kind !== "client.invoke" || e.fields === undefined || !match(e.fields, e.node)) return;
    armed = false;
    s.sim.schedule(s.sim.nowUs, () => {
      applyFault(s.sim, fault);
      unsubscribe();
      then?.();
    });
  });
}

/**
 * Recipe scenarios keep their faults (scheduled or generated) inside [FAULT_WINDOW_START_MS,
 * FAULT_WINDOW_END_MS] and heal everything by the end of it; after CHECK_PHASE_AT_MS the
 * scripts run their heal-then-check phase (a leader again, the queue drained, the counter read).
 */
export const FAULT_WINDOW_START_MS = 2_000;
export const FAULT_WINDOW_END_MS = 35_000;
export const CHECK_PHASE_AT_MS = 40_000;

/** Sleeps (world time) until the check phase begins. */
export async function untilCheckPhase(s: ScriptContext): Promise<void> {
  const waitMs = CHECK_PHASE_AT_MS - s.sim.nowUs / 1000;
  if (waitMs > 0) await s.sleepMs(waitMs);
}
