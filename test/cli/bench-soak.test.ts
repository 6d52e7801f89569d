import { describe, expect, it } from "vitest";
import { soakScenario } from "../../src/cli/bench-soak.js";
import { loadScenario } from "../../src/cli/scenario-files.js";

describe("cli: bench soak: the soak scenarios", () => {
  it("soak-1h: 5 voters, 10 clients, 60 minutes of traffic with a crash, a cut and a loss burst every minute, every checker on", () => {
    const s = loadScenario("soak-1h");
    expect(s.workload.params).toMatchObject({ script: "client-traffic", servers: 5, clients: 10, traffic: { keys: 16, opGapMsMax: 100, sessionTimeoutMs: 6000, untilMs: 3_600_000 } });
    const kinds = (kind: string) => s.faults.filter((f) => f.kind === kind).length;
    expect([kinds("crash"), kinds("restart"), kinds("cut"), kinds("heal"), kinds("loss")]).toEqual([60, 60, 60, 60, 120]);
    expect(s.checkers).toContain("client.linearizability");
    expect(s.checkers).toEqual(loadScenario("soak-10m").checkers);
  });

  it("soakScenario(m) cuts the traffic window and the fault schedule at m minutes, keeping the heal-then-read tail", () => {
    const full = loadScenario("soak-1h");
    const ten = soakScenario(10);
    expect(ten.faults.every((f) => f.atMs < 600_000)).toBe(true);
    expect(ten.faults).toHaveLength(full.faults.length / 6);
    expect((ten.workload.params.traffic as { untilMs: number }).untilMs).toBe(600_000);
    expect(full.durationMs - 3_600_000).toBe(ten.durationMs - 600_000);
  });

  it("soak-tree-100k: 50 clients × 20 sessions × 100 znodes", () => {
    const s = loadScenario("soak-tree-100k");
    const p = s.workload.params as { clients: number; tree: { sessionsPerClient: number; nodesPerSession: number } };
    expect(p.clients * p.tree.sessionsPerClient).toBe(1000);
    expect(p.clients * p.tree.sessionsPerClient * p.tree.nodesPerSession).toBe(100_000);
    expect(s.checkers).not.toContain("client.linearizability");
    expect(s.faults).toEqual([]);
  });
});
