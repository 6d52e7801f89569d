import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { BUG_ZOO } from "../../src/scenario/bug-zoo.js";
import { fieldNamed, type TraceEvent } from "../../src/sim/trace.js";

describe("bug zoo: scenarios", () => {
  for (const bug of BUG_ZOO) {
    it(`${bug.scenario}: same seed, same trace, with and without ${bug.id}`, async () => {
      const scenario = loadScenario(bug.scenario);
      for (const bugs of [[], [bug.id]]) {
        const a = await runScenario(scenario, { seed: scenario.defaultSeed, bugs });
        const b = await runScenario(scenario, { seed: scenario.defaultSeed, bugs });
        expect(b.traceHash, `${bug.scenario} ${bugs.join(",")}`).toBe(a.traceHash);
      }
    });
  }

  it("every bug has its own scenario, and its scenario is tagged as one", () => {
    expect(new Set(BUG_ZOO.map((b) => b.scenario)).size).toBe(BUG_ZOO.length);
    for (const bug of BUG_ZOO) expect(loadScenario(bug.scenario).tags, bug.scenario).toContain("bug");
  });

  it("bug-4394 without the bug still crosses the window: a COMMIT reaches the rejoining learner between NEWLEADER and UPTODATE", async () => {
    const events: TraceEvent[] = [];
    await runScenario(loadScenario("bug-4394"), { onTraceEvent: (e) => e.kind === "deliver" && e.node === "s2" && events.push(e) });
    const types = events.map((e) => e.detail);
    const lastNewLeader = types.lastIndexOf("NEWLEADER");
    const upToDate = types.indexOf("UPTODATE", lastNewLeader);
    expect(lastNewLeader).toBeGreaterThan(0);
    expect(types.slice(lastNewLeader + 1, upToDate)).toContain("COMMIT");
  });

  it("bug-4882 without the bug: a follower whose log refused a txn it had applied says its tree went back to its disk, then logs the txn from the DIFF", async () => {
    const s1 = (e: TraceEvent): boolean => e.node === "s1" && (e.kind === "zab.role.ended" || e.kind === "zab.recovered" || e.kind === "zab.deliver" || (e.kind === "disk.append" && fieldNamed(e, "record") !== undefined));
    const events: TraceEvent[] = [];
    const r = await runScenario(loadScenario("bug-4882"), { onTraceEvent: (e) => s1(e) && events.push(e) });
    expect(r.verdict).toBe("pass");
    const ended = events.findIndex((e) => e.kind === "zab.role.ended");
    const recovered = events.findIndex((e, i) => i > ended && e.kind === "zab.recovered");
    expect(ended).toBeGreaterThan(0);
    expect(recovered).toBeGreaterThan(ended);
    // The txn applied before the refused append (/c) is above the disk's tree, delivered again after the reload and logged.
    const back = BigInt(fieldNamed(events[recovered]!, "lastZxid") as string);
    const before = events.slice(0, ended).filter((e) => e.kind === "zab.deliver").map((e) => BigInt(fieldNamed(e, "zxid") as string));
    const lost = before.filter((z) => z > back);
    expect(lost.length).toBeGreaterThan(0);
    const after = events.slice(recovered);
    for (const z of lost) {
      expect(after.some((e) => e.kind === "zab.deliver" && BigInt(fieldNamed(e, "zxid") as string) === z)).toBe(true);
      expect(after.some((e) => e.kind === "disk.append" && BigInt(fieldNamed(e, "record") as string) === z)).toBe(true);
    }
  });
});
