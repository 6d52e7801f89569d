/**
 * The teaching protocols' swarms draw their faults before the run ("protocol-swarm" nemesis):
 * the listed schedule names only nodes the seed's shape creates, aims crashes at trace events
 * through `when`, runs exactly as the nemesis does, and is a pure function of the seed.
 */
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { parseScenario } from "../../src/scenario/parse.js";
import { scenarioAsRun, scenarioToDocument } from "../../src/scenario/replay-file.js";
import { workloadDef } from "../../src/scenario/registry.js";
import { Rng } from "../../src/sim/rng.js";

const nodesOf = (f: object): string[] => Object.entries(f).flatMap(([k, v]) => (k === "node" ? [v as string] : k === "from" || k === "to" ? (v as string[]) : []));

describe("scenario: the protocol swarms' faults are data", () => {
  it("paxos-random-faults: faults over the seed's nodes, crashes aimed after an acceptor's answer, run as listed", async () => {
    const s = loadScenario("paxos-random-faults");
    let aimed = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const listed = scenarioAsRun(s, seed);
      expect(listed.nemesis).toBeUndefined();
      expect(scenarioAsRun(s, seed)).toEqual(listed);
      const nodes = workloadDef("paxos").seedNodes!(s.workload.params, Rng.root(seed));
      for (const f of listed.faults) {
        expect(f.atMs).toBeLessThan(s.durationMs);
        for (const n of nodesOf(f)) expect(nodes, `seed ${seed}`).toContain(n);
        if (f.when !== undefined) {
          aimed++;
          expect(f.when).toEqual([expect.objectContaining({ after: "paxos.accepted", node: (f as { node: string }).node })]);
          expect(f.atMs + f.when[0]!.withinMs!).toBe(s.durationMs);
        }
      }
    }
    expect(aimed).toBeGreaterThan(0);
    const listed = scenarioAsRun(s, 14);
    expect((await runScenario(listed, { seed: 14 })).traceHash).toBe((await runScenario(s, { seed: 14 })).traceHash);
  });

  it("3pc-random-crashes: crashes of the coordinator and participants alone, in the fault phase", () => {
    const s = loadScenario("3pc-random-crashes");
    for (let seed = 1; seed <= 20; seed++) {
      const faults = scenarioAsRun(s, seed).faults;
      const nodes = workloadDef("three-phase-commit").seedNodes!(s.workload.params, Rng.root(seed));
      for (const f of faults) {
        expect(f).toEqual(expect.objectContaining({ kind: "crash", onlyIfUp: true }));
        expect(nodes).toContain((f as { node: string }).node);
        expect((f as { node: string }).node).not.toMatch(/^c\d/);
        expect(f.atMs).toBeLessThan(11_000);
      }
    }
  });

  it("bad parameters are refused by name", () => {
    const doc = scenarioToDocument(loadScenario("paxos-random-faults"));
    const nemesis = (extra: object) => parseScenario({ ...doc, nemesis: { ...(doc.nemesis as object), ...extra } }, "s.json");
    expect(() => nemesis({})).not.toThrow();
    expect(() => nemesis({ aimedKinds: [] })).toThrow(/nemesis\.aimedKinds: "crash-after" needs the trace kinds/);
    expect(() => nemesis({ crashable: ["a9"] })).toThrow(/nemesis\.crashable: expected a non-empty list of node names/);
    expect(() => nemesis({ gapMsMax: [800, 50] })).toThrow(/nemesis\.gapMsMax: expected \[lo, hi\]/);
    expect(() => nemesis({ kinds: ["reorder"] })).toThrow(/nemesis\.kinds: expected a non-empty list of crash, crash-after/);
  });
});
