/** The 2PC/3PC checkers by name (registered in src/scenario/builtins.ts). */
import type { Checker } from "../checker.js";
import { CommitAtomicityChecker } from "./commit-atomicity.js";
import { CommitBlockingChecker } from "./commit-blocking.js";
import { CommitDurabilityChecker } from "./commit-durability.js";
import { CommitValidityChecker } from "./commit-validity.js";

export const COMMIT_CHECKERS: readonly [string, () => Checker][] = [
  ["commit.atomicity", () => new CommitAtomicityChecker()],
  ["commit.validity", () => new CommitValidityChecker()],
  ["commit.durability", () => new CommitDurabilityChecker()],
  ["commit.blocking", () => new CommitBlockingChecker()],
];

export const COMMIT_CHECKER_NAMES: readonly string[] = COMMIT_CHECKERS.map(([name]) => name);
