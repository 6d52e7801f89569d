import { describe, expect, it } from "vitest";
import { loadScenario } from "../../../src/cli/scenario-files.js";
import { runScenario } from "../../../src/scenario/run.js";
import { checkersOf, runNamed } from "../commit-scenarios.js";

describe("2PC scenarios (book 2.1.1)", () => {
  it("2pc-commit: three Yes votes, Commit everywhere, the client hears commit", async () => {
    const r = await runNamed("2pc-commit");
    expect(r.verdict).toBe("pass");
    expect(r.traceHash).toBe("3c0442669372b7e0");
    expect(r.narrative.join("\n")).toMatch(/votes .*p1 Yes.*coordinator decided commit.*c1 heard commit/);
  });

  it("2pc-rollback: p2 votes No, everyone rolls back", async () => {
    const r = await runNamed("2pc-rollback");
    expect(r.verdict).toBe("pass");
    expect(r.traceHash).toBe("df6bb16d07ea87f5");
    expect(r.narrative.join("\n")).toMatch(/p2 No \(execution failed\).*decided rollback.*c1 heard rollback/);
  });

  it("2pc-coordinator-crash-blocks fails commit.blocking alone, naming each in-doubt participant, its lock and the down coordinator", async () => {
    const r = await runNamed("2pc-coordinator-crash-blocks");
    expect(checkersOf(r)).toEqual(["commit.blocking"]);
    expect(r.traceHash).toBe("3ebd1fcf8a519494");
    const messages = r.violations.map((v) => v.message);
    for (const p of ["p1", "p2", "p3"]) expect(messages.some((m) => m.includes(`${p} was in doubt about c1-1`))).toBe(true);
    expect(messages[0]).toMatch(/holding the lock on x, waiting for the coordinator's decision \(coordinator was down from 0\.250 s to 20\.250 s\); its client c1/);
  });

  it("2pc-partial-commit: p1 commits at once, p2 and p3 only after the coordinator recovers its logged decision; atomicity holds", async () => {
    const r = await runNamed("2pc-partial-commit");
    expect(r.verdict).toBe("pass");
    expect(r.traceHash).toBe("ccb026f269771f9c");
    const story = r.narrative.join("\n");
    expect(story).toMatch(/p1 commit at 16\d\.\d ms \(by coordinator\), p2 commit at 32\d\d\.\d ms/);
    expect(story).toMatch(/recovered from its log: .*"decisions":\[\["c1-1","commit"\]\]/);
    expect(story).toMatch(/meanwhile: from 16\d\.\d ms to 32\d\d\.\d ms p1 had applied commit to c1-1 and p2, p3 had not: a reader saw x = 1 at p1 while p2, p3 still held x's lock/);
  });

  it("2pc-cooperative-termination: p2 and p3, in doubt while the coordinator is down, learn Commit from p1 within about a second; asking the coordinator alone, they block for its 12 s down", async () => {
    const r = await runNamed("2pc-cooperative-termination");
    expect(r.verdict).toBe("pass");
    expect(r.traceHash).toBe("a0418df65dd6f95a");
    expect(r.narrative.join("\n")).toMatch(/p1 commit at 16\d\.\d ms \(by coordinator\), p2 commit at 11\d\d\.\d ms \(by peer\), p3 commit at 11\d\d\.\d ms \(by peer\)/);
    const book = loadScenario("2pc-cooperative-termination");
    const coordinatorOnly = await runScenario({ ...book, workload: { ...book.workload, params: { ...book.workload.params, termination: "coordinator" } } });
    expect(checkersOf(coordinatorOnly)).toEqual(["commit.blocking"]);
    expect(coordinatorOnly.violations.map((v) => v.message).join("\n")).toMatch(/p2 was in doubt about c1-1 for 11\.\d+ s .*coordinator was down from 0\.180 s to 12\.000 s/);
  });

  it("the same seed gives the same trace twice (a swarm seed)", async () => {
    const a = await runNamed("2pc-random-faults", 3);
    const b = await runNamed("2pc-random-faults", 3);
    expect(a.traceHash).toBe(b.traceHash);
    expect(a.traceHash).toBe("da1354d6ddc11103");
  });

  it("each broken twin is caught by its checker on a seed explore found", async () => {
    const cases: [variant: string, seed: number, checker: string][] = [
      ["abort-in-doubt", 3, "commit.atomicity"],
      ["commit-on-timeout", 2, "commit.validity"],
      ["decide-before-log", 29, "commit.durability"],
      ["vote-before-log", 12, "commit.durability"],
      ["no-presumed-abort", 13, "commit.liveness"],
    ];
    for (const [variant, seed, checker] of cases) {
      expect(checkersOf(await runNamed("2pc-random-faults", seed, variant)), variant).toContain(checker);
      expect(checkersOf(await runNamed("2pc-random-faults", seed)), `${variant} seed without the twin`).not.toContain(checker);
    }
  });
});
