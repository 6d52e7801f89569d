/**
 * recipe-barrier: first a simple barrier (c1 raises it, the others wait, c1 lowers it), then
 * rounds of a double barrier of size 4 through the fault window: every client enters, computes,
 * and leaves; a client whose session expires rejoins the round with a new session. Every
 * worker must finish all rounds once the faults heal.
 */
import { Barrier, type BarrierVariant } from "../../recipes/barrier.js";
import { DoubleBarrier } from "../../recipes/double-barrier.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { RECIPE_SESSION_TIMEOUT_MS, timingOf, hostOf, joinWorkers, settle, withSessions, clientWorkers } from "./recipe-support.js";

export const BARRIER_PATH = "/app/barrier";
export const DOUBLE_BARRIER_DIR = "/app/double-barrier";
const COMPUTE_MS = 1500;

/** How often the naive polling waiters check the barrier. */
const POLL_MS = 50;

async function simplePhase(s: ScriptContext, variant: BarrierVariant): Promise<void> {
  const [controller, ...waiters] = s.clients;
  let raised = false;
  const workers: Record<string, Promise<void>> = {
    [controller!]: withSessions(s, controller!, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
      const b = new Barrier(zk, hostOf(s, controller!), BARRIER_PATH);
      await b.raise();
      raised = true;
      await hostOf(s, controller!).sleepMs(1500);
      await b.lower();
    }),
  };
  for (const w of waiters) {
    workers[w] = (async () => {
      while (!raised) await hostOf(s, w).sleepMs(20);
      await withSessions(s, w, RECIPE_SESSION_TIMEOUT_MS, (zk) => new Barrier(zk, hostOf(s, w), BARRIER_PATH, variant).waitUntilDown());
    })();
  }
  await joinWorkers(s, workers, 30_000);
}

async function doubleBarrierWorker(s: ScriptContext, node: string, index: number): Promise<void> {
  const host = hostOf(s, node);
  let round = 0;
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
    while (round < timingOf(s).doubleBarrierRounds) {
      const b = new DoubleBarrier(zk, host, `${DOUBLE_BARRIER_DIR}/round-${round}`, s.clients.length);
      await host.sleepMs(23 * index);
      await b.enter();
      await host.sleepMs(COMPUTE_MS + 97 * index);
      await b.leave();
      round++;
    }
  });
}

function barrierScript(name: string, variant: BarrierVariant, description: string): ScriptDef {
  return {
    name,
    description,
    recipeCheckers: ["recipe.barrier", "recipe.barrier-polling"],
    async run(s) {
      await settle(s);
      await simplePhase(s, variant);
      s.note(`simple barrier: every waiter passed after it was lowered${variant.kind === "poll" ? ` (polling every ${variant.pollMs} ms)` : ""}`);
      await joinWorkers(s, clientWorkers(s, (c, i) => doubleBarrierWorker(s, c, i)), 150_000);
      s.note(`double barrier: ${timingOf(s).doubleBarrierRounds} rounds done`);
    },
  };
}

export const recipeBarrier = barrierScript(
  "recipe-barrier",
  { kind: "watch" },
  "a simple barrier, then rounds of a double barrier: nobody computes before all have joined, nobody leaves before all are done",
);
export const recipeBarrierNaivePoll = barrierScript(
  "recipe-barrier-naive-poll",
  { kind: "poll", pollMs: POLL_MS },
  "naive barrier: the simple barrier's waiters poll with exists instead of watching (correct, but it loads the servers)",
);
