/**
 * recipe-rw-lock: four clients take a shared lock through the fault window — c1 and c2 mostly
 * read, c3 and c4 mostly write — holding it for a while each time. Readers share; a writer is
 * alone (checker `recipe.rwlock`).
 */
import { ReadWriteLock, type LockMode } from "../../recipes/rw-lock.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, joinWorkers, settle, withSessions, clientWorkers, paced, startOffsetMs, startDelay } from "./recipe-support.js";

export const RW_LOCK_DIR = "/app/rwlock";

async function worker(s: ScriptContext, node: string, index: number): Promise<void> {
  let round = 0;
  const offsetMs = startOffsetMs(s, index, 0);
  if (offsetMs > 0) await startDelay(s, node, offsetMs);
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const lock = new ReadWriteLock(zk, host, RW_LOCK_DIR);
    while (round === 0 || inFaultWindow(s)) {
      const mode: LockMode = (index < 2) === (round % 4 !== 3) ? "read" : "write";
      const release = await lock.acquire(mode);
      await host.sleepMs(paced(s, mode === "read" ? 400 : 200));
      await release();
      round++;
      await host.sleepMs(paced(s, 100 + 47 * index));
    }
  });
}

export const recipeRwLock: ScriptDef = {
  name: "recipe-rw-lock",
  description: "shared lock without herd effect: readers share, a writer is alone, through faults",
  recipeCheckers: ["recipe.rwlock"],
  clientRange: [2, 8],
  workloadKnobs: ["pacePercent", "startOffsetsMs"],
  async run(s) {
    await settle(s);
    await joinWorkers(s, clientWorkers(s, (c, i) => worker(s, c, i)), 120_000);
  },
};
