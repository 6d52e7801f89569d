/**
 * How much of a run its checkers judged (src/scenario/judged.ts) and `--strict`: a pass that
 * left a stretch unjudged, or a checker that read no event, says so on its verdict line and
 * fails under --strict (exit 1 with the reason).
 */
import { describe, expect, it } from "vitest";
import type { Checker, UnknownVerdict } from "../../src/check/checker.js";
import { describeJudged, formatFraction, judgedSummary, strictFailure } from "../../src/scenario/judged.js";
import { runScenario } from "../../src/scenario/run.js";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { lastJson, zksim } from "../helpers/cli.js";

const checker = (name: string, kinds: string[], alarm = false) => ({ name, kinds, ...(alarm ? { alarm } : {}) }) as unknown as Pick<Checker, "name" | "kinds" | "alarm">;
const unknown = (name: string, fromMs: number, toMs: number): UnknownVerdict => ({ checker: name, reason: "budget", fromMs, toMs });

describe("judgedSummary", () => {
  it("merges a checker's overlapping stretches, clamps them to the run, and names the checkers that read nothing", () => {
    const j = judgedSummary(
      [checker("lin", ["client.op"]), checker("zab", ["zab.commit"]), checker("lock", ["recipe.lock"]), checker("flags", ["zab.flag"], true)],
      { "client.op": 10, "zab.commit": 3 },
      [unknown("lin", 100, 400), unknown("lin", 300, 500), unknown("lin", 900, 5000)],
      1000,
    );
    // lin: [100,500] ∪ [900,1000] = 500 ms unjudged of 3 × 1000 (lin, zab, and the alarm flags).
    expect(j).toEqual({ checkers: 4, idle: ["lock"], checkerMs: 3000, unjudgedMs: 500, fraction: 2500 / 3000 });
    expect(describeJudged(j)).toBe("judged 83.3% of 3 checkers' time; 1 checker read nothing (lock)");
    expect(strictFailure(j, [unknown("lin", 100, 400)])).toMatch(/^--strict: 1 stretch not judged \(lin; 500 ms of 3000 ms checker-time\); checker that read no event: lock$/);
  });

  it("a run judged in full has no strict failure, and 99.99% never rounds up to 100%", () => {
    const j = judgedSummary([checker("zab", ["zab.commit"])], { "zab.commit": 1 }, [], 1000);
    expect(j.fraction).toBe(1);
    expect(strictFailure(j, [])).toBeUndefined();
    expect(formatFraction(0.99999)).toBe("99.9%");
  });

  it("a real run: a checker that cannot judge a stretch lowers the fraction; an alarm that heard nothing does not", async () => {
    const scenario = loadScenario("zab-random-faults");
    const blind = (): Checker => ({
      name: "test.blind",
      kinds: ["zab.commit"],
      onEvent() {},
      finish: () => [],
      unknowns: () => [{ checker: "test.blind", reason: "test: judges nothing after 1 s", fromMs: 1000, toMs: 1e12 }],
    });
    const r = await runScenario(scenario, { seed: 2, extraCheckers: [blind] });
    expect(r.verdict).toBe("pass");
    expect(r.judged.idle).toEqual([]); // zab.flags is an alarm: its silence is its pass
    expect(r.judged.unjudgedMs).toBeCloseTo(r.virtualMs - 1000, 3);
    expect(r.judged.fraction).toBeLessThan(1);
    expect(strictFailure(r.judged, r.unknown)).toMatch(/test\.blind/);
  });
});

describe("run and explore --strict", () => {
  it("run: the verdict line shows the fraction; --strict fails a pass whose checker read nothing (exit 1, the reason on stderr)", async () => {
    const plain = await zksim("run", "bug-1419", "--seed", "1");
    expect(plain.status).toBe(0);
    // bug-1419's client never completes an op nor changes state: client.history-fields reads nothing either.
    expect(plain.stdout).toMatch(/^verdict: PASS \(judged 100% of \d+ checkers' time; 2 checkers read nothing \(client\.session-order, client\.history-fields\)\)$/m);
    const strict = await zksim("run", "bug-1419", "--seed", "1", "--strict");
    expect(strict.status).toBe(1);
    expect(strict.stdout).toMatch(/^verdict under --strict: FAIL/m);
    expect(strict.stderr.trim()).toBe("zksim: --strict: checkers that read no event: client.session-order, client.history-fields");
    const json = await zksim("run", "bug-1419", "--seed", "1", "--strict", "--json");
    expect(json.status).toBe(1);
    expect(lastJson(json)).toMatchObject({ verdict: "pass", judged: { idle: ["client.session-order", "client.history-fields"] }, strict: expect.stringMatching(/^--strict/) });
    const full = await zksim("run", "paxos-basic", "--strict");
    expect(full.status, full.stdout).toBe(0);
  });

  it("explore: --strict turns such seeds into failures with a replay line that keeps --strict", async () => {
    const r = await zksim("explore", "bug-1419", "--seeds", "2", "--workers", "1", "--strict", "--json");
    expect(r.status).toBe(1);
    const report = lastJson<{ failures: { checker: string; replay: string }[]; judged: { idle: Record<string, number> } }>(r);
    expect(report.failures.map((f) => f.checker)).toEqual(["strict", "strict"]);
    expect(report.failures[0]!.replay).toBe("zksim run bug-1419 --seed 1 --strict");
    expect(report.judged.idle).toEqual({ "client.session-order": 2, "client.history-fields": 2 });
    const lax = await zksim("explore", "bug-1419", "--seeds", "2", "--workers", "1");
    expect(lax.status).toBe(0);
    expect(lax.stdout).toMatch(/^judged: 100% of checker-time \(mean over seeds; every seed judged in full\); checkers that read no event: client\.session-order on 2 seeds, client\.history-fields on 2 seeds$/m);
  });
});
