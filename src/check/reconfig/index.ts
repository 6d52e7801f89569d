/**
 * The dynamic-reconfiguration checkers (docs/zookeeper.md §7.10): joint quorums while a config
 * is pending, no removed leader still committing, convergence to the last committed config.
 * They read the `zab.config.*` annotations and share no code with the server.
 */
import type { Checker } from "../checker.js";
import { ConvergenceChecker } from "./convergence.js";
import { JointQuorumChecker } from "./joint-quorum.js";
import { RemovedLeaderChecker } from "./removed-leader.js";

export { ConvergenceChecker, JointQuorumChecker, RemovedLeaderChecker };

/** Name → factory of a fresh instance, in a fixed order. */
export const RECONFIG_CHECKERS: ReadonlyMap<string, () => Checker> = new Map<string, () => Checker>([
  ["reconfig.joint-quorum", () => new JointQuorumChecker()],
  ["reconfig.removed-leader", () => new RemovedLeaderChecker()],
  ["reconfig.convergence", () => new ConvergenceChecker()],
]);
