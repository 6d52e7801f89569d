/**
 * serve's timing profiles: how long a simulated hop and a simulated fsync take under
 * `zksim serve` (`--timing NAME`).
 *
 * - `loopback` (the default): a ZooKeeper ensemble whose members and clients all run on one
 *   machine, as the real ensemble `zksim bench serve` compares with does. Measured on the
 *   project's 2-core build machine: a small TCP message one way over 127.0.0.1 takes 20–60 µs
 *   (round trips of 40-byte messages: median 38–44 µs, p90 100–117 µs), and the real 3.8.0
 *   server's txn-log fsync of a preallocated file took a median of 0.12 ms on the quiet machine.
 * - `lan`: the simulator's own defaults (sim/network.ts, sim/disk.ts), a LAN's 0.5–1.5 ms a hop
 *   and a 2 ms fsync; what serve ran before it had profiles.
 *
 * Under `loopback` the real clients' links `cN ↔ sN` take no simulated time: a real client already
 * crossed a real loopback hop to reach serve, and a real ensemble has no second one (unless a
 * `--scenario` sets link delays, which then apply to them too). Under `lan` they take a LAN hop.
 *
 * Each profile also carries the costs of the deployment it stands for (the quorum timings
 * `leaderStartupMs`, `learnerStartupMs`, `learnerSyncMs` and `leaderServingStartupMs`,
 * src/zk/server/quorum/quorum-timing.ts): what a 3.8 member's JVM takes, after the election
 * decides, to build its server and bind the quorum port (a leader) or to make its first connect
 * to the leader (a learner), then a learner's sync work before its NEWLEADER ACK and the leader's
 * start of serving after its quorum of those ACKs. Measured for `loopback`
 * with scripts/measure-leader-startup.mjs (a real 3.8.0 ensemble on this machine logging at INFO;
 * the leader killed round after round, QuorumPeer's `LEADING`/`FOLLOWING` against Leader's
 * `LEADER ELECTION TOOK` and the learner's first connect), medians of 26 failovers (leader) and 12 (learner) under a load average of 13–20;
 * `lan` has none (no LAN deployment was measured). Every failover the bench makes is the new
 * leader's first leadership in its JVM (the crashed leader comes back as a fresh process), which
 * these figures are. `--leader-startup-ms`, `--learner-startup-ms`, `--learner-sync-ms`,
 * `--leader-serving-startup-ms` (or a scenario's workload fields of the same names) set them; the
 * settings served with are recorded.
 *
 * A `--scenario`'s own `network` and `disk` fields win over the profile's, field by field. The
 * recording keeps the resulting link and disk settings as the replay scenario's own (and
 * `instantGatewayLinks` in its serve settings), so a session replays with the timings it was
 * served with.
 */
import { UserInputError } from "../sim/errors.js";
import { DEFAULT_NETWORK, type NetworkConfig } from "../sim/network.js";
import { DEFAULT_DISK, type DiskConfig } from "../sim/disk.js";
import type { QuorumTiming } from "../zk/server/quorum/quorum-timing.js";

export const SERVE_TIMING_PROFILES = ["loopback", "lan"] as const;
export type ServeTimingProfile = (typeof SERVE_TIMING_PROFILES)[number];
export const DEFAULT_SERVE_TIMING: ServeTimingProfile = "loopback";

/** The link and disk settings a served ensemble runs with. */
export interface ServeTiming {
  network: Partial<NetworkConfig>;
  disk: Partial<DiskConfig>;
}

const PROFILES: Record<ServeTimingProfile, ServeTiming> = {
  loopback: { network: { minDelayUs: 20, maxDelayUs: 60 }, disk: { fsyncLatencyUs: 120 } },
  lan: { network: { minDelayUs: DEFAULT_NETWORK.minDelayUs, maxDelayUs: DEFAULT_NETWORK.maxDelayUs }, disk: { fsyncLatencyUs: DEFAULT_DISK.fsyncLatencyUs } },
};

/** The quorum timings that are costs of a deployment, not settings of 3.8's (quorum-timing.ts). */
export type DeploymentCosts = Pick<QuorumTiming, "leaderStartupMs" | "learnerStartupMs" | "learnerSyncMs" | "leaderServingStartupMs">;

/**
 * The loopback deployment's costs, ms (scripts/measure-leader-startup.mjs; docs/serve.md "Timing
 * profiles"): a new leader's decision to its bound quorum port, a new follower's decision to its
 * first connect, then the follower's sync up to its NEWLEADER ACK (`Learner.syncWithLeader`) and
 * the leader's `startZkServer` after its NEWLEADER quorum. The two sync costs split the real
 * 3.8.0's quiet `zk_follower_sync_time` (42 ms: the machine at a load average below 2) in the
 * proportion its INFO log shows between them (57 % `startZkServer`, median of 14 failovers at a
 * load of 10–21, where both are ~6 times their quiet size).
 */
export const LOOPBACK_STARTUP: Readonly<DeploymentCosts> = { leaderStartupMs: 32, learnerStartupMs: 6, learnerSyncMs: 18, leaderServingStartupMs: 24 };

const STARTUP: Record<ServeTimingProfile, Partial<QuorumTiming>> = { loopback: LOOPBACK_STARTUP, lan: {} };

/** The quorum timings a profile sets (its deployment's start-up costs); settings given win over them. */
export function serveQuorumTiming(profile: ServeTimingProfile, given: Partial<QuorumTiming> = {}): Partial<QuorumTiming> {
  return { ...STARTUP[profile], ...given };
}

/** `--timing`'s value, checked: a name not known is one line listing the profiles. */
export function serveTimingProfile(raw: string): ServeTimingProfile {
  if ((SERVE_TIMING_PROFILES as readonly string[]).includes(raw)) return raw as ServeTimingProfile;
  throw new UserInputError(`serve: --timing ${raw}: no such timing profile (profiles: ${SERVE_TIMING_PROFILES.join(", ")})`);
}

/** Whether the real clients' links take no simulated time: the loopback profile, unless a scenario sets link delays. */
export function instantGatewayLinks(profile: ServeTimingProfile, over: Partial<ServeTiming> = {}): boolean {
  return profile === "loopback" && over.network?.minDelayUs === undefined && over.network?.maxDelayUs === undefined;
}

/** The profile's link and disk settings with a scenario's own over them, field by field. */
export function serveTiming(profile: ServeTimingProfile, over: Partial<ServeTiming> = {}): ServeTiming {
  const base = PROFILES[profile];
  return { network: { ...base.network, ...over.network }, disk: { ...base.disk, ...over.disk } };
}
