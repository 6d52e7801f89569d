/**
 * Failover timings (quorum-timing.ts): the scenarios' "zksim-classic" profile (every pinned seed
 * runs as before) and 3.8's, which a scenario opts in to with `"quorumTiming": "zookeeper-3.8"`
 * and `zksim serve` always runs: a refused connect to the leader is retried after
 * `leaderConnectDelayDuringRetryMs` (100 ms, not 1,000), an observer waits up to
 * `observer.election.DelayMs` before electing again.
 */
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../../../src/cli/scenario-files.js";
import { runScenario } from "../../../../src/scenario/run.js";
import type { Scenario } from "../../../../src/scenario/types.js";
import { quorumTimingParams } from "../../../../src/scenario/workloads/zk.js";
import { resolveQuorumTiming, ZKSIM_CLASSIC_QUORUM_TIMING, ZOOKEEPER_38_QUORUM_TIMING } from "../../../../src/zk/server/quorum/quorum-timing.js";
import { UserInputError } from "../../../../src/sim/errors.js";

function swarmWith(params: Record<string, unknown>): Scenario {
  const base = loadScenario("zab-random-faults");
  return { ...base, workload: { ...base.workload, params: { ...base.workload.params, ...params } } };
}

/** The instants (ms) of each node's learner-connect retries, and the observers' election delays. */
async function retries(scenario: Scenario, seed: number): Promise<{ verdict: string; traceHash: string; connectRetryMs: Map<string, number[]>; observerDelays: number }> {
  const connectRetryMs = new Map<string, number[]>();
  let observerDelays = 0;
  const r = await runScenario(scenario, {
    seed,
    onTraceEvent: (e) => {
      if (e.kind !== "timer") return;
      if (e.detail === "learner-connect-retry") connectRetryMs.set(e.node, [...(connectRetryMs.get(e.node) ?? []), e.atUs / 1000]);
      if (e.detail === "observer-election-delay") observerDelays++;
    },
  });
  return { verdict: r.verdict, traceHash: r.traceHash, connectRetryMs, observerDelays };
}

/** Gaps between a node's consecutive retries that belong to one connect (less than 2 s apart). */
function retryGaps(byNode: Map<string, number[]>): number[] {
  return [...byNode.values()].flatMap((at) => at.slice(1).map((t, i) => t - at[i]!).filter((gap) => gap < 2000));
}

