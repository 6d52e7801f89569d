/**
 * The recipe checkers, by name. Each reads `recipe.*` annotations (the recipes' own history of
 * what they did at their boundaries) and session facts from the trace, never a recipe object.
 */
import type { Checker } from "../checker.js";
import { ElectionChecker } from "./election.js";
import { CounterChecker } from "./counter.js";
import { QueueChecker } from "./queue.js";
import { PriorityOrderChecker } from "./priority-queue.js";
import { BarrierChecker, BarrierPollingChecker } from "./barrier.js";
import { ConfigChecker, GroupAnnouncedChecker, GroupChecker, NamingChecker } from "./services.js";

export { GroupAnnouncedChecker };
import { TwoPhaseCommitChecker } from "./two-phase-commit.js";
import { ReadWriteLockChecker } from "./rw-lock.js";
import { RevocationChecker } from "./revocation.js";
import { LockFencingChecker, LockHerdChecker, LockMutexChecker } from "./lock.js";

export const RECIPE_CHECKERS: ReadonlyMap<string, () => Checker> = new Map<string, () => Checker>([
  ["recipe.lock-mutex", () => new LockMutexChecker()],
  ["recipe.lock-herd", () => new LockHerdChecker()],
  ["recipe.lock-fencing", () => new LockFencingChecker()],
  ["recipe.election", () => new ElectionChecker()],
  ["recipe.counter", () => new CounterChecker()],
  ["recipe.queue", () => new QueueChecker()],
  ["recipe.priority-queue", () => new PriorityOrderChecker()],
  ["recipe.barrier", () => new BarrierChecker()],
  ["recipe.barrier-polling", () => new BarrierPollingChecker()],
  ["recipe.group", () => new GroupChecker()],
  ["recipe.config", () => new ConfigChecker()],
  ["recipe.naming", () => new NamingChecker()],
  ["recipe.2pc", () => new TwoPhaseCommitChecker()],
  ["recipe.rwlock", () => new ReadWriteLockChecker()],
  ["recipe.revocation", () => new RevocationChecker()],
]);
