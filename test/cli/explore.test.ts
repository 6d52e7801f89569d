import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { lastJson, zksim } from "../helpers/cli.js";
import { parseShard, shardSeeds } from "../../src/cli/explore/seeds.js";
import { replayCommand } from "../../src/cli/explore/command.js";
import { isUserInputError } from "../../src/sim/errors.js";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { generatedRecipeScenario } from "../../src/scenario/scripts/recipe-run.js";

interface ExploreJson {
  scenario: string;
  seedsRun: number;
  failures: { seed: number; checker: string; replay: string }[];
  seedsPerSec: number;
}

describe("cli: explore: seeds and shards", () => {
  it("the shards 1/n … n/n of a range are disjoint and cover it", async () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 40 }), (from, n, count) => {
        const shards = Array.from({ length: count }, (_, i) => shardSeeds(from, n, parseShard(`${i + 1}/${count}`, "explore")));
        const all = shards.flat();
        expect(new Set(all).size).toBe(all.length);
        expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, k) => from + k));
        // Balanced: shard sizes differ by at most one.
        const sizes = shards.map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("shard i/n takes the seeds whose index ≡ i−1 (mod n)", async () => {
    expect(shardSeeds(1, 10, { index: 2, count: 3 })).toEqual([2, 5, 8]);
    expect(shardSeeds(100, 4)).toEqual([100, 101, 102, 103]);
  });

  it.each(["0/3", "4/3", "x/y", "1/0", "2", "1/2/3", "-1/3"])("an impossible shard %s is a user error", (text) => {
    let caught: unknown;
    try {
      parseShard(text, "explore");
    } catch (err) {
      caught = err;
    }
    expect(isUserInputError(caught)).toBe(true);
  });

  it("the replay line names the scenario, the seed, the bug and the canary", async () => {
    expect(replayCommand("bug-1154", 7, { bugs: ["ZK-1154"] })).toBe("zksim run bug-1154 --seed 7 --bug ZK-1154");
    expect(replayCommand("kernel-smoke", 3, { canary: "connection-reorder" })).toBe("zksim run kernel-smoke --seed 3 --canary connection-reorder");
    expect(replayCommand("recipe-counter", 5, { generate: true }, "naive")).toBe("zksim run recipe-counter --seed 5 --variant naive --generate");
  });
});

describe("cli: explore", () => {
  it("--json: the last line is the contract, and a canary fails every seed with exit 1", async () => {
    const r = await zksim("explore", "kernel-smoke", "--seeds", "3", "--canary", "connection-reorder", "--json");
    expect(r.status).toBe(1);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    const j = lastJson<ExploreJson>(r);
    expect(Object.keys(j).sort()).toEqual(["coverage", "expected", "failures", "judged", "leftOut", "scenario", "seedsPerSec", "seedsRun", "seedsWithUnknown"]);
    expect(j).toMatchObject({ scenario: "kernel-smoke", seedsRun: 3 });
    expect(j.failures).toEqual([1, 2, 3].map((seed) => ({ seed, checker: "kernel.connection-fifo", replay: `zksim run kernel-smoke --seed ${seed} --canary connection-reorder` })));
    expect(j.seedsPerSec).toBeGreaterThan(0);
  });

  it("a failure's replay line reproduces it with `zksim run`", async () => {
    const j = lastJson<ExploreJson>(await zksim("explore", "kernel-smoke", "--seeds", "1", "--from", "5", "--canary", "connection-reorder", "--json", "--workers", "1"));
    const [, ...args] = j.failures[0]!.replay.split(" ");
    const run = await zksim(...args, "--json");
    expect(run.status).toBe(1);
    expect(lastJson<{ seed: number; verdict: string }>(run)).toMatchObject({ seed: 5, verdict: "fail" });
  });

  it("exit 0 when every seed passes; --from and --shard pick the seeds", async () => {
    const r = await zksim("explore", "zab-leader-crash-before-commit", "--seeds", "6", "--from", "10", "--shard", "2/3", "--json");
    expect(r.status).toBe(0);
    expect(lastJson<ExploreJson>(r)).toMatchObject({ scenario: "zab-leader-crash-before-commit", seedsRun: 2, failures: [] });
  });

  it("--bug maps through the bug zoo and its replay line carries it", async () => {
    const r = await zksim("explore", "bug-1154", "--seeds", "2", "--bug", "1154", "--json");
    const j = lastJson<ExploreJson>(r);
    expect(j.seedsRun).toBe(2);
    for (const f of j.failures) expect(f.replay).toBe(`zksim run bug-1154 --seed ${f.seed} --bug ZK-1154`);
    expect(r.status).toBe(j.failures.length > 0 ? 1 : 0);
  });

  it("the same failures whatever the number of workers", async () => {
    const strip = (j: ExploreJson) => ({ ...j, seedsPerSec: 0 });
    const args = ["explore", "kernel-smoke", "--seeds", "4", "--from", "20", "--canary", "connection-reorder", "--json"];
    const one = lastJson<ExploreJson>(await zksim(...args, "--workers", "1"));
    const two = lastJson<ExploreJson>(await zksim(...args, "--workers", "2"));
    const three = lastJson<ExploreJson>(await zksim(...args, "--workers", "3"));
    expect(one.seedsRun).toBe(4);
    expect(strip(two)).toEqual(strip(one));
    expect(strip(three)).toEqual(strip(one));
  });

  it("human output: one FAIL line and a replay line per failing seed, then a summary (no progress bar off a TTY)", async () => {
    const r = await zksim("explore", "kernel-smoke", "--seeds", "2", "--canary", "connection-reorder", "--workers", "1");
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain("\r");
    const lines = r.stdout.trim().split("\n");
    expect(lines.filter((l) => l.startsWith("FAIL seed "))).toHaveLength(2);
    expect(lines.filter((l) => l.startsWith("  replay: zksim run kernel-smoke --seed "))).toHaveLength(2);
    expect(lines[lines.length - 1]).toMatch(/^explored 2 seeds in .*: 2 failing seeds$/);
  });

  const bad: [string, string[]][] = [
    ["no --seeds", ["kernel-smoke"]],
    ["--seeds 0", ["kernel-smoke", "--seeds", "0"]],
    ["--seeds -3", ["kernel-smoke", "--seeds", "-3"]],
    ["--seeds abc", ["kernel-smoke", "--seeds", "abc"]],
    ["--seeds 1.5", ["kernel-smoke", "--seeds", "1.5"]],
    ["--shard 0/3", ["kernel-smoke", "--seeds", "3", "--shard", "0/3"]],
    ["--shard 4/3", ["kernel-smoke", "--seeds", "3", "--shard", "4/3"]],
    ["--shard x/y", ["kernel-smoke", "--seeds", "3", "--shard", "x/y"]],
    ["--workers 0", ["kernel-smoke", "--seeds", "3", "--workers", "0"]],
    ["unknown scenario", ["no-such-scenario", "--seeds", "3"]],
    ["unknown bug", ["bug-1154", "--seeds", "3", "--bug", "9999"]],
    ["unknown canary", ["kernel-smoke", "--seeds", "3", "--canary", "no-such-canary"]],
    ["no scenario", ["--seeds", "3"]],
    ["unknown flag", ["kernel-smoke", "--seeds", "3", "--fast"]],
    ["--generate without a recipe", ["zab-observer", "--seeds", "3", "--generate"]],
  ];
  it.each(bad)("bad input (%s): one line on stderr, exit 2", async (_what, args) => {
    const r = await zksim("explore", ...args);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^zksim: /);
  });
});

