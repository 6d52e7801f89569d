/**
 * recipe-lock-pause: the lock does not protect against a paused holder, and the honest answer
 * is a fencing token. c1 takes the lock (token t1), checks it still holds it, and is paused
 * (a GC pause) just before writing to the storage. Its lock session expires; c2 takes the lock
 * (token t2 > t1) and writes. c1 resumes and — still believing, from its last check, that it
 * holds the lock — writes with t1 while c2 holds the lock. The storage sees t1 < t2 and refuses.
 * The unfenced twin writes without the check: the stale write lands, and the checker
 * `recipe.lock-fencing` reports it.
 *
 * c1 reaches the storage through its own long-lived handle (a separate connection with a 20 s
 * session): the lock's 4 s session dies during the 8 s pause, the storage connection does not.
 */
import { DistributedLock } from "../../recipes/lock.js";
import { FencedResource } from "../../recipes/fenced-resource.js";
import type { ScriptDef } from "./script.js";
import { RECIPE_SESSION_TIMEOUT_MS, STORAGE_SESSION_TIMEOUT_MS, connectClient, hostOf, settle, lockVariantOf } from "./recipe-support.js";
import { LOCK_DIR, LOCK_RESOURCE } from "./recipe-lock.js";

const PAUSE_MS = 8000;
/** What c1 does between its last check of the lock and its write (where the pause hits). */
const PREPARE_MS = 200;

function pauseScript(name: string, fenced: boolean): ScriptDef {
  return {
    name,
    description: fenced
      ? "a lock holder paused past its session timeout acts while another holds the lock; the fencing token makes the storage refuse it"
      : "the same pause without fencing: the stale holder's write is accepted over the new holder's",
    clientCrashes: false,
    noGenerate: "its story times one pause of c1 against c2's acquire and expects exactly that interleaving (c1 paused all along, c2 still holding when c1 acts); generated faults on c1 or c2 break the story, not the lock",
    recipeCheckers: ["recipe.lock-mutex", "recipe.lock-herd", "recipe.lock-fencing"],
    async run(s) {
      await settle(s);
      const h1 = hostOf(s, "c1");
      const h2 = hostOf(s, "c2");
      const lock1 = new DistributedLock(await connectClient(s, "c1", RECIPE_SESSION_TIMEOUT_MS), h1, LOCK_DIR, { variant: lockVariantOf(s) });
      const store1 = new FencedResource(await connectClient(s, "c1", STORAGE_SESSION_TIMEOUT_MS), h1, LOCK_RESOURCE);
      const zk2 = await connectClient(s, "c2", RECIPE_SESSION_TIMEOUT_MS);
      const store2 = new FencedResource(await connectClient(s, "c2", STORAGE_SESSION_TIMEOUT_MS), h2, LOCK_RESOURCE);
      await store1.init();

      const g1 = await lock1.acquire();
      s.expect(lock1.isHeld(), "c1 holds the lock after acquire");
      // c1's application: it checked the lock, prepares its write, then writes. The pause lands in between.
      const c1Write = (async () => {
        await h1.sleepMs(PREPARE_MS);
        return store1.write(g1.token, "c1's stale write", fenced);
      })();
      s.fault({ kind: "pause", node: "c1" });
      const pausedAtUs = s.sim.nowUs;
      s.note(`c1 holds the lock with token ${g1.token} and is paused for ${PAUSE_MS} ms before its write`);

      const lock2 = new DistributedLock(zk2, h2, LOCK_DIR, { variant: lockVariantOf(s) });
      const g2 = await lock2.acquire();
      s.note(`c1's session expired; c2 acquired the lock with token ${g2.token}`);
      s.expect(g2.token > g1.token, "the new holder's token is larger");
      s.expectEqual(await store2.write(g2.token, "c2's write", fenced), "accepted", "c2's write is accepted");

      await s.sleepMs(Math.max(0, PAUSE_MS - (s.sim.nowUs - pausedAtUs) / 1000));
      s.expect(s.sim.node("c1").status === "paused", "c1 was paused all along");
      s.fault({ kind: "resume", node: "c1" });
      s.note("c1 resumes, unaware, and writes with its old token while c2 holds the lock");
      s.expect(lock2.isHeld(), "c2 still holds the lock when c1 acts");
      const outcome = await c1Write;
      s.expectEqual(outcome, fenced ? "rejected" : "accepted", `c1's stale write is ${fenced ? "refused by the fencing check" : "accepted without fencing"}`);
      const stored = await store2.read();
      s.note(`the storage holds "${stored.value}" with token ${stored.token}`);
      if (fenced) s.expectEqual(stored.value, "c2's write", "the current holder's write survives");
      await s.waitFor(() => !lock1.isHeld(), 30_000, "c1 learns it lost the lock");
      await lock2.release();
      await lock1.release();
    },
  };
}

export const recipeLockPause = pauseScript("recipe-lock-pause", true);
export const recipeLockPauseUnfenced = pauseScript("recipe-lock-pause-unfenced", false);
