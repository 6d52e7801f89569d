/**
 * `zksim bench recipes --profile` (cli/bench-profile.ts): the sampled self time of a run, by
 * area (each checker's file, the trace, the kernel, the server…) and by function.
 */
import { describe, expect, it } from "vitest";
import { MAX_SAMPLE_US, areaOf, formatProfile, profileSeeds, sourceFile, summarizeProfile } from "../../src/cli/bench-profile.js";
import { loadScenario } from "../../src/cli/scenario-files.js";

describe("cli: bench profile", () => {
  it("reads a function's file from its URL, compiled or source", () => {
    expect(sourceFile("file:///home/u/zksim/dist/check/kernel/connection-fifo.js")).toBe("check/kernel/connection-fifo.ts");
    expect(sourceFile("file:///home/u/zksim/src/sim/trace.ts")).toBe("sim/trace.ts");
    expect(sourceFile("node:internal/process/task_queues")).toBeUndefined();
  });

  it("charges a function to its file's area", () => {
    expect(areaOf("check/zab/leadership.ts", "onEvent")).toBe("check: zab/leadership");
    expect(areaOf("check/event-reader.ts", "intField")).toBe("check: shared (readers, replica log, floors)");
    expect(areaOf("sim/trace.ts", "recordHashed")).toBe("trace: record, hash, dispatch");
    expect(areaOf("sim/simulator.ts", "run")).toBe("kernel (sim/)");
    expect(areaOf("zk/server/data-tree.ts", "createNode")).toBe("zk: server");
    expect(areaOf("zk/client/zoo-keeper.ts", "submit")).toBe("zk: client");
    expect(areaOf(undefined, "(garbage collector)")).toBe("(garbage collector)");
  });

  it("charges a sample at most MAX_SAMPLE_US: a second off the CPU between two samples is nobody's self time", () => {
    const frame = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 0 } });
    const profile = {
      nodes: [frame(1, "walk", "file:///z/dist/zk/server/data-tree.js"), frame(2, "recordHashed", "file:///z/dist/sim/trace.js")],
      startTime: 0,
      endTime: 1_000_600,
      samples: [2, 1, 2, 2],
      timeDeltas: [0, 200, 1_000_000, 200],
    };
    const p = summarizeProfile(profile, 1, 5);
    expect(p.functions.find((f) => f.name.startsWith("walk"))!.selfMs).toBe(MAX_SAMPLE_US / 1000);
    expect(p.areas.find((a) => a.name === "trace: record, hash, dispatch")!.selfMs).toBe(0.4);
  });

  it("profiles seeds of a scenario: areas and functions sum to what was sampled, checkers among them", async () => {
    const p = await profileSeeds(loadScenario("standalone-basics"), 1, 5, 10);
    expect(p.seeds).toBe(5);
    expect(p.functions.length).toBeLessThanOrEqual(10);
    const areaMs = p.areas.reduce((sum, a) => sum + a.selfMs, 0);
    expect(Math.abs(areaMs - p.totalMs)).toBeLessThanOrEqual(Math.max(2, p.totalMs * 0.02));
    expect(p.areas.some((a) => a.name.startsWith("check: "))).toBe(true);
    expect(formatProfile(p)[0]).toMatch(/^profile: 5 warm seeds, \d+ ms sampled/);
  }, 60_000);
});