describe("quorum timing profiles", () => {
  it("the two profiles: 3.8's defaults, and the classic ones the scenarios keep", () => {
    expect(resolveQuorumTiming({ profile: "zookeeper-3.8" })).toEqual({ ...ZOOKEEPER_38_QUORUM_TIMING, connectTriesShareLimit: true });
    expect(ZOOKEEPER_38_QUORUM_TIMING).toMatchObject({ leaderConnectDelayDuringRetryMs: 100, minNotificationIntervalMs: 200, maxNotificationIntervalMs: 60_000, observerElectionDelayMs: 200, cnxTimeoutMs: 5000 });
    expect(resolveQuorumTiming({ profile: "zksim-classic", settings: { cnxTimeoutMs: 700 } })).toEqual({ ...ZKSIM_CLASSIC_QUORUM_TIMING, cnxTimeoutMs: 700, connectTriesShareLimit: false });
    expect(ZKSIM_CLASSIC_QUORUM_TIMING).toMatchObject({ leaderConnectDelayDuringRetryMs: 1000, observerElectionDelayMs: 0 });
  });

  it("workload parameters: the profile by name, settings over it, bad values one clear error", async () => {
    expect(quorumTimingParams({})).toEqual({ profile: "zksim-classic", settings: {} });
    expect(quorumTimingParams({ quorumTiming: "zookeeper-3.8", leaderConnectDelayDuringRetryMs: 50 })).toEqual({ profile: "zookeeper-3.8", settings: { leaderConnectDelayDuringRetryMs: 50 } });
    expect(() => quorumTimingParams({ quorumTiming: "3.9" })).toThrow(/workload\.quorumTiming: expected one of "zookeeper-3\.8", "zksim-classic", got "3\.9"/);
    expect(() => quorumTimingParams({ minNotificationIntervalMs: 0 })).toThrow(UserInputError);
    await expect(runScenario(swarmWith({ leaderConnectDelayDuringRetryMs: "soon" }), { seed: 1 })).rejects.toThrow(/workload\.leaderConnectDelayDuringRetryMs/);
  });

  it("3.8's profile retries a refused leader connect after 100 ms (classic: 1,000), passes, and is deterministic", async () => {
    // Seeds where followers decide before the new leader listens (at start-up and after crashes);
    // the first of them whose 3.8 run retries one connect more than once is compared.
    for (const seed of [17, 19, 6, 25]) {
      const zk38 = await retries(swarmWith({ quorumTiming: "zookeeper-3.8" }), seed);
      const zk38Gaps = retryGaps(zk38.connectRetryMs);
      if (!zk38Gaps.some((gap) => gap < 1000)) continue;
      const classic = await retries(swarmWith({}), seed);
      expect([classic.verdict, zk38.verdict], `seed ${seed}`).toEqual(["pass", "pass"]);
      // 100 ms, plus the refused connect's own round trip.
      expect(zk38Gaps.filter((gap) => gap >= 100 && gap < 110).length, `seed ${seed}: ${zk38Gaps.join(", ")}`).toBeGreaterThan(1);
      for (const gap of retryGaps(classic.connectRetryMs)) expect(gap, `seed ${seed}`).toBeGreaterThanOrEqual(1000);
      // The first connect of the first election: retried 0.9 s earlier.
      const first = (m: Map<string, number[]>) => Math.min(...[...m.values()].map((at) => at[0]!));
      expect(first(classic.connectRetryMs) - first(zk38.connectRetryMs)).toBeCloseTo(900, 0);
      expect((await retries(swarmWith({ quorumTiming: "zookeeper-3.8" }), seed)).traceHash).toBe(zk38.traceHash);
      return;
    }
    expect.fail("none of the seeds retried a leader connect twice under 3.8's timings");
  });

  it("a deployment's start-ups: a leader binds leaderStartupMs after the election, a learner connects learnerStartupMs after it, so a learner that decides with the leader is refused and retries; 0 (both profiles' default) changes nothing", async () => {
    expect([ZOOKEEPER_38_QUORUM_TIMING.leaderStartupMs, ZOOKEEPER_38_QUORUM_TIMING.learnerStartupMs, ZKSIM_CLASSIC_QUORUM_TIMING.leaderStartupMs, ZKSIM_CLASSIC_QUORUM_TIMING.learnerStartupMs]).toEqual([0, 0, 0, 0]);
    const seed = 1;
    const plain = await retries(swarmWith({ quorumTiming: "zookeeper-3.8" }), seed);
    expect((await retries(swarmWith({ quorumTiming: "zookeeper-3.8", leaderStartupMs: 0, learnerStartupMs: 0 }), seed)).traceHash).toBe(plain.traceHash);
    const fired = new Map<string, { node: string; atMs: number }[]>();
    const scenario = swarmWith({ quorumTiming: "zookeeper-3.8", leaderStartupMs: 32, learnerStartupMs: 6 });
    const r = await runScenario(scenario, {
      seed,
      onTraceEvent: (e) => {
        if (e.kind === "timer" && ["leader-startup", "learner-startup", "learner-connect-retry"].includes(e.detail ?? "")) fired.set(e.detail!, [...(fired.get(e.detail!) ?? []), { node: e.node, atMs: e.atUs / 1000 }]);
      },
    });
    expect(r.verdict).toBe("pass");
    const leaders = fired.get("leader-startup") ?? [];
    const learners = fired.get("learner-startup") ?? [];
    expect(leaders.length).toBeGreaterThan(0);
    expect(learners.length).toBeGreaterThan(0);
    // A learner whose start-up ended while a leader's was still running (elected together): its connect is refused, retried 100 ms later.
    const together = learners.filter((l) => leaders.some((d) => d.atMs - l.atMs > 3 && d.atMs - l.atMs <= 40));
    expect(together.length).toBeGreaterThan(0);
    for (const l of together) expect((fired.get("learner-connect-retry") ?? []).some((t) => t.node === l.node && t.atMs - l.atMs >= 100 && t.atMs - l.atMs < 105), `${l.node} at ${l.atMs}`).toBe(true);
    expect((await runScenario(scenario, { seed })).traceHash).toBe(r.traceHash);
  });

  it("a deployment's sync costs: a learner ACKs NEWLEADER learnerSyncMs late, the leader serves leaderServingStartupMs after its NEWLEADER quorum and only then sends UPTODATE; 0 (both profiles' default) changes nothing", async () => {
    expect([ZOOKEEPER_38_QUORUM_TIMING.learnerSyncMs, ZOOKEEPER_38_QUORUM_TIMING.leaderServingStartupMs, ZKSIM_CLASSIC_QUORUM_TIMING.learnerSyncMs, ZKSIM_CLASSIC_QUORUM_TIMING.leaderServingStartupMs]).toEqual([0, 0, 0, 0]);
    const seed = 3;
    // The first 20 s hold the start-up election and the first faults' elections.
    const short = (params: Record<string, unknown>): Scenario => ({ ...swarmWith({ quorumTiming: "zookeeper-3.8", ...params }), durationMs: 20_000 });
    const plain = await retries(short({}), seed);
    expect((await retries(short({ learnerSyncMs: 0, leaderServingStartupMs: 0 }), seed)).traceHash).toBe(plain.traceHash);
    const scenario = short({ learnerSyncMs: 17, leaderServingStartupMs: 23 });
    // Per sid: when each SYNCHRONIZATION and BROADCAST phase began (ms), and the sync timers.
    const phases: { sid: number; phase: string; atMs: number }[] = [];
    const timers: { node: string; detail: string; atMs: number }[] = [];
    const r = await runScenario(scenario, {
      seed,
      onTraceEvent: (e) => {
        if (e.kind === "timer" && (e.detail === "learner-sync" || e.detail === "leader-serving-startup")) timers.push({ node: e.node, detail: e.detail, atMs: e.atUs / 1000 });
        if (e.kind === "zab.phase") phases.push({ sid: Number(e.fields?.sid), phase: String(e.fields?.phase), atMs: e.atUs / 1000 });
      },
    });
    expect(r.verdict).toBe("pass");
    const servingStarts = timers.filter((t) => t.detail === "leader-serving-startup");
    expect(servingStarts.length).toBeGreaterThan(0);
    expect(timers.some((t) => t.detail === "learner-sync")).toBe(true);
    // A leader's BROADCAST is its startZkServer's end; a follower synced meanwhile reaches
    // BROADCAST (its UPTODATE) after it, never before: every learner sync takes both costs.
    for (const t of servingStarts) {
      const sid = Number(t.node.slice(1));
      expect(phases.some((p) => p.sid === sid && p.phase === "BROADCAST" && p.atMs === t.atMs), `${t.node} at ${t.atMs}`).toBe(true);
    }
    const syncs = phases.flatMap((p, i) => {
      if (p.phase !== "SYNCHRONIZATION") return [];
      const end = phases.slice(i + 1).find((q) => q.sid === p.sid);
      return end?.phase === "BROADCAST" && !servingStarts.some((t) => t.node === `s${p.sid}` && t.atMs === end.atMs) ? [end.atMs - p.atMs] : [];
    });
    expect(syncs.length).toBeGreaterThan(0);
    for (const ms of syncs) expect(ms).toBeGreaterThanOrEqual(17);
    expect(syncs.some((ms) => ms >= 17 + 23)).toBe(true);
    expect((await runScenario(scenario, { seed })).traceHash).toBe(r.traceHash);
  });

  it("an observer whose leader is gone waits observer.election.DelayMs before electing (3.8), none when set to 0", async () => {
    // Seed 5 draws an observer whose connection to the leader closes.
    expect((await retries(swarmWith({ quorumTiming: "zookeeper-3.8" }), 5)).observerDelays).toBeGreaterThan(0);
    expect((await retries(swarmWith({ quorumTiming: "zookeeper-3.8", observerElectionDelayMs: 0 }), 5)).observerDelays).toBe(0);
    expect((await retries(swarmWith({}), 5)).observerDelays).toBe(0);
  });
});
