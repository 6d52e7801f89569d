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
import { PROTOCOL_SWARM_KINDS } from "../../src/scenario/nemesis/protocol-swarm.js";
import { leftOutOf } from "../../src/cli/explore/coverage-report.js";

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
        for (const n of nodesOf(f)) if (n !== "$0") expect(nodes, `seed ${seed}`).toContain(n);
        if (f.when !== undefined) {
          aimed++;
          const step = f.when[0]!;
          const node = (f as { node: string }).node;
          if (step.after === "send" || step.after === "deliver") {
            // crash-on-message (a message type) or bounce (any datagram it sends): the node that does it next, or a named one.
            if (step.detail !== undefined) expect(["prepare", "promise", "accept", "accepted", "nack", "chosen", "learned"]).toContain(step.detail);
            expect(step.node ?? "$0").toBe(node === "$0" ? "$0" : node);
          } else {
            expect(["paxos.accepted", "paxos.promised"]).toContain(step.after);
            expect(step.node).toBe(node);
            expect(node).toMatch(/^a\d$/);
          }
          expect(f.atMs + step.withinMs!).toBe(s.durationMs);
        }
      }
    }
    expect(aimed).toBeGreaterThan(0);
    const listed = scenarioAsRun(s, 14);
    expect((await runScenario(listed, { seed: 14 })).traceHash).toBe((await runScenario(s, { seed: 14 })).traceHash);
  });

  it("3pc-random-crashes: crashes alone — of the coordinator, the participants and the clients, some aimed at a message or an event — in the fault phase", () => {
    const s = loadScenario("3pc-random-crashes");
    const seen = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const faults = scenarioAsRun(s, seed).faults;
      const nodes = workloadDef("three-phase-commit").seedNodes!(s.workload.params, Rng.root(seed));
      for (const f of faults) {
        expect(f).toEqual(expect.objectContaining({ kind: "crash", onlyIfUp: true }));
        const node = (f as { node: string }).node;
        if (node !== "$0") expect(nodes).toContain(node);
        seen.add(node === "$0" ? "aimed at whoever" : node.replace(/\d+$/, ""));
        if (f.when !== undefined) seen.add(`after ${f.when[0]!.after}`);
        expect(f.atMs).toBeLessThan(11_000);
      }
    }
    expect([...seen].sort()).toEqual(expect.arrayContaining(["after 3pc.vote", "after deliver", "after send", "aimed at whoever", "c", "coordinator", "p"]));
  });

  it("every swarm draws each fault kind of the vocabulary or says why not", () => {
    for (const name of ["paxos-random-faults", "multipaxos-random-faults", "multipaxos-catch-up", "2pc-random-faults", "3pc-random-faults", "3pc-random-crashes"]) {
      const nemesis = loadScenario(name).nemesis!.params as { kinds: string[]; omitted?: Record<string, string> };
      expect([...nemesis.kinds, ...Object.keys(nemesis.omitted ?? {})].sort(), name).toEqual([...PROTOCOL_SWARM_KINDS].sort());
    }
  });

  it("reorder: some links delay a share of their datagrams past newer ones, undone after the hold; a swarm's omitted kinds are what explore prints as left out", async () => {
    const s = loadScenario("2pc-random-faults");
    const reorders = Array.from({ length: 40 }, (_, i) => scenarioAsRun(s, i + 1).faults).flat().filter((f) => f.kind === "reorder");
    expect(reorders.length).toBeGreaterThan(0);
    for (const f of reorders) {
      expect(f).toEqual(expect.objectContaining({ oneWay: true, forMs: expect.any(Number) }));
      const { rate, extraDelayMs } = f as { rate: number; extraDelayMs: number };
      expect(rate).toBeGreaterThanOrEqual(0.05);
      expect(rate).toBeLessThanOrEqual(0.5);
      expect(extraDelayMs).toBeGreaterThanOrEqual(5);
      expect(extraDelayMs).toBeLessThanOrEqual(500);
    }
    const crashes = loadScenario("3pc-random-crashes");
    const omitted = (crashes.nemesis!.params as { omitted: Record<string, string> }).omitted;
    expect(leftOutOf(crashes).map((l) => l.fault).sort()).toEqual(Object.keys(omitted).sort());
    expect(leftOutOf(crashes).find((l) => l.fault === "reorder")!.why).toMatch(/false suspicion/);
    expect(leftOutOf(loadScenario("2pc-random-faults"))).toEqual([]);
  });

  it("the multipaxos swarm skews clocks within the lease's drift margin, and cuts a drifting leader off ($leader)", () => {
    const s = loadScenario("multipaxos-random-faults");
    const rates: number[] = [];
    let driftCuts = 0;
    for (let seed = 1; seed <= 30; seed++) {
      for (const f of scenarioAsRun(s, seed).faults) {
        if (f.kind === "clock") rates.push(f.rate);
        if (f.kind === "cut" && f.from[0] === "$leader") driftCuts++;
      }
    }
    expect(Math.min(...rates)).toBeCloseTo(0.7);
    expect(Math.max(...rates)).toBeCloseTo(1.3);
    expect(rates.every((r) => r >= 0.7 - 1e-9 && r <= 1.3 + 1e-9)).toBe(true);
    expect(driftCuts).toBeGreaterThan(0);
  });

  it("multipaxos-catch-up: every fault is over by the end of the fault phase, which closes with one replica left behind (down or cut off) — drawn on its own stream", () => {
    const s = loadScenario("multipaxos-catch-up");
    const doc = scenarioToDocument(s);
    const without = parseScenario({ ...doc, nemesis: { ...(doc.nemesis as object), straggler: false } }, "s.json");
    const ways = new Set<string>();
    for (let seed = 1; seed <= 30; seed++) {
      const faults = scenarioAsRun(s, seed).faults;
      const straggler = faults[faults.length - 1]!;
      const others = faults.slice(0, -1);
      expect(others, `seed ${seed}`).toEqual(scenarioAsRun(without, seed).faults);
      for (const f of others) expect(f.atMs + (f.when?.[0]?.withinMs ?? 0) + (f.forMs ?? 0), `seed ${seed}`).toBeLessThanOrEqual(s.durationMs);
      expect(straggler.atMs + straggler.forMs!).toBe(s.durationMs);
      expect(straggler.forMs).toBeGreaterThanOrEqual(100);
      expect(straggler.forMs).toBeLessThanOrEqual(600);
      const replicas = workloadDef("multi-paxos").seedNodes!(s.workload.params, Rng.root(seed)).filter((n) => n.startsWith("r"));
      if (straggler.kind === "crash") {
        expect(replicas).toContain(straggler.node);
        ways.add("down");
      } else {
        expect(straggler.kind).toBe("cut");
        const cut = straggler as { from: string[]; to: string[] };
        expect(cut.from).toHaveLength(1);
        expect(replicas).toContain(cut.from[0]);
        expect(cut.to).not.toContain(cut.from[0]);
        ways.add("cut off");
      }
    }
    expect([...ways].sort()).toEqual(["cut off", "down"]);
  });

  it("bad parameters are refused by name", () => {
    const doc = scenarioToDocument(loadScenario("paxos-random-faults"));
    const nemesis = (extra: object) => parseScenario({ ...doc, nemesis: { ...(doc.nemesis as object), ...extra } }, "s.json");
    expect(() => nemesis({})).not.toThrow();
    expect(() => nemesis({ aimedKinds: [] })).toThrow(/nemesis\.aimedKinds: "crash-after" needs the trace kinds/);
    expect(() => nemesis({ crashable: ["a9"] })).toThrow(/nemesis\.crashable: expected a non-empty list of node names/);
    expect(() => nemesis({ gapMsMax: [800, 50] })).toThrow(/nemesis\.gapMsMax: expected \[lo, hi\]/);
    expect(() => nemesis({ straggler: "yes" })).toThrow(/nemesis\.straggler: expected true or false, got "yes"/);
    expect(() => nemesis({ kinds: ["delay"] })).toThrow(/nemesis\.kinds: expected a non-empty list of crash, client-crash, crash-after/);
    expect(() => nemesis({ kinds: ["crash"], omitted: {} })).toThrow(/nemesis\.omitted: a swarm draws every fault kind or says why not; missing: client-crash, crash-after/);
    expect(() => nemesis({ omitted: { crash: "no" } })).toThrow(/nemesis\.omitted: "crash" is also in kinds/);
    expect(() => nemesis({ omitted: { "client-crash": " " } })).toThrow(/nemesis\.omitted\.client-crash: expected a sentence/);
    expect(() => nemesis({ omitted: { quake: "x" } })).toThrow(/nemesis\.omitted: unknown fault kind "quake"/);
    expect(() => nemesis({ messageKinds: [] })).toThrow(/nemesis\.messageKinds: "crash-on-message" needs the message types/);
    expect(() => nemesis({ leader: "r1" })).toThrow(/nemesis\.leader: expected a role reference like "\$leader"/);
    expect(() => nemesis({ clockDriftPct: 100 })).toThrow(/nemesis\.clockDriftPct: expected a whole number in \[1, 99\]/);
  });
});
