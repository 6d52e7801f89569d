import { describe, expect, it } from "vitest";
import { checkersOf, runNamed } from "../commit-scenarios.js";

describe("3PC scenarios (book 2.1.2)", () => {
  it("3pc-coordinator-crash-nonblocking: under 2PC's blocking crash the participants abort on their own within ~1.3 s", async () => {
    const r = await runNamed("3pc-coordinator-crash-nonblocking");
    expect(r.verdict).toBe("pass");
    expect(r.traceHash).toBe("96f7aff9dc260217");
    expect(r.narrative.join("\n")).toMatch(/applied: p1 abort at 12\d\d\.\d ms \(by termination\), p\d abort at 12\d\d\.\d ms \(by backup\)/);
  });

  it("3pc-partition-inconsistency fails commit.atomicity alone: the cut-off p1 commits, p2 and p3 abort", async () => {
    const r = await runNamed("3pc-partition-inconsistency");
    expect(checkersOf(r)).toEqual(["commit.atomicity"]);
    expect(r.traceHash).toBe("fb18a7f35228bcb5");
    expect(r.violations[0]!.message).toMatch(/aborted at p\d .* but committed at p1 .*by termination/);
  });

  it("a swarm seed explore found breaks atomicity under partitions; the same seed is deterministic", async () => {
    const a = await runNamed("3pc-random-faults", 13);
    expect(checkersOf(a)).toContain("commit.atomicity");
    expect(a.verdict).toBe("expected");
    expect((await runNamed("3pc-random-faults", 13)).traceHash).toBe(a.traceHash);
    expect((await runNamed("3pc-random-faults", 1)).traceHash).toBe("efc256bd5e918a7c");
  });

  it("3pc-crashes-keep-atomicity: crashes alone, a total failure, the coordinator's logged abort — every participant aborts; the twin that decides without the coordinator splits", async () => {
    const r = await runNamed("3pc-crashes-keep-atomicity");
    expect(r.verdict).toBe("pass");
    expect(r.traceHash).toBe("823e587eec3951f0");
    expect(r.narrative.join("\n")).toMatch(/applied: p3 abort at 2103\.3 ms \(by abort\), p1 abort at 2202\.0 ms \(by abort\), p2 abort at 2202\.0 ms \(by abort\)/);
    const twin = await runNamed("3pc-crashes-keep-atomicity", undefined, "recovered-ignores-coordinator");
    expect(checkersOf(twin)).toEqual(["commit.atomicity"]);
    expect(twin.violations[0]!.message).toMatch(/committed at p1 .*by termination.* but aborted at p2/);
  });

  it("the broken twins are caught: commit-uncertain, and the bare book timeouts under crashes alone", async () => {
    expect(checkersOf(await runNamed("3pc-random-crashes", 1, "commit-uncertain"))).toContain("commit.atomicity");
    expect(checkersOf(await runNamed("3pc-random-crashes", 50, "book-timeouts"))).toContain("commit.atomicity");
    expect(checkersOf(await runNamed("3pc-random-crashes", 50))).toEqual([]);
    expect(checkersOf(await runNamed("3pc-random-crashes", 1))).toEqual([]);
  });
});