describe("cli: explore --generate: recipe sweeps that draw workloads and faults per seed", () => {
  it("a seed always draws the same scenario, and seeds draw different ones, within the property's generators", async () => {
    const base = loadScenario("recipe-lock");
    const one = generatedRecipeScenario(base, 11);
    expect(generatedRecipeScenario(base, 11)).toEqual(one);
    const shapes = new Set([11, 12, 13, 14, 15].map((seed) => JSON.stringify([generatedRecipeScenario(base, seed).faults, generatedRecipeScenario(base, seed).workload.params])));
    expect(shapes.size).toBe(5);
    const p = one.workload.params;
    expect(p.recipeTiming).toBe("short");
    expect(p.clients).toBeGreaterThanOrEqual(2);
    expect(p.clients).toBeLessThanOrEqual(5);
    for (const f of one.faults) expect(f.atMs).toBeLessThanOrEqual(one.durationMs);
  });

  it("a failing generated seed is reported with its replay line, saved with its drawn faults, and reproduces", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zksim-generate-"));
    try {
      const r = await zksim("explore", "recipe-counter", "--variant", "naive", "--generate", "--seeds", "2", "--workers", "1", "--json", "--save-dir", dir);
      expect(r.status).toBe(1);
      const j = lastJson<ExploreJson>(r);
      expect(j.failures.length).toBeGreaterThan(0);
      const { seed, replay } = j.failures[0]!;
      expect(replay).toBe(`zksim run recipe-counter --seed ${seed} --variant naive --generate`);
      const file = join(dir, `recipe-counter-seed-${seed}.json`);
      const saved = JSON.parse(readFileSync(file, "utf8")) as { scenario: { faults: unknown[]; workload: Record<string, unknown> }; expected: { traceHash: string } };
      const drawn = generatedRecipeScenario(loadScenario("recipe-counter", "naive"), seed);
      expect(saved.scenario.faults).toEqual(JSON.parse(JSON.stringify(drawn.faults)));
      expect(saved.scenario.workload).toMatchObject({ clients: drawn.workload.params.clients, recipeTiming: "short" });
      // The replay line and the replay file run the same case.
      const run = await zksim("run", "recipe-counter", "--seed", String(seed), "--variant", "naive", "--generate", "--json");
      expect(run.status).toBe(1);
      expect(lastJson<{ traceHash: string }>(run).traceHash).toBe(saved.expected.traceHash);
      expect((await zksim("replay", file)).status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
