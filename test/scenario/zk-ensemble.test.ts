import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";

const SCENARIOS = [
  "zab-leader-crash-before-commit",
  "zab-follower-restart-trunc",
  "zab-isolated-leader",
  "zab-rolling-restart",
  "zab-observer",
  "ensemble-session-expiry",
  "ensemble-reconnect-watches",
  "zab-follower-snap",
];

describe("scenario: zk ensemble (ZAB)", () => {
  for (const name of SCENARIOS) {
    it(`${name}: passes every ZAB checker, deterministically`, async () => {
      const scenario = loadScenario(name);
      expect(scenario.checkers).toContain("zab.committed-durability");
      for (const seed of [1, 2]) {
        const r = await runScenario(scenario, { seed });
        expect(r.violations, `${name} seed ${seed}`).toEqual([]);
        expect((await runScenario(scenario, { seed })).traceHash).toBe(r.traceHash);
      }
    });
  }

  it("7 voters and 2 observers: sessions expire through the leader, every ZAB invariant holds", async () => {
    const scenario = { ...loadScenario("ensemble-session-expiry") };
    scenario.workload = { kind: "zk", params: { script: "session-expiry", servers: 7, observers: 2, clients: 3 } };
    for (const seed of [1, 2]) expect((await runScenario(scenario, { seed })).violations).toEqual([]);
  });

  it("SNAP sync happens when a follower is behind the committed log", async () => {
    const r = await runScenario(loadScenario("zab-follower-snap"), { seed: 1, retainTrace: true });
    expect(r.counts["zab.snap.load"]).toBeGreaterThanOrEqual(1);
  });

  it("the book's example really happens: P3 is truncated from the old leader", async () => {
    const r = await runScenario(loadScenario("zab-leader-crash-before-commit"), { seed: 1, retainTrace: true });
    expect(r.counts["zab.truncate"]).toBeGreaterThanOrEqual(1);
    expect(r.counts["zab.leader.established"]).toBeGreaterThanOrEqual(2);
  });

  it("canary minority-commit: a leader committing on a minority of ACKs is caught by the ZAB checkers", async () => {
    for (const name of ["zab-leader-crash-before-commit", "zab-isolated-leader"]) {
      const r = await runScenario(loadScenario(name), { seed: 1, canary: "minority-commit" });
      expect(r.verdict).toBe("fail");
      const checkers = new Set(r.violations.map((v) => v.checker));
      expect(checkers.has("zab.prefix-consistency") || checkers.has("zab.committed-durability"), name).toBe(true);
    }
  });

  it("zab.primary-integrity catches the minority-commit canary and re-injected ZOOKEEPER-4785: an old-epoch txn delivered, then missing from the next primary", async () => {
    const canary = await runScenario(loadScenario("zab-isolated-leader"), { seed: 1, canary: "minority-commit" });
    const bug = await runScenario(loadScenario("bug-4785"), { bugs: ["ZK-4785"] });
    for (const r of [canary, bug]) {
      const v = r.violations.filter((x) => x.checker === "zab.primary-integrity");
      expect(v.length).toBeGreaterThan(0);
      expect(v[0]!.message).toMatch(/^PrimaryIntegrity violated: s\d \(sid \d\) delivered 0x1[0-9a-f]{8} \(1,\d+\) .* primary of epoch \d+, had delivered only up to /);
    }
  });

  it("re-injected ZOOKEEPER-1154 (DIFF without checking history) breaks prefix consistency", async () => {
    const r = await runScenario(loadScenario("zab-follower-restart-trunc"), { seed: 1, bugs: ["ZK-1154"] });
    expect(r.violations.map((v) => v.checker)).toContain("zab.prefix-consistency");
  });

  it("re-injected ZOOKEEPER-2845 (stale in-memory tree after LOOKING) loses a committed txn", async () => {
    const r = await runScenario(loadScenario("zab-leader-crash-before-commit"), { seed: 1, bugs: ["ZK-2845"] });
    expect(r.violations.map((v) => v.checker)).toContain("zab.committed-durability");
  });
});
