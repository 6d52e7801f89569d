/**
 * The timings of a failover, as ZooKeeper 3.8 sets them: how a LOOKING peer paces its election
 * (FastLeaderElection), how long an observer waits before it joins one, and how a learner
 * retries its connection to the elected leader (Learner.connectToLeader). Each field is one
 * setting of 3.8's, with 3.8's default (the simulated scenarios keep older defaults unless they
 * opt in: ZKSIM_CLASSIC_QUORUM_TIMING below):
 *
 * | field | 3.8 name (system property, or zoo.cfg key) | default |
 * |---|---|---|
 * | `leaderConnectDelayDuringRetryMs` | `zookeeper.leaderConnectDelayDuringRetryMs` | 100 ms |
 * | `connectToLearnerMasterLimitTicks` | zoo.cfg `connectToLearnerMasterLimit` (0: initLimit) | 0 |
 * | `minNotificationIntervalMs` | `zookeeper.fastleader.minNotificationInterval` | 200 ms (finalizeWait) |
 * | `maxNotificationIntervalMs` | `zookeeper.fastleader.maxNotificationInterval` | 60,000 ms |
 * | `observerElectionDelayMs` | `zookeeper.observer.election.DelayMs` | 200 ms |
 * | `cnxTimeoutMs` | `zookeeper.cnxTimeout` (election connections) | 5,000 ms |
 *
 * Four more fields are no setting of 3.8's but a cost of where it runs, 0 unless given (a scenario's
 * workload parameter, or serve's timing profile, src/serve/serve-timing.ts, which measured them):
 *
 * | field | what it is |
 * |---|---|
 * | `leaderStartupMs` | a new leader's start-up: 3.8 builds its LeaderZooKeeperServer and Leader (whose constructor binds the quorum port) after the election decides; until then a learner's connect is refused |
 * | `learnerStartupMs` | a new learner's start-up: 3.8 builds its Follower/ObserverZooKeeperServer and starts the LeaderConnector thread before its first connect |
 * | `learnerSyncMs` | a learner's work in `Learner.syncWithLeader` before its NEWLEADER ACK: the LearnerHandler serializing the DIFF/SNAP, the learner loading it, `zk.startupWithoutServing()` |
 * | `leaderServingStartupMs` | a new leader's `Leader.startZkServer` after its quorum of NEWLEADER ACKs: it serves (ZabState BROADCAST) and the LearnerHandlers send UPTODATE after it |
 *
 * FastLeaderElection's `finalizeWait` (200 ms) is a constant in 3.8, not a setting
 * (fast-leader-election.ts). A learner's connect: the leader may not listen yet when a follower
 * decides first, so the connect is refused; 3.8 retries after `leaderConnectDelayDuringRetryMs`,
 * at most 5 tries, all within `connectToLearnerMasterLimit` (or `initLimit`) ticks.
 */

export interface QuorumTiming {
  /** The pause after a refused or failed connect to the leader, before the next try. */
  leaderConnectDelayDuringRetryMs: number;
  /** The ticks a learner's connect tries may take in all; 0 = `initLimit`'s. */
  connectToLearnerMasterLimitTicks: number;
  /** The election's first notification timeout; it doubles on each timeout, up to the max. */
  minNotificationIntervalMs: number;
  maxNotificationIntervalMs: number;
  /** An observer whose leader is gone waits a random time below this before electing (0: none). */
  observerElectionDelayMs: number;
  /** Connect timeout of election connections (QuorumCnxManager). */
  cnxTimeoutMs: number;
  /** A new leader's work between the election's decision and listening on the quorum port (`Leader.lead` begins then). */
  leaderStartupMs: number;
  /** A new learner's work between the election's decision and its first connect to the leader. */
  learnerStartupMs: number;
  /** A learner's sync work before its NEWLEADER ACK (`Learner.syncWithLeader`). */
  learnerSyncMs: number;
  /** A new leader's work between its quorum of NEWLEADER ACKs and serving (`Leader.startZkServer`). */
  leaderServingStartupMs: number;
}

/** 3.8's defaults: `zksim serve` runs with these (docs/serve.md). */
export const ZOOKEEPER_38_QUORUM_TIMING: Readonly<QuorumTiming> = {
  leaderConnectDelayDuringRetryMs: 100,
  connectToLearnerMasterLimitTicks: 0,
  minNotificationIntervalMs: 200,
  maxNotificationIntervalMs: 60_000,
  observerElectionDelayMs: 200,
  cnxTimeoutMs: 5_000,
  leaderStartupMs: 0,
  learnerStartupMs: 0,
  learnerSyncMs: 0,
  leaderServingStartupMs: 0,
};

/**
 * The simulated scenarios' defaults, older than 3.8's and kept so that every existing seed runs
 * as it did (their trace hashes are pinned): a refused connect to the leader is retried after
 * 1,000 ms, each of the 5 tries gets the whole `initLimit` (the tries share no time limit, as in
 * ZooKeeper before 3.4.11), and an observer elects again at once. A scenario opts in to 3.8's
 * with the workload parameter `"quorumTiming": "zookeeper-3.8"` (scenario/workloads/zk.ts).
 */
export const ZKSIM_CLASSIC_QUORUM_TIMING: Readonly<QuorumTiming> = {
  ...ZOOKEEPER_38_QUORUM_TIMING,
  leaderConnectDelayDuringRetryMs: 1_000,
  observerElectionDelayMs: 0,
};

export const QUORUM_TIMING_PROFILES = ["zookeeper-3.8", "zksim-classic"] as const;
export type QuorumTimingProfile = (typeof QUORUM_TIMING_PROFILES)[number];

/** A quorum peer's timings: a profile's defaults, then the settings given. */
export interface QuorumTimingChoice {
  profile: QuorumTimingProfile;
  settings?: Partial<QuorumTiming>;
}

/** The timings a peer runs with; `connectTriesShareLimit` is 3.8's way (false in the classic profile). */
export interface ResolvedQuorumTiming extends QuorumTiming {
  connectTriesShareLimit: boolean;
}

export function resolveQuorumTiming(choice: QuorumTimingChoice): ResolvedQuorumTiming {
  const base = choice.profile === "zookeeper-3.8" ? ZOOKEEPER_38_QUORUM_TIMING : ZKSIM_CLASSIC_QUORUM_TIMING;
  return { ...base, ...choice.settings, connectTriesShareLimit: choice.profile === "zookeeper-3.8" };
}

/** The lowest value each setting takes (a notification interval of 0 would spin). */
export const QUORUM_TIMING_MIN: Readonly<QuorumTiming> = {
  leaderConnectDelayDuringRetryMs: 0,
  connectToLearnerMasterLimitTicks: 0,
  minNotificationIntervalMs: 1,
  maxNotificationIntervalMs: 1,
  observerElectionDelayMs: 0,
  cnxTimeoutMs: 1,
  leaderStartupMs: 0,
  learnerStartupMs: 0,
  learnerSyncMs: 0,
  leaderServingStartupMs: 0,
};

export const QUORUM_TIMING_FIELDS = Object.keys(ZOOKEEPER_38_QUORUM_TIMING) as readonly (keyof QuorumTiming)[];
