import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { getHeapStatistics } from "node:v8";
import { HeapGuard, HeapLimitError, eventsUntilNextProbe, itemsHeld, lastSemiSpaceFlag, oldGenerationLimitBytes } from "../../src/scenario/heap-guard.js";

describe("scenario: heap guard", () => {
  it("stops a run whose heap is over its limit with one line naming the scenario, seed, replay and what holds the most", async () => {
    // A fake probe over a tiny limit: the guard is tested without exhausting any memory.
    let probes = 0;
    const heapGuard = { usedBytes: () => (++probes >= 3 ? 2 * 2 ** 30 : 2 ** 20), limitBytes: 2 ** 30, everyEvents: 20 };
    const run = runScenario(loadScenario("standalone-basics"), { seed: 7, heapGuard });
    await expect(run).rejects.toBeInstanceOf(HeapLimitError);
    const err = (await run.catch((e: unknown) => e)) as HeapLimitError;
    expect(err.message).not.toContain("\n");
    expect(err.message).toMatch(/^run stopped: the heap reached 2\.0 GB \(limit 1\.0 GB\) at virtual [\d.]+ s after \d+ events; /);
    // The three checkers that hold the most, largest first.
    const holders = /largest holders: ([\w.-]+) \((\d+) items\), ([\w.-]+) \((\d+) items\), ([\w.-]+) \((\d+) items\);/.exec(err.message);
    expect(holders, err.message).not.toBeNull();
    const counts = [holders![2], holders![4], holders![6]].map(Number);
    expect([...counts].sort((a, b) => b - a)).toEqual(counts);
    expect(err.message).toMatch(/scenario standalone-basics, seed 7; replay: zksim run standalone-basics --seed 7; to finish it, give node a larger heap/);
    expect(probes).toBe(3);
  });

  it("a probe under the limit changes nothing: same hash as an unguarded run", async () => {
    const scenario = loadScenario("standalone-basics");
    const guarded = await runScenario(scenario, { heapGuard: { usedBytes: () => 0, limitBytes: 1, everyEvents: 1 } });
    const bare = await runScenario(scenario, { heapGuard: false });
    expect(guarded.traceHash).toBe(bare.traceHash);
    expect(guarded.unknown).toEqual([]);
  });

  it("names a holder without retained() by the entries of the collections it holds", () => {
    const shared = [1, 2];
    const holder = { name: "x", byKey: new Map([["a", shared], ["b", shared]]), list: [1, 2, 3], n: 7 };
    expect(itemsHeld(holder)).toBe(2 + 2 + 3); // the shared array counted once
    const counted = { retained: () => 42, list: [1] };
    expect(itemsHeld(counted)).toBe(42);
  });
});

describe("heap guard: when it probes", () => {
  const MB = 2 ** 20;
  /** Calls of the stop predicate between probes while the heap in use is `used()`. */
  function probeGaps(used: () => number, limitBytes: number, probes: number): number[] {
    let probed = 0;
    const guard = new HeapGuard({ usedBytes: () => (probed++, used()), limitBytes });
    const gaps: number[] = [];
    for (let calls = 1; gaps.length < probes; calls++) {
      const before = probed;
      guard.overLimit();
      if (probed > before) {
        gaps.push(calls);
        calls = 0;
      }
    }
    return gaps;
  }

  it("probes at the first event, then every 8,192 events while the heap is far from its limit", () => {
    expect(probeGaps(() => 10 * MB, 4096 * MB, 3)).toEqual([1, 8192, 8192]);
  });

  it("probes more often as the heap nears its limit, never more often than every 256 events", () => {
    let used = 0;
    const gaps = probeGaps(() => (used += 4 * MB), 64 * MB, 17);
    // After the probe at 4k MB, (64 - 4k) MB are left: the next probe comes 8 KB an event later.
    expect(gaps).toEqual([1, ...Array.from({ length: 15 }, (_, k) => (60 - 4 * k) * 128), 256]);
  });

  it("spaces the probes by the headroom: at most everyEvents apart", () => {
    expect(eventsUntilNextProbe(1024 * MB, 8192)).toBe(8192);
    expect(eventsUntilNextProbe(4 * MB, 8192)).toBe(512);
    expect(eventsUntilNextProbe(0, 8192)).toBe(256);
    expect(eventsUntilNextProbe(0, 20)).toBe(20);
  });
});

describe("heap guard: the old generation's limit", () => {
  it("reads the last --max-semi-space-size, in either spelling", () => {
    expect(lastSemiSpaceFlag(["--max-semi-space-size=64"])).toBe(64);
    expect(lastSemiSpaceFlag(["--max-semi-space-size", "32", "--max_semi_space_size=8"])).toBe(8);
    expect(lastSemiSpaceFlag(["--max-old-space-size=64"])).toBeUndefined();
  });

  it("is the heap's limit less three semi-spaces (what V8 reserves for the young generation)", () => {
    const semi = lastSemiSpaceFlag(process.execArgv) ?? 16;
    expect(oldGenerationLimitBytes("")).toBe(getHeapStatistics().heap_size_limit - 3 * semi * 2 ** 20);
  });
});
