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
 * A `--scenario`'s own `network` and `disk` fields win over the profile's, field by field. The
 * recording keeps the resulting link and disk settings as the replay scenario's own (and
 * `instantGatewayLinks` in its serve settings), so a session replays with the timings it was
 * served with.
 */
import { UserInputError } from "../sim/errors.js";
import { DEFAULT_NETWORK, type NetworkConfig } from "../sim/network.js";
import { DEFAULT_DISK, type DiskConfig } from "../sim/disk.js";

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
