import { describe, expect, it } from "vitest";
import { checkersOf, runNamed } from "../commit-scenarios.js";

describe("3PC scenarios (book 2.1.2)", () => {
  it("3pc-coordinator-crash-nonblocking: under 2PC's blocking crash the participants abort on their own within ~1.3 s", async () => {
    const r = await runNamed("3pc-coordinator-crash-nonblocking");
    expect(r.verdict).toBe("pass");
    expect(r.traceHash).toBe("4e32985e03e5ed9e");
    expect(r.narrative.join("\n")).toMatch(/applied: p\d abort at 14\d\d\.\d ms \(by timeout\)/);
  });

  it("3pc-partition-inconsistency fails commit.atomicity alone: the cut-off p1 commits, p2 and p3 abort", async () => {
    const r = await runNamed("3pc-partition-inconsistency");
    expect(checkersOf(r)).toEqual(["commit.atomicity"]);
    expect(r.traceHash).toBe("b5dd06d48c335f97");
    expect(r.violations[0]!.message).toMatch(/aborted at p\d .* but committed at p1 .*by timeout/);
  });

  it("a swarm seed explore found breaks atomicity under partitions; the same seed is deterministic", async () => {
    const a = await runNamed("3pc-random-faults", 90);
    expect(checkersOf(a)).toContain("commit.atomicity");
    expect((await runNamed("3pc-random-faults", 90)).traceHash).toBe(a.traceHash);
    expect((await runNamed("3pc-random-faults", 1)).traceHash).toBe("8eb4bd6b406657b3");
  });

  it("the broken twins are caught: commit-uncertain, and the bare book timeouts under crashes alone", async () => {
    expect(checkersOf(await runNamed("3pc-random-crashes", 7, "commit-uncertain"))).toContain("commit.atomicity");
    expect(checkersOf(await runNamed("3pc-random-crashes", 147, "book-timeouts"))).toContain("commit.atomicity");
    expect(checkersOf(await runNamed("3pc-random-crashes", 147))).toEqual([]);
    expect(checkersOf(await runNamed("3pc-random-crashes", 7))).toEqual([]);
  });
});
