/** The recipe scenario scripts (`recipe-*`), registered in index.ts as one list. */
import type { ScriptDef } from "./script.js";
import { recipeLock, recipeLockNaiveHerd, recipeLockNaiveRetry } from "./recipe-lock.js";
import { recipeLockPause, recipeLockPauseUnfenced } from "./recipe-lock-pause.js";
import { recipeElection } from "./recipe-election.js";
import { recipeCounter, recipeCounterNaive } from "./recipe-counter.js";
import { recipeQueue, recipeQueuePriority } from "./recipe-queue.js";
import { recipeBarrier } from "./recipe-barrier.js";
import { recipeServices } from "./recipe-services.js";
import { recipe2pc } from "./recipe-2pc.js";
import { recipeRwLock } from "./recipe-rw-lock.js";
import { recipeRevocableLock, recipeRevocableLockNaive } from "./recipe-revocable-lock.js";

export const RECIPE_SCRIPTS: readonly ScriptDef[] = [recipeLock, recipeLockNaiveHerd, recipeLockNaiveRetry, recipeLockPause, recipeLockPauseUnfenced, recipeElection, recipeCounter, recipeCounterNaive, recipeQueue, recipeQueuePriority, recipeBarrier, recipeServices, recipe2pc, recipeRwLock, recipeRevocableLock, recipeRevocableLockNaive];
