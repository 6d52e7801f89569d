import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { parseScenario } from "../../src/scenario/parse.js";
import { parseReplayFile, scenarioAsRun, scenarioToDocument, serializeReplayCase } from "../../src/scenario/replay-file.js";
import { parseFaultSchedule } from "../../src/sim/faults.js";
import { ZAB_TRACE_ROLES } from "../../src/scenario/workloads/zk.js";
import type { Scenario } from "../../src/scenario/types.js";

/** kernel-smoke's workload with the generic nemesis instead of its hand-written faults. */
function kernelWithRandomNemesis(): Scenario {
  const doc = scenarioToDocument(loadScenario("kernel-smoke"));
  return parseScenario({ ...doc, faults: [], nemesis: { kind: "random", startMs: 1000, endMs: 15_000, count: 6 } }, "test");
}

describe("scenario: nemeses draw the whole schedule before the run", () => {
  it("zab-swarm: the drawn list is valid data, names no nemesis, and runs exactly as the nemesis does", async () => {
    const swarm = loadScenario("zab-random-faults");
    const listed = scenarioAsRun(swarm, 4);
    expect(listed.nemesis).toBeUndefined();
    expect(listed.faults.length).toBeGreaterThan(0);
    expect(scenarioAsRun(listed, 4)).toBe(listed); // drawing twice is drawing once
    expect(scenarioAsRun(swarm, 4)).toEqual(listed); // a pure function of the seed
    const nodes = ["s1", "s2", "s3", "s4", "s5", "s6", "c1", "c2", "c3", "c4"];
    expect(parseFaultSchedule(JSON.parse(JSON.stringify(listed.faults)), nodes, "faults", ZAB_TRACE_ROLES.roles.map((r) => r.role))).toEqual(listed.faults);
    expect(listed.faults.some((f) => f.when?.some((s) => s.after === "zab.sync"))).toBe(true);
    const [a, b] = [await runScenario(swarm, { seed: 4 }), await runScenario(listed, { seed: 4 })];
    expect(b.traceHash).toBe(a.traceHash);
  });

  it("a saved case lists the drawn faults and round-trips through its file", async () => {
    const swarm = loadScenario("zab-random-faults");
    const listed = scenarioAsRun(swarm, 2);
    const text = serializeReplayCase({ scenario: listed, seed: 2, bugs: [], canary: undefined, simplify: [], expected: { traceHash: "x", verdict: "pass", violations: [] } });
    expect(parseReplayFile(text, "case.json").scenario).toEqual(listed);
    expect(JSON.parse(text).scenario.nemesis).toBeUndefined();
  });

  it("random: timed disruptions over a non-ZooKeeper node set, each with its undo, deterministic per seed", async () => {
    const s = kernelWithRandomNemesis();
    const listed = scenarioAsRun(s, 7);
    expect(listed.faults.length).toBeGreaterThan(0);
    expect(listed.faults.length).toBeLessThanOrEqual(6); // a draw that left a link side empty is dropped
    for (const f of listed.faults) {
      expect(f.atMs).toBeGreaterThanOrEqual(1000);
      expect(f.atMs + (f.forMs ?? 0)).toBeLessThanOrEqual(15_000);
    }
    expect(scenarioAsRun(s, 8).faults).not.toEqual(listed.faults);
    const r = await runScenario(s, { seed: 7 });
    expect(r.violations).toEqual([]);
    expect((await runScenario(listed, { seed: 7 })).traceHash).toBe(r.traceHash);
  });

  it("a bad nemesis is refused by name", () => {
    const doc = scenarioToDocument(loadScenario("kernel-smoke"));
    expect(() => parseScenario({ ...doc, nemesis: { kind: "chaos" } }, "s.json")).toThrow(/nemesis\.kind: unknown nemesis "chaos" \(known: zab-swarm, random, protocol-swarm, lagging-server(, [a-z-]+)*\)/);
    const swarm = scenarioToDocument(loadScenario("zab-lagging-server"));
    expect(() => parseScenario({ ...swarm, nemesis: { kind: "lagging-server", episodes: 9 } }, "s.json")).toThrow(/nemesis\.episodes: expected an integer in \[1, 4\], got 9/);
    expect(() => parseScenario({ ...doc, nemesis: { kind: "random", count: -1 } }, "s.json")).toThrow(/nemesis\.count: expected a whole number ≥ 0/);
    expect(() => parseScenario({ ...doc, nemesis: { kind: "random", kinds: ["meteor"] } }, "s.json")).toThrow(/nemesis\.kinds: expected a non-empty list of crash, pause/);
    expect(() => parseScenario({ ...doc, nemesis: { kind: "random", rate: 1 } }, "s.json")).toThrow(/unknown parameter "rate" for nemesis "random"/);
  });
});
