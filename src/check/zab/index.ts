/**
 * The ZAB checkers: the invariants of the ZooKeeper TLA+ specifications (Zab.tla, ZkV3_7_0.tla
 * and the NJU multi-grained specs) checked online over the server's `zab.*` trace annotations,
 * plus liveness after the faults end. They share no code with the server.
 */
import type { Checker } from "../checker.js";
import { CommittedDurabilityChecker } from "./committed-durability.js";
import { DurableAckChecker } from "./durable-ack.js";
import { ElectionMostRecentChecker } from "./election-most-recent.js";
import { ElectionRoundChecker } from "./election-round.js";
import { FlagsChecker } from "./flags.js";
import { IdenticalTreesChecker } from "./identical-trees.js";
import { IntegrityChecker } from "./integrity.js";
import { LeadershipChecker } from "./leadership.js";
import { LivenessChecker } from "./liveness.js";
import { NewLeaderQuorumChecker } from "./newleader-quorum.js";
import { LearnerSyncChecker } from "./learner-sync.js";
import { PrefixConsistencyChecker } from "./prefix-consistency.js";
import { PrimaryIntegrityChecker } from "./primary-integrity.js";
import { SyncPacketChecker } from "./sync-packet.js";
import { ZxidUniquenessChecker } from "./zxid-uniqueness.js";

export { CommittedDurabilityChecker, DurableAckChecker, FlagsChecker, IdenticalTreesChecker, IntegrityChecker, LeadershipChecker, LivenessChecker, PrefixConsistencyChecker, PrimaryIntegrityChecker, ZxidUniquenessChecker };
export { ElectionMostRecentChecker, ElectionRoundChecker, LearnerSyncChecker, NewLeaderQuorumChecker, SyncPacketChecker };

export interface ZabCheckerOptions {
  /** Virtual milliseconds after the last fault within which a leader must serve (default 40 000). */
  livenessBudgetMs?: number;
}

/** Name → factory of a fresh instance, in a fixed order. */
export const ZAB_CHECKERS: ReadonlyMap<string, (options?: ZabCheckerOptions) => Checker> = new Map<string, (options?: ZabCheckerOptions) => Checker>([
  ["zab.leadership", () => new LeadershipChecker()],
  ["zab.zxid-uniqueness", () => new ZxidUniquenessChecker()],
  ["zab.integrity", () => new IntegrityChecker()],
  ["zab.prefix-consistency", () => new PrefixConsistencyChecker()],
  ["zab.committed-durability", () => new CommittedDurabilityChecker()],
  ["zab.primary-integrity", () => new PrimaryIntegrityChecker()],
  ["zab.identical-trees", () => new IdenticalTreesChecker()],
  ["zab.flags", () => new FlagsChecker()],
  ["zab.liveness", (options) => new LivenessChecker(options?.livenessBudgetMs)],
  ["zab.durable-ack", () => new DurableAckChecker()],
  ["zab.election-most-recent", () => new ElectionMostRecentChecker()],
  ["zab.election-round", () => new ElectionRoundChecker()],
  ["zab.newleader-quorum", () => new NewLeaderQuorumChecker()],
  ["zab.learner-sync", () => new LearnerSyncChecker()],
  ["zab.sync-packet", () => new SyncPacketChecker()],
]);

/** Fresh instances of every ZAB checker. */
export function zabCheckers(options: ZabCheckerOptions = {}): Checker[] {
  return [...ZAB_CHECKERS.values()].map((make) => make(options));
}
