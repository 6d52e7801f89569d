/**
 * recipe-barrier (and its naive twin): rounds of a simple barrier through the fault window. c1
 * raises round k's barrier, holds it up for a while and lowers it; the other clients wait at it
 * until it is down, round after round (a waiter whose session expires waits again with a new
 * session). Nobody passes a raised barrier before it is lowered (`recipe.barrier`); the naive
 * twin's waiters poll with exists instead of watching (`recipe.barrier-polling`).
 */
import { Barrier, type BarrierVariant } from "../../recipes/barrier.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, joinWorkers, settle, withSessions, paced } from "./recipe-support.js";

export const BARRIER_PATH = "/app/barrier";
const HOLD_MS = 1500;
const BETWEEN_ROUNDS_MS = 500;
/** How often a waiter looks (world state, not ZooKeeper) whether the next round is up. */
const NEXT_ROUND_CHECK_MS = 50;

/** How often the naive polling waiters check the barrier. */
const POLL_MS = 50;

const roundPath = (round: number) => `${BARRIER_PATH}/round-${round}`;

/** The controller's progress, which the waiters follow: rounds raised so far, and whether it is done. */
interface Rounds {
  raised: number;
  done: boolean;
}

/** Raises, holds and lowers round after round while the fault window lasts (at least once). */
async function controller(s: ScriptContext, node: string, rounds: Rounds): Promise<void> {
  let round = 0;
  let up = false;
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    for (;;) {
      const b = new Barrier(zk, host, roundPath(round));
      if (!up) {
        await b.raise();
        up = true;
        rounds.raised = round + 1;
      }
      await host.sleepMs(paced(s, HOLD_MS));
      await b.lower();
      up = false;
      round++;
      if (!inFaultWindow(s)) return;
      await host.sleepMs(paced(s, BETWEEN_ROUNDS_MS));
    }
  });
  rounds.done = true;
}

/** Waits at each round's barrier once it is raised, until the controller is done. */
async function waiter(s: ScriptContext, node: string, rounds: Rounds, variant: BarrierVariant): Promise<void> {
  let round = 0;
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    for (;;) {
      while (rounds.raised <= round && !rounds.done) await host.sleepMs(NEXT_ROUND_CHECK_MS);
      if (rounds.raised <= round) return;
      await new Barrier(zk, host, roundPath(round), variant).waitUntilDown();
      round++;
    }
  });
}

function barrierScript(name: string, variant: BarrierVariant, description: string): ScriptDef {
  return {
    name,
    description,
    recipeCheckers: ["recipe.barrier", "recipe.barrier-polling"],
    clientRange: [2, 8],
    workloadKnobs: ["pacePercent"],
    async run(s) {
      await settle(s);
      const [c1, ...waiters] = s.clients as [string, ...string[]];
      const rounds: Rounds = { raised: 0, done: false };
      const workers: Record<string, Promise<void>> = { [c1]: controller(s, c1, rounds) };
      for (const w of waiters) workers[w] = waiter(s, w, rounds, variant);
      await joinWorkers(s, workers, 120_000);
      s.note(`simple barrier: ${rounds.raised} rounds, every waiter passed each after it was lowered${variant.kind === "poll" ? ` (polling every ${variant.pollMs} ms)` : ""}`);
    },
  };
}

export const recipeBarrier = barrierScript("recipe-barrier", { kind: "watch" }, "rounds of a simple barrier through faults: nobody passes a raised barrier before it is lowered");
export const recipeBarrierNaivePoll = barrierScript(
  "recipe-barrier-naive-poll",
  { kind: "poll", pollMs: POLL_MS },
  "naive barrier: the waiters poll with exists instead of watching (correct, but it loads the servers)",
);
