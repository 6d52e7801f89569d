/**
 * recipe-double-barrier: rounds of a double barrier of size 4 through the fault window: every
 * client enters, computes, and leaves. A client whose session expires while it waits to enter
 * rejoins the round with a new session; one whose session expires after it entered is done
 * with that round (its node went with the session: the others leave without it) and goes on
 * to the next. Nobody computes before all have joined, nobody leaves before all are done
 * (`recipe.barrier`), and every worker must finish all rounds once the faults heal. The naive
 * twin leaves at once, while the slower clients still compute.
 */
import { DoubleBarrier, type DoubleBarrierVariant } from "../../recipes/double-barrier.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { RECIPE_SESSION_TIMEOUT_MS, timingOf, joinWorkers, settle, withSessions, clientWorkers, paced, recipeHostOf } from "./recipe-support.js";

export const DOUBLE_BARRIER_DIR = "/app/double-barrier";
const COMPUTE_MS = 1500;

async function doubleBarrierWorker(s: ScriptContext, node: string, index: number, variant: DoubleBarrierVariant): Promise<void> {
  let round = 0;
  let entered = -1;
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    if (entered === round) round++; // the session died after we entered: that round went on without us
    while (round < timingOf(s).doubleBarrierRounds) {
      const b = new DoubleBarrier(zk, recipeHostOf(s, host), `${DOUBLE_BARRIER_DIR}/round-${round}`, s.clients.length, variant);
      await host.sleepMs(paced(s, 23 * index));
      await b.enter();
      entered = round;
      await host.sleepMs(paced(s, COMPUTE_MS + 97 * index));
      await b.leave();
      round++;
    }
  });
}

function doubleBarrierScript(name: string, variant: DoubleBarrierVariant, description: string): ScriptDef {
  return {
    name,
    description,
    recipeCheckers: ["recipe.barrier"],
    clientRange: [2, 8],
    workloadKnobs: ["pacePercent"],
    async run(s) {
      await settle(s);
      await joinWorkers(s, clientWorkers(s, (c, i) => doubleBarrierWorker(s, c, i, variant)), 150_000);
      s.note(`double barrier: ${timingOf(s).doubleBarrierRounds} rounds done`);
    },
  };
}

export const recipeDoubleBarrier = doubleBarrierScript(
  "recipe-double-barrier",
  "wait-all",
  "rounds of a double barrier through faults: nobody computes before all have joined, nobody leaves before all are done",
);
export const recipeDoubleBarrierNaive = doubleBarrierScript(
  "recipe-double-barrier-naive",
  "leave-at-once",
  "naive double barrier: a process leaves as soon as it is done, while others still compute",
);
