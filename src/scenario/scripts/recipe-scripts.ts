/** The recipe scenario scripts (`recipe-*`), registered in index.ts as one list. */
import type { ScriptDef } from "./script.js";
import { recipeLock, recipeLockNaiveHerd, recipeLockNaiveRetry } from "./recipe-lock.js";
import { recipeLockPause, recipeLockPauseUnfenced } from "./recipe-lock-pause.js";
import { recipeElection } from "./recipe-election.js";
import { recipeLeaderLatch } from "./recipe-leader-latch.js";
import { recipeCounter, recipeCounterNaive } from "./recipe-counter.js";
import { recipeQueue, recipeQueuePriority, recipeQueuePriorityNaive, recipeQueuePause } from "./recipe-queue.js";
import { recipeBarrier, recipeBarrierNaivePoll } from "./recipe-barrier.js";
import { recipeDoubleBarrier, recipeDoubleBarrierNaive } from "./recipe-double-barrier.js";
import { recipeServices } from "./recipe-services.js";
import { recipeConfig } from "./recipe-config.js";
import { recipeGroupMembership } from "./recipe-group-membership.js";
import { recipeNaming, recipeNamingNaive } from "./recipe-naming.js";
import { recipe2pc } from "./recipe-2pc.js";
import { recipeRwLock } from "./recipe-rw-lock.js";
import { recipeRevocableLock, recipeRevocableLockNaive } from "./recipe-revocable-lock.js";
import { recipeLatchExpiry, recipeLockExpiry } from "./recipe-expiry.js";
import { recipeAcl } from "./recipe-acl.js";

/**
 * The naive variants of a recipe script, by variant name (`zksim run recipe-lock --variant
 * naive`): the mistakes the recipes are written to avoid, each exposed by a checker or a
 * traffic metric. `naive` names a recipe's classic mistake; a recipe with more has them by name.
 */
export const RECIPE_VARIANTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "recipe-lock": { naive: "recipe-lock-naive-herd", "naive-herd": "recipe-lock-naive-herd", "naive-retry": "recipe-lock-naive-retry" },
  "recipe-lock-pause": { naive: "recipe-lock-pause-unfenced", unfenced: "recipe-lock-pause-unfenced" },
  "recipe-barrier": { naive: "recipe-barrier-naive-poll", "naive-poll": "recipe-barrier-naive-poll" },
  "recipe-double-barrier": { naive: "recipe-double-barrier-naive", "naive-leave": "recipe-double-barrier-naive" },
  "recipe-counter": { naive: "recipe-counter-naive" },
  "recipe-naming": { naive: "recipe-naming-naive", "naive-retry": "recipe-naming-naive" },
  "recipe-queue-priority": { naive: "recipe-queue-priority-naive", "naive-by-sequence": "recipe-queue-priority-naive" },
  "recipe-revocable-lock": { naive: "recipe-revocable-lock-naive" },
};

export const RECIPE_SCRIPTS: readonly ScriptDef[] = [recipeLock, recipeLockNaiveHerd, recipeLockNaiveRetry, recipeLockPause, recipeLockPauseUnfenced, recipeElection, recipeLeaderLatch, recipeCounter, recipeCounterNaive, recipeQueue, recipeQueuePriority, recipeQueuePriorityNaive, recipeBarrier, recipeBarrierNaivePoll, recipeDoubleBarrier, recipeDoubleBarrierNaive, recipeServices, recipeConfig, recipeGroupMembership, recipeNaming, recipeNamingNaive, recipe2pc, recipeRwLock, recipeRevocableLock, recipeRevocableLockNaive, recipeLatchExpiry, recipeLockExpiry, recipeQueuePause, recipeAcl];
