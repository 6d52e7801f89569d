/**
 * recipe-revocable-lock (and its naive twin): four clients take a revocable shared lock through
 * the fault window — c1 and c2 mostly read, c3 and c4 mostly write. A reader keeps its read
 * lock until it is asked to give it up or READ_HOLD_CAP_MS has passed; a writer asks the
 * readers ahead of it to give up. The readers share, a writer is alone (`recipe.rwlock`), and
 * every request is honoured in time and lets the writer through (`recipe.revocation`). The
 * naive variant's holders see the request and ignore it: they keep the lock for the whole cap.
 */
import { RevocableReadWriteLock, type RevocableLockVariant } from "../../recipes/revocable-lock.js";
import type { LockMode } from "../../recipes/rw-lock.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, joinWorkers, settle, withSessions, clientWorkers, paced, startOffsetMs, startDelay } from "./recipe-support.js";

export const REVOCABLE_LOCK_DIR = "/app/revocable";
/** A reader nobody asks to give up lets go after this long (well past the honour bound). */
const READ_HOLD_CAP_MS = 2500;
const WRITE_HOLD_MS = 200;

async function worker(s: ScriptContext, node: string, index: number, variant: RevocableLockVariant): Promise<void> {
  let round = 0;
  const offsetMs = startOffsetMs(s, index, 0);
  if (offsetMs > 0) await startDelay(s, node, offsetMs);
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const lock = new RevocableReadWriteLock(zk, host, REVOCABLE_LOCK_DIR, variant);
    while (round === 0 || inFaultWindow(s)) {
      const mode: LockMode = (index < 2) === (round % 4 !== 3) ? "read" : "write";
      const hold = await lock.acquire(mode);
      if (mode === "read") await Promise.race([hold.revoked, host.sleepMs(READ_HOLD_CAP_MS)]);
      else await host.sleepMs(paced(s, WRITE_HOLD_MS));
      await hold.release();
      round++;
      await host.sleepMs(paced(s, 100 + 47 * index));
    }
  });
}

function revocableScript(name: string, variant: RevocableLockVariant, description: string): ScriptDef {
  return {
    name,
    description,
    recipeCheckers: ["recipe.rwlock", "recipe.revocation"],
    clientRange: [2, 8],
    workloadKnobs: ["pacePercent", "startOffsetsMs"],
    async run(s) {
      await settle(s);
      await joinWorkers(s, clientWorkers(s, (c, i) => worker(s, c, i, variant)), 120_000);
      s.note(`${variant} revocable lock: every worker finished its rounds`);
    },
  };
}

export const recipeRevocableLock = revocableScript("recipe-revocable-lock", "honour", "revocable shared lock: a writer asks the readers ahead of it to give up, and they do");
export const recipeRevocableLockNaive = revocableScript("recipe-revocable-lock-naive", "ignore-revocation", "naive revocable lock: holders see the revocation request and ignore it");
