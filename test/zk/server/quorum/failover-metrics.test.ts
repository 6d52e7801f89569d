/**
 * 3.8's failover summaries (failover-metrics.ts), fed ZabState transitions as a peer goes through
 * them: what each records and when, and mntr's formatting of an AvgMinMaxCounter.
 */
import { describe, expect, it } from "vitest";
import { AvgMinMaxCounter, FailoverMetrics } from "../../../../src/zk/server/quorum/failover-metrics.js";

describe("failover metrics", () => {
  it("a follower: election until followLeader, sync from DIFF to BROADCAST, unavailable from the first LOOKING", () => {
    const m = new FailoverMetrics();
    m.onPhase("ELECTION", "LOOKING", 1000);
    m.onPhase("DISCOVERY", "FOLLOWING", 1200);
    // The leader went away before the sync: looking again, unavailable since 1000 still.
    m.onPhase("ELECTION", "LOOKING", 1250);
    m.onPhase("DISCOVERY", "FOLLOWING", 1460);
    m.onPhase("SYNCHRONIZATION", "FOLLOWING", 1470);
    m.onPhase("BROADCAST", "FOLLOWING", 1475);
    expect([m.electionTime.count, m.electionTime.total]).toEqual([2, 410]);
    expect([m.followerSyncTime.count, m.followerSyncTime.total]).toEqual([1, 5]);
    expect([m.unavailableTime.count, m.unavailableTime.total]).toEqual([1, 475]);
    expect(m.leaderUnavailableTime.count).toBe(0);
  });

  it("a leader records leader_unavailable_time; an observer no election time, its sync as observer_sync_time", () => {
    const leader = new FailoverMetrics();
    leader.onPhase("ELECTION", "LOOKING", 0);
    leader.onPhase("DISCOVERY", "LEADING", 200);
    leader.onPhase("SYNCHRONIZATION", "LEADING", 201);
    leader.onPhase("BROADCAST", "LEADING", 301);
    expect([leader.leaderUnavailableTime.total, leader.unavailableTime.total, leader.electionTime.total, leader.followerSyncTime.count]).toEqual([301, 301, 200, 0]);
    const observer = new FailoverMetrics();
    observer.onPhase("ELECTION", "LOOKING", 10);
    observer.onPhase("DISCOVERY", "OBSERVING", 20);
    observer.onPhase("SYNCHRONIZATION", "OBSERVING", 21);
    observer.onPhase("BROADCAST", "OBSERVING", 24);
    expect([observer.electionTime.count, observer.observerSyncTime.total, observer.followerSyncTime.count]).toEqual([0, 3, 0]);
  });

  it("mntr prints avg as a Java double rounded to 4 places, min and max 0 when nothing was recorded", () => {
    const c = new AvgMinMaxCounter();
    expect(c.values("election_time")).toEqual([
      ["zk_avg_election_time", "0.0"],
      ["zk_min_election_time", "0"],
      ["zk_max_election_time", "0"],
      ["zk_cnt_election_time", "0"],
      ["zk_sum_election_time", "0"],
    ]);
    for (const v of [200, 201, 201]) c.add(v);
    expect(c.values("election_time").map(([, v]) => v)).toEqual(["200.6667", "200", "201", "3", "602"]);
    c.add(198);
    expect(c.values("election_time")[0]).toEqual(["zk_avg_election_time", "200.0"]);
  });
});
