/**
 * Lagging servers that clients can still reach: a server behind the ensemble keeps serving, and
 * some clients that have seen newer zxids elsewhere are pushed onto it; then it is healed. A
 * client reconnecting there presents its `lastZxidSeen`; ZooKeeper's server refuses a client
 * ahead of its last zxid (`zk.cnxn.refused`), or the client would go back in time
 * (client.session-order judges the replies). Two topologies, drawn per episode:
 *
 * - lagging follower: a follower cut off from the leader (both ways, or only leader → follower),
 *   or reached through a link clogged by 40–90 % of syncLimit (it stays in the ensemble, seconds
 *   behind); some clients are cut from every other server, and most episodes crash one other
 *   server for a few seconds, so its clients' connections reset and they move at once. A
 *   follower re-attaches a session through the leader, over the same FIFO link that carries the
 *   commits, so it has caught up by the time it accepts: here the refusal is exercised, and a
 *   client that forgets its lastZxidSeen still meets no older state.
 * - stale leader: the leader's clock slows (rate 0.05–0.2, so its syncLimit stretches tenfold or
 *   more) and it is cut off from every other server; the rest elect a new leader and commit in a
 *   new epoch while it still believes it leads and re-attaches sessions on its own. Some clients
 *   are kept off it until the new leader has served them 2–5 s (a trace condition on the new
 *   leader's `zab.leader.established`), then cut from every server but it. A correct client is
 *   refused there; one that forgets its lastZxidSeen is taken back in time.
 *
 * Invariants: every draw comes from the `Rng` given; node names are the seed's shape's, the
 * leader the trace's `$leader` when the fault fires (or the node of the stale leader's `clock`
 * event, `$1`); every fault is placed by `at` (anchored on the fault phase, ending before its
 * heal); nothing here is random at run time.
 */
import type { Fault, FaultAction } from "../../sim/faults.js";
import type { TraceStep } from "../../sim/fault-when.js";
import type { Rng } from "../../sim/rng.js";
import { subset } from "./draw.js";
import { DEFAULT_QUORUM_CONFIG } from "../../zk/server/quorum/quorum-peer.js";

/** Places `action` `offsetMs` into the fault phase (after `steps`, if any), undone `forMs` after it fired; nothing if it would not fit. */
export type PlaceFault = (offsetMs: number, leftMs: number, action: FaultAction, forMs: number | undefined, steps?: TraceStep[]) => Fault[];

/** One episode's faults, `offsetMs` into a fault phase with `leftMs` to go. */
export function drawLaggingServer(rng: Rng, servers: readonly string[], clients: readonly string[], tickTimeMs: number, offsetMs: number, leftMs: number, at: PlaceFault): Fault[] {
  const movers = subset(rng, clients, 0.7);
  const syncLimitMs = DEFAULT_QUORUM_CONFIG.syncLimitTicks * tickTimeMs;
  return rng.chance(0.5) ? staleLeader(rng, servers, movers, syncLimitMs, offsetMs, leftMs, at) : laggingFollower(rng, servers, movers, syncLimitMs, offsetMs, leftMs, at);
}

function laggingFollower(rng: Rng, servers: readonly string[], movers: readonly string[], syncLimitMs: number, offsetMs: number, leftMs: number, at: PlaceFault): Fault[] {
  const follower = rng.pick(servers);
  const holdMs = rng.int(2000, 15_000);
  const lag: FaultAction = rng.chance(0.5)
    ? { kind: "cut", from: ["$leader"], to: [follower], oneWay: rng.chance(0.4) }
    : { kind: "clog", from: ["$leader"], to: [follower], extraDelayMs: Math.round((syncLimitMs * rng.int(40, 90)) / 100), oneWay: true };
  const faults = at(offsetMs, leftMs, lag, holdMs);
  const others = servers.filter((s) => s !== follower);
  if (movers.length === 0 || others.length === 0) return faults;
  // The clients move once the follower has fallen behind; they stay pinned a while after it
  // rejoined, so they also meet it while it catches up.
  const moveAfterMs = rng.int(0, Math.min(1500, syncLimitMs / 2));
  const bounced = rng.chance(0.7) ? rng.pick(others) : undefined;
  const pinMs = holdMs - moveAfterMs + rng.int(500, 8000);
  const pinnedAway = others.filter((s) => s !== bounced);
  const move = offsetMs + moveAfterMs;
  if (pinnedAway.length > 0) faults.push(...at(move, leftMs - moveAfterMs, { kind: "cut", from: [...movers], to: pinnedAway, oneWay: false }, pinMs));
  if (bounced !== undefined) faults.push(...at(move, leftMs - moveAfterMs, { kind: "crash", node: bounced }, rng.int(1000, 6000)).map((f) => ({ ...f, onlyIfUp: true })));
  return faults;
}

function staleLeader(rng: Rng, servers: readonly string[], movers: readonly string[], syncLimitMs: number, offsetMs: number, leftMs: number, at: PlaceFault): Fault[] {
  const rate = rng.int(5, 20) / 100;
  // Undone before the phase's heal (which does not set clocks right).
  const holdMs = Math.min(rng.int(20_000, 35_000), leftMs - 1);
  const faults = [...at(offsetMs, leftMs, { kind: "clock", node: "$leader", rate }, holdMs), ...at(offsetMs, leftMs, { kind: "cut", from: ["$leader"], to: [...servers], oneWay: false }, holdMs)];
  if (movers.length === 0 || offsetMs < 1) return faults;
  // The movers are kept off the old leader until the others have elected a new one and served
  // them a few seconds; then they are cut from every server but the old one, named by its clock
  // event (the steps arm 1 ms before it fires).
  faults.push(...at(offsetMs, leftMs, { kind: "cut", from: [...movers], to: ["$leader"], oneWay: false }, undefined));
  const servedMs = rng.int(2000, 5000);
  const newLeader = (delayMs: number): TraceStep[] => [
    { after: "clock", fields: { rate }, withinMs: 2 },
    // The others notice the old leader's silence after syncLimit, then elect within a second or two.
    { after: "zab.leader.established", withinMs: syncLimitMs + 4000, delayMs },
  ];
  faults.push(...at(offsetMs - 1, leftMs + 1, { kind: "cut", from: [...movers], to: [...servers], oneWay: false }, holdMs, newLeader(servedMs)));
  faults.push(...at(offsetMs - 1, leftMs + 1, { kind: "heal", from: [...movers], to: ["$1"], oneWay: false }, undefined, newLeader(servedMs + 1)));
  return faults;
}
