import { describe, expect, it } from "vitest";
import { loadScenario } from "../../../src/cli/scenario-files.js";
import { runScenario } from "../../../src/scenario/run.js";

/**
 * The Paxos scenarios pass or fail exactly as their descriptions say, deterministically.
 * Golden hashes: any change to what these seeds produce shows up here, in review; update them in
 * the same commit that means to change the runs, and say why.
 */
const GOLDEN: Record<string, string> = {
  "paxos-basic": "4d2f7de1f88aae68",
  "paxos-acceptor-crash": "218b3f14bd30513d",
  "paxos-dueling-proposers": "2cf3f797821b07f7",
  "paxos-acceptor-crash-after-promise": "cf1bbfff3255fe27",
  "paxos-learner-restart": "7fac1e694acc922a",
};

const run = (name: string, variant?: string, seed?: number) => runScenario(loadScenario(name, variant), seed === undefined ? {} : { seed });

describe("paxos scenarios", () => {
  it("paxos-basic: p2's promises report [1, A] and it proposes A; the broken twin that ignores them chooses B too", async () => {
    const ok = await run("paxos-basic");
    expect(ok.violations).toEqual([]);
    expect(ok.narrative.some((l) => l.includes("p2 proposes [2, A], adopting the value accepted at ballot 1"))).toBe(true);
    const broken = await run("paxos-basic", "ignore-promised-values");
    expect(broken.verdict).toBe("fail");
    expect(broken.violations.map((v) => v.checker)).toContain("paxos.agreement");
  });

  it("paxos-acceptor-crash: fsync before answering keeps it safe; answering first lets two values be chosen", async () => {
    expect((await run("paxos-acceptor-crash")).violations).toEqual([]);
    const broken = await run("paxos-acceptor-crash", "promise-before-fsync");
    expect(broken.violations.map((v) => v.checker)).toEqual(["paxos.agreement"]);
    expect(broken.violations[0]!.message).toContain("two values chosen: A at ballot 1");
  });

  it("paxos-acceptor-crash-after-promise: a promise is durable before it leaves; one answered first and forgotten in a crash lets two values be chosen", async () => {
    const ok = await run("paxos-acceptor-crash-after-promise");
    expect(ok.violations).toEqual([]);
    expect(ok.counts.crash).toBe(1);
    expect(ok.narrative.join("\n")).toContain("learners: l1 learned B.");
    const broken = await run("paxos-acceptor-crash-after-promise", "promise-before-fsync");
    expect(broken.violations.map((v) => v.checker)).toEqual(["paxos.agreement"]);
    expect(broken.violations[0]!.message).toContain("two values chosen: A at ballot 1 (accepted by a1, a2) and B at ballot 2 (accepted by a2, a3)");
  });

  it("paxos-learner-restart: a learner down while the value is chosen learns it after its restart; told only once, it never does (paxos.liveness, at a run come to rest)", async () => {
    const ok = await run("paxos-learner-restart");
    expect(ok.violations).toEqual([]);
    expect(ok.narrative.join("\n")).toContain("learners: l1 learned A.");
    const broken = await run("paxos-learner-restart", "announce-once");
    expect(broken.violations.map((v) => v.checker)).toEqual(["paxos.liveness"]);
    expect(broken.violations[0]!.message).toContain("l1 learned no value the run came to rest");
  });

  it("paxos-dueling-proposers: rounds pre-empt each other until the distinguished proposer ends the duel", async () => {
    const r = await run("paxos-dueling-proposers");
    expect(r.violations).toEqual([]);
    expect(r.counts["paxos.preempted"] ?? 0).toBeGreaterThanOrEqual(5);
    expect(r.counts["paxos.proposer.deferred"]).toBe(1);
    expect(r.counts["paxos.learned"]).toBe(1);
  });

  it("golden seeds keep their pinned hashes, twice in one process", async () => {
    for (const [name, hash] of Object.entries(GOLDEN)) {
      expect((await run(name)).traceHash, name).toBe(hash);
      expect((await run(name)).traceHash, name).toBe(hash);
    }
  });

  it("paxos-random-faults: seeds 1–40 pass; each broken twin is found", async () => {
    for (let seed = 1; seed <= 40; seed++) expect((await run("paxos-random-faults", undefined, seed)).violations, `seed ${seed}`).toEqual([]);
    // The first seeds each twin fails on (see docs/protocols.md).
    expect((await run("paxos-random-faults", "promise-before-fsync", 84)).violations.map((v) => v.checker)).toContain("paxos.agreement");
    expect((await run("paxos-random-faults", undefined, 84)).violations).toEqual([]);
    expect((await run("paxos-random-faults", "ignore-promised-values", 1)).verdict).toBe("fail");
    expect((await run("paxos-random-faults", "announce-once", 48)).violations.map((v) => v.checker)).toEqual(["paxos.liveness"]);
    expect((await run("paxos-random-faults", undefined, 48)).violations).toEqual([]);
    const unwritten = await run("paxos-random-faults", "learn-unwritten", 23);
    expect(unwritten.violations.map((v) => v.checker)).toEqual(["paxos.learned-durable"]);
    expect(unwritten.violations[0]!.message).toMatch(/learner l1 reported "v2" learned \(durable\) at [0-9.]+ ms, but started again with nothing learned on its disk/);
    expect((await run("paxos-random-faults", undefined, 23)).violations).toEqual([]);
  }, 60_000);

  it("bad input is one clear line", () => {
    expect(() => loadScenario("paxos-basic", "sloppy")).toThrow(/workload.variant: unknown paxos variant "sloppy" \(known: correct, promise-before-fsync, ignore-promised-values, announce-once, learn-unwritten\)/);
  });
});
