/**
 * property: the public property-testing API (src/property/) end to end — generated scenarios
 * pass on the correct build; a canary build fails, shrinks to a small case, and the written
 * replay file reproduces that failure with the same trace hash; and every generated scenario is
 * one the CLI's parser accepts.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  assertSimulation,
  DISRUPTION_KINDS,
  faultScheduleArbitrary,
  healedAtMs,
  scenarioArbitrary,
  scenarioDocumentOf,
  scenarioPartsArbitrary,
  SimulationFailure,
} from "../../src/property/index.js";
import { parseScenario } from "../../src/scenario/parse.js";
import { parseFaultSchedule } from "../../src/sim/faults.js";
import { scenarioToDocument } from "../../src/scenario/replay-file.js";
import { readReplayFile } from "../../src/cli/replay.js";
import { compareReplay, runReplayCase } from "../../src/scenario/replay.js";

const outDir = mkdtempSync(join(tmpdir(), "zksim-property-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("property: simulation property over generated clusters, faults and workloads", () => {
  it("correct build: 12 generated scenarios (standalone, 3 and 5 voters, every fault kind) pass every checker", async () => {
    await assertSimulation(scenarioArbitrary(), { numRuns: 12, seed: 1, outDir });
  }, 60_000);

  it("canary ack-before-fsync: the property fails, shrinks, writes a replay file, and the file reproduces (same trace hash)", async () => {
    // Standalone, crashes and slow fsyncs: acknowledged-but-unsynced writes are lost at a crash.
    // The linearizability checker is left out here only for time: on such a broken history its
    // search can run for minutes, and zk.standalone-durability is the checker this canary targets.
    // zk.durable-reply is left out too: it sees the early reply itself, with no fault, so the
    // shrinker would drop the crash this test is about (the loss it causes).
    const checkers = parseScenario({ name: "d", durationMs: 1, workload: { kind: "zk", script: "client-traffic" } }, "d").checkers.filter((c) => c !== "client.linearizability" && c !== "zk.durable-reply");
    const arb = scenarioArbitrary({ name: "canary", cluster: { sizes: [1] }, faults: { kinds: ["crash", "slow-fsync"] }, checkers });
    const failure = await assertSimulation(arb, { numRuns: 20, seed: 1, outDir, canary: "ack-before-fsync", maxShrinkRuns: 60 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(SimulationFailure);
    const f = failure as SimulationFailure;
    expect(f.message).toContain(`replay: zksim replay ${f.replayFile}`);
    expect(f.message).toContain("fast-check seed 1");
    expect(f.result.violations.map((v) => v.checker)).toContain("zk.standalone-durability");
    // Shrunk: one crash and its restart is all it takes (the slow fsync may stay or go).
    const kinds = f.replayCase.scenario.faults.map((x) => x.kind);
    console.log(`shrunk after ${f.numShrinks} shrinks to ${kinds.length} fault entries (${kinds.join(", ")}); ${f.replayCase.scenario.description}`);
    expect(kinds.filter((k) => k === "crash")).toHaveLength(1);
    expect(kinds.length).toBeLessThanOrEqual(4);
    // The file is a replay/1 case that `zksim replay` re-executes to the same failure.
    expect(JSON.parse(readFileSync(f.replayFile, "utf8")).zksim).toBe("replay/1");
    const c = readReplayFile(f.replayFile);
    expect(c.canary).toBe("ack-before-fsync");
    const again = await runReplayCase(c);
    expect(again.traceHash).toBe(c.expected.traceHash);
    expect(compareReplay(c, again).reproduced).toBe(true);
    expect(again.verdict).toBe("fail");
  }, 60_000);

  it("arbitraries: every generated scenario is accepted by the CLI's parser, and its faults are healed by the window's end", () => {
    const seen = new Set<string>();
    for (const parts of fc.sample(scenarioPartsArbitrary(), { seed: 7, numRuns: 150 })) {
      const doc = JSON.parse(JSON.stringify(scenarioDocumentOf(parts)));
      const scenario = parseScenario(doc, "generated");
      expect(parseScenario(scenarioToDocument(scenario), "round trip")).toEqual(scenario);
      expect(healedAtMs(parts.disruptions)).toBeLessThanOrEqual(parts.window.endMs);
      for (const d of parts.disruptions) {
        seen.add(d.kind);
        expect(d.atMs).toBeGreaterThanOrEqual(parts.window.startMs);
      }
    }
    expect([...seen].sort()).toEqual([...DISRUPTION_KINDS].sort());
  });

  it("arbitraries: fault schedules alone parse for any node set, and the same seed generates the same schedule", () => {
    const nodes = { servers: ["s1", "s2", "s3"], clients: ["c1"] };
    const arb = faultScheduleArbitrary(nodes, { startMs: 500, endMs: 9000 }, { maxDisruptions: 6 });
    for (const faults of fc.sample(arb, { seed: 3, numRuns: 100 })) {
      expect(parseFaultSchedule(JSON.parse(JSON.stringify(faults)), [...nodes.servers, ...nodes.clients])).toHaveLength(faults.length);
      expect(faults.every((f) => f.atMs >= 500 && f.atMs <= 9000)).toBe(true);
    }
    expect(fc.sample(arb, { seed: 3, numRuns: 5 })).toEqual(fc.sample(arb, { seed: 3, numRuns: 5 }));
  });
});
