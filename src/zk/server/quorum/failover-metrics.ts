/**
 * The failover summaries of 3.8's `ServerMetrics` that `mntr` prints, kept per peer incarnation
 * (a JVM's metrics start empty, and so do a restarted member's here):
 *
 * - `election_time`: FastLeaderElection's `start_fle` (the peer starts looking) to `end_fle` (a
 *   Leader's `lead()` or a Follower's `followLeader()` begins); an observer records none, as in 3.8;
 * - `unavailable_time`: from the first LOOKING after the peer last served (QuorumPeer's
 *   `unavailableStartTime`) to its ZabState BROADCAST; `leader_unavailable_time` the same, recorded
 *   only when the peer reaches BROADCAST as the leader;
 * - `follower_sync_time` / `observer_sync_time`: the learner's synchronisation, from the leader's
 *   DIFF/SNAP/TRUNC (3.8 starts the clock one hop earlier, when `registerWithLeader` returns) to
 *   BROADCAST after UPTODATE.
 *
 * Times are whole milliseconds of virtual time, as 3.8's `Time.currentElapsedTime()`. The peer
 * feeds this from its `zab.phase` transitions (quorum-peer.ts); nothing here touches the trace,
 * so keeping the metrics changes no run.
 */
import type { ServerState } from "./vote.js";
import type { ZabState } from "./zab-vocabulary.js";

/** 3.8's `AvgMinMaxCounter`: avg (rounded to 4 places), min, max, cnt, sum of whole-ms values. */
export class AvgMinMaxCounter {
  count = 0;
  total = 0;
  private minValue = Number.POSITIVE_INFINITY;
  private maxValue = Number.NEGATIVE_INFINITY;

  add(value: number): void {
    this.count++;
    this.total += value;
    this.minValue = Math.min(this.minValue, value);
    this.maxValue = Math.max(this.maxValue, value);
  }

  /** `values()`: `avg_<name>`, `min_<name>`, `max_<name>`, `cnt_<name>`, `sum_<name>`, as mntr prints them (avg as a Java double). */
  values(name: string): [string, string][] {
    const avg = this.count === 0 ? 0 : Math.round((this.total / this.count) * 10_000) / 10_000;
    return [
      [`zk_avg_${name}`, Number.isInteger(avg) ? avg.toFixed(1) : String(avg)],
      [`zk_min_${name}`, String(this.count === 0 ? 0 : this.minValue)],
      [`zk_max_${name}`, String(this.count === 0 ? 0 : this.maxValue)],
      [`zk_cnt_${name}`, String(this.count)],
      [`zk_sum_${name}`, String(this.total)],
    ];
  }
}

export class FailoverMetrics {
  readonly electionTime = new AvgMinMaxCounter();
  readonly unavailableTime = new AvgMinMaxCounter();
  readonly leaderUnavailableTime = new AvgMinMaxCounter();
  readonly followerSyncTime = new AvgMinMaxCounter();
  readonly observerSyncTime = new AvgMinMaxCounter();
  private startFleMs: number | undefined;
  /** Undefined while the peer serves (3.8's `unavailableStartTime == 0`). */
  private unavailableStartMs: number | undefined;
  private syncStartMs: number | undefined;

  /** The peer entered `phase` at `nowMs` in `state` (the ServerState it holds then). */
  onPhase(phase: ZabState, state: ServerState, nowMs: number): void {
    switch (phase) {
      case "ELECTION":
        this.startFleMs = nowMs;
        this.unavailableStartMs ??= nowMs;
        return;
      case "DISCOVERY":
        if (this.startFleMs !== undefined && state !== "OBSERVING") this.electionTime.add(nowMs - this.startFleMs);
        this.startFleMs = undefined;
        this.syncStartMs = undefined;
        return;
      case "SYNCHRONIZATION":
        this.syncStartMs = nowMs;
        return;
      case "BROADCAST":
        if (this.syncStartMs !== undefined && state !== "LEADING") (state === "OBSERVING" ? this.observerSyncTime : this.followerSyncTime).add(nowMs - this.syncStartMs);
        this.syncStartMs = undefined;
        if (this.unavailableStartMs !== undefined) {
          this.unavailableTime.add(nowMs - this.unavailableStartMs);
          if (state === "LEADING") this.leaderUnavailableTime.add(nowMs - this.unavailableStartMs);
          this.unavailableStartMs = undefined;
        }
        return;
    }
  }

  /** mntr's lines of these summaries. */
  mntrValues(): [string, string][] {
    return [
      ...this.electionTime.values("election_time"),
      ...this.unavailableTime.values("unavailable_time"),
      ...this.leaderUnavailableTime.values("leader_unavailable_time"),
      ...this.followerSyncTime.values("follower_sync_time"),
      ...this.observerSyncTime.values("observer_sync_time"),
    ];
  }
}
