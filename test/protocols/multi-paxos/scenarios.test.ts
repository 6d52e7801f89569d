import { describe, expect, it } from "vitest";
import { loadScenario } from "../../../src/cli/scenario-files.js";
import { runScenario } from "../../../src/scenario/run.js";
import { scenarioAsRun } from "../../../src/scenario/replay-file.js";

/** The Multi-Paxos scenarios pass or fail as stated; golden hash pinned (update it on purpose only). */
const run = (name: string, variant?: string, seed?: number) => runScenario(loadScenario(name, variant), seed === undefined ? {} : { seed });

describe("multi-paxos scenarios", () => {
  it("multipaxos-leader-failover: a new leader after phase 1, clients retry through it; without the lease the deposed master serves stale reads; without phase 1 chosen slots are overwritten", async () => {
    const ok = await run("multipaxos-leader-failover");
    expect(ok.violations).toEqual([]);
    expect(ok.traceHash).toBe("3dc59fa18f883ad8");
    expect((await run("multipaxos-leader-failover")).traceHash).toBe(ok.traceHash);
    expect(ok.narrative.some((l) => /r\d is the distinguished proposer .* phase 1 once for every slot from [1-9]/.test(l))).toBe(true);
    const noLease = await run("multipaxos-leader-failover", "no-lease");
    expect(noLease.violations.map((v) => v.checker)).toEqual(["multipaxos.linearizable"]);
    // The twin is caught: a leader that took over without phase 1 chose a second command in a
    // slot already chosen. Here (seed 9) the leader change at start-up (r1, then r3) overwrites
    // slot 0. Whether the change after the cut at 1000 ms overwrites one too is timing, not the
    // lesson: it takes an accept whose answers straddle the cut (chosen at r3, its announcement
    // cut off), which no seed 1–10 but 9 had, and 9 only while acceptors rewrote re-sent accepts.
    const skip = await run("multipaxos-leader-failover", "skip-phase-1");
    const overwrites = skip.violations.filter((v) => v.checker === "multipaxos.slot-agreement");
    expect(overwrites.length).toBeGreaterThan(0);
    for (const v of overwrites) expect(v.message).toMatch(/^slot \d+ has two chosen commands: \S+ at ballot \d+ and \S+ at ballot \d+/);
  }, 30_000);

  it("multipaxos-client-restart: a client that crashes and restarts is a new client; the twin that reuses its identity gets an ok for a put never applied", async () => {
    const ok = await run("multipaxos-client-restart");
    expect(ok.violations).toEqual([]);
    expect(ok.traceHash).toBe("6d3c60d1072af153");
    const restarted = (await run("multipaxos-client-restart")).traceHash;
    expect(restarted).toBe(ok.traceHash);
    for (const seed of [1, 2, 3]) {
      expect((await run("multipaxos-client-restart", undefined, seed)).violations, `seed ${seed}`).toEqual([]);
      const twin = await run("multipaxos-client-restart", "restart-reuses-ids", seed);
      expect(twin.violations.map((v) => v.checker), `twin, seed ${seed}`).toEqual(["multipaxos.linearizable"]);
    }
  }, 60_000);

  it("multipaxos-lease-clock-drift: the leader counts its lease shorter by the drift margin; without it the old master serves a stale read under clock skew", async () => {
    const ok = await run("multipaxos-lease-clock-drift");
    expect(ok.violations).toEqual([]);
    expect(ok.traceHash).toBe("66dc7217847ad3bc");
    expect(ok.counts.clock).toBeGreaterThanOrEqual(4);
    for (const seed of [1, 2, 3]) {
      expect((await run("multipaxos-lease-clock-drift", undefined, seed)).violations, `seed ${seed}`).toEqual([]);
      const twin = await run("multipaxos-lease-clock-drift", "no-drift-margin", seed);
      expect(twin.violations.map((v) => v.checker), `twin, seed ${seed}`).toEqual(["multipaxos.linearizable"]);
    }
  }, 120_000);

  it("multipaxos-lease-restart: a restarted replica waits out a lease it may have granted before promising, so the next master commits only after the old one stopped serving reads", async () => {
    const ok = await run("multipaxos-lease-restart");
    expect(ok.violations).toEqual([]);
    expect(ok.traceHash).toBe("8e0925f112d89f2f");
    expect(ok.counts.restart).toBe(1);
    for (const seed of [2, 3]) expect((await run("multipaxos-lease-restart", undefined, seed)).violations, `seed ${seed}`).toEqual([]);
  }, 120_000);

  it("multipaxos-redirect: patient clients (2 s request timeout) reach the leader by redirects, every request answered within multipaxos.liveness's budget", async () => {
    const ok = await run("multipaxos-redirect");
    expect(ok.violations).toEqual([]);
    expect(ok.traceHash).toBe("23815af4bafa37c5");
    expect(ok.narrative.some((l) => /\d+ client operations answered/.test(l))).toBe(true);
  }, 30_000);

  it("multipaxos-gap-fill: a new leader fills a hole with a no-op and every replica runs the log; a leader that does not leaves it stuck (multipaxos.liveness)", async () => {
    const ok = await run("multipaxos-gap-fill");
    expect(ok.violations).toEqual([]);
    expect(ok.traceHash).toBe("c05a13b7ee736944");
    const twin = await run("multipaxos-gap-fill", "skip-gap-fill");
    // the replicas stop at the hole, and the clients whose writes wait behind it stay waiting
    expect(twin.violations.map((v) => v.checker)).toEqual(["multipaxos.liveness", "multipaxos.liveness"]);
    expect(twin.violations[0]!.message).toMatch(/slot 74: never chosen: a hole no leader filled/);
    expect(twin.violations[1]!.message).toMatch(/a client still waits for an answer/);
  }, 60_000);

  it("a service that stops answering is caught by its waiting clients: mute-promise chooses nothing, so no replica is behind", async () => {
    const twin = await run("multipaxos-leader-failover", "mute-promise");
    expect(twin.violations.map((v) => v.checker)).toEqual(["multipaxos.liveness"]);
    expect(twin.violations[0]!.message).toMatch(/a client still waits for an answer: c3's get k1 \(request 1\), invoked at [0-9.]+ ms; .*no replica ever led/);
  }, 60_000);

  it("multipaxos-random-faults: seeds 1–10 pass; a leader that skips phase 1 is caught", async () => {
    for (let seed = 1; seed <= 10; seed++) expect((await run("multipaxos-random-faults", undefined, seed)).violations, `seed ${seed}`).toEqual([]);
    const broken = await run("multipaxos-random-faults", "skip-phase-1", 2);
    expect(broken.violations.map((v) => v.checker)).toContain("multipaxos.slot-agreement");
  }, 60_000);

  it("multipaxos-catch-up: a replica left behind as the faults end (down, or cut off) catches up from the leader; the twin that answers no catch-up leaves it behind", async () => {
    for (let seed = 1; seed <= 5; seed++) expect((await run("multipaxos-catch-up", undefined, seed)).violations, `seed ${seed}`).toEqual([]);
    const twin = await run("multipaxos-catch-up", "no-catch-up", 1);
    expect(twin.violations.map((v) => v.checker)).toEqual(["multipaxos.liveness"]);
    // a replica that missed slot 0 never learns it (at seed 1: r3, and r1, which missed it too)
    expect(twin.violations[0]!.message).toMatch(/slots up to \d+ are chosen but r\d applied slots below 0 only \(slot 0: chosen \(c3#1\) at [0-9.]+ ms but not learned\)/);
  }, 60_000);

  it("multipaxos-catch-up with slow disks: an acceptor answers a re-sent accept when its first write is durable instead of writing it again, so its fsync queue drains with the fault", async () => {
    // Seeds 155, 246 and 10193 stayed stuck for seconds after the heal while every re-sent
    // accept queued one more slow fsync (docs/bug-power.md, "Fresh-range sweeps of session 38").
    for (const seed of [155, 246, 10193]) {
      const faults = scenarioAsRun(loadScenario("multipaxos-catch-up"), seed).faults;
      expect(faults.some((f) => f.kind === "disk" && f.fault === "slow-fsync"), `seed ${seed} draws a slow disk`).toBe(true);
      expect((await run("multipaxos-catch-up", undefined, seed)).violations, `seed ${seed}`).toEqual([]);
    }
  }, 60_000);

  it("bad input is one clear line", () => {
    expect(() => loadScenario("multipaxos-leader-failover", "fast")).toThrow(/workload.variant: unknown multi-paxos variant "fast"/);
  });
});
