/**
 * The failover timings of `zksim serve`'s ensemble (src/zk/server/quorum/quorum-timing.ts), set
 * where ZooKeeper 3.8 reads them: Java system properties (`-Dzookeeper.leaderConnectDelayDuringRetryMs=50`
 * on the command line or in `SERVER_JVMFLAGS`/`JVMFLAGS`, or the key without `zookeeper.` in zoo.cfg,
 * which 3.8 turns into that property), and zoo.cfg's own `connectToLearnerMasterLimit`.
 * A value that is not a whole number in range is one line naming the property, exit 2.
 */
import { UserInputError } from "../sim/errors.js";
import { QUORUM_TIMING_MIN, type QuorumTiming } from "../zk/server/quorum/quorum-timing.js";

/** Each system property 3.8 reads a quorum timing from. */
const TIMING_PROPERTIES: ReadonlyMap<string, keyof QuorumTiming> = new Map([
  ["zookeeper.leaderConnectDelayDuringRetryMs", "leaderConnectDelayDuringRetryMs"],
  ["zookeeper.fastleader.minNotificationInterval", "minNotificationIntervalMs"],
  ["zookeeper.fastleader.maxNotificationInterval", "maxNotificationIntervalMs"],
  ["zookeeper.observer.election.DelayMs", "observerElectionDelayMs"],
  ["zookeeper.cnxTimeout", "cnxTimeoutMs"],
]);

/** Whether zoo.cfg's `key` is one of those properties (3.8 makes it `zookeeper.<key>`). */
export function isQuorumTimingZooCfgKey(key: string): boolean {
  return TIMING_PROPERTIES.has(`zookeeper.${key}`);
}

function timingValue(text: string, at: string, field: keyof QuorumTiming): number {
  const min = QUORUM_TIMING_MIN[field];
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > 10_000_000) throw new UserInputError(`${at}: expected a whole number of ${field.endsWith("Ticks") ? "ticks" : "ms"} in [${min}, 10000000], got "${text}"`);
  return Number(text);
}

/** The timings set by `props` (merged system properties) and zoo.cfg's `connectToLearnerMasterLimit`. */
export function quorumTimingFrom(props: ReadonlyMap<string, string>, connectToLearnerMasterLimit?: { value: string; at: string }): Partial<QuorumTiming> {
  const out: Partial<QuorumTiming> = {};
  for (const [property, field] of TIMING_PROPERTIES) {
    const value = props.get(property);
    if (value !== undefined) out[field] = timingValue(value, property, field);
  }
  if (connectToLearnerMasterLimit !== undefined) {
    out.connectToLearnerMasterLimitTicks = timingValue(connectToLearnerMasterLimit.value, `${connectToLearnerMasterLimit.at}: connectToLearnerMasterLimit`, "connectToLearnerMasterLimitTicks");
  }
  return out;
}
