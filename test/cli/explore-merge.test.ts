/**
 * `zksim explore --merge`: the shards of a sweep, merged, equal the same range run unsharded;
 * incomplete and mismatched shard sets are named; and the Kubernetes and CI examples of
 * docs/sweeps.md run the shards they claim to.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { lastJson, zksim, type CliResult } from "../helpers/cli.js";
import { mergeSweepReports, parseSweepReport, type SweepReport } from "../../src/cli/explore/sweep-report.js";
import { isUserInputError } from "../../src/sim/errors.js";

interface Failure {
  seed: number;
  checker: string;
  replay: string;
  replayFile?: string;
}
interface ExploreJson {
  seedsRun: number;
  failures: Failure[];
}
interface MergedJson extends ExploreJson {
  shardsMerged: number;
  shardCount: number;
  incomplete?: { missingShards: number[]; interruptedShards: number[] };
}

const root = mkdtempSync(join(tmpdir(), "zksim-merge-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const REPO = fileURLToPath(new URL("../../", import.meta.url));
// A swarm with a zoo bug: some seeds fail, some pass, so a merge that drops or invents one shows.
const SWEEP = ["zab-random-faults", "--bug", "ZK-4685", "--seeds", "9", "--workers", "1", "--json"];
const strip = (fs: Failure[]) => fs.map(({ seed, checker, replay }) => ({ seed, checker, replay }));

describe("cli: explore --merge", () => {
  const whole = join(root, "whole");
  const shared = join(root, "shared");
  let unsharded: CliResult;
  beforeAll(async () => {
    unsharded = await zksim("explore", ...SWEEP, "--save-dir", whole);
    for (const i of [1, 2, 3]) expect((await zksim("explore", ...SWEEP, "--shard", `${i}/3`, "--save-dir", shared)).status).toBe(1);
  }, 120_000);

  it("the shards, merged, equal the unsharded run of the same range", async () => {
    expect(unsharded.status).toBe(1);
    const expected = lastJson<ExploreJson>(unsharded);
    expect(expected.failures.length).toBeGreaterThan(0);
    expect(expected.failures.length).toBeLessThan(9);
    const merged = await zksim("explore", "--merge", shared, "--json");
    expect(merged.status).toBe(1);
    const m = lastJson<MergedJson>(merged);
    expect(m).toMatchObject({ shardsMerged: 3, shardCount: 3, seedsRun: expected.seedsRun });
    expect(m.incomplete).toBeUndefined();
    expect(strip(m.failures)).toEqual(expected.failures);
    // Every failure points at the replay file its shard wrote.
    for (const f of m.failures) expect(f.replayFile).toBe(join(shared, `zab-random-faults-seed-${f.seed}.json`));
    // The unsharded report merges to the same sweep.
    expect(strip(lastJson<MergedJson>(await zksim("explore", "--merge", whole, "--json")).failures)).toEqual(expected.failures);
  });

  it("the merged replay file replays the failure", async () => {
    const m = lastJson<MergedJson>(await zksim("explore", "--merge", shared, "--json"));
    const r = await zksim("replay", m.failures[0]!.replayFile!);
    expect(r.status).toBe(1);
  });

  it("a missing shard makes the sweep incomplete: exit 1 and the shard named", async () => {
    const two = join(root, "two");
    mkdirSync(two);
    for (const name of readdirSync(shared).filter((n) => n.startsWith("explore-report-shard-") && !n.includes("-2-of-"))) {
      writeFileSync(join(two, name), readFileSync(join(shared, name)));
    }
    const r = await zksim("explore", "--merge", two);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("incomplete: missing shard 2 (of 3)");
    expect(lastJson<MergedJson>(await zksim("explore", "--merge", two, "--json")).incomplete).toEqual({ missingShards: [2], interruptedShards: [] });
  });

  it("a report that contradicts its plan is exit 2 in one line: more seeds run than planned, a seed outside its shard, an unknown field", async () => {
    const report = JSON.parse(readFileSync(join(shared, "explore-report-shard-1-of-3.json"), "utf8")) as SweepReport;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ seedsRun: report.seedsPlanned + 1 }, /"seedsRun" must be at most seedsPlanned/],
      [{ seedsPlanned: report.seedsPlanned + 5 }, /"seedsPlanned" must be \d+, shard 1\/3's share/],
      [{ failures: [{ seed: report.from + 1, checker: "x", replay: "zksim run x --seed 2" }] }, /"failures\[0\]\.seed" must be one of shard 1\/3's seeds/],
      [{ failures: [{ seed: report.from + report.count * 10, checker: "x", replay: "r" }] }, /"failures\[0\]\.seed" must be one of/],
      [{ seedsPerSecond: 3 }, /"seedsPerSecond" must be absent \(not a field of an explore report/],
    ];
    for (const [change, message] of cases) {
      const file = join(root, "contradicts.json");
      writeFileSync(file, JSON.stringify({ ...report, ...change }));
      const r = await zksim("explore", "--merge", file);
      expect(r.status, JSON.stringify(change)).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
  });

  it("reports of different sweeps, a shard twice, a malformed report and an empty directory are exit 2 naming the cause", async () => {
    const report = JSON.parse(readFileSync(join(shared, "explore-report-shard-1-of-3.json"), "utf8")) as SweepReport;
    const other = join(root, "other.json");
    // Shard 2 of another range: its own share of seeds, none of shard 1's failures (a report that contradicts its plan is refused first).
    const share = Math.ceil((report.count - 1) / report.shardCount);
    writeFileSync(other, JSON.stringify({ ...report, shardIndex: 2, from: 100, seedsPlanned: share, seedsRun: share, seedsWithUnknown: 0, failures: [], expected: [] }));
    const diff = await zksim("explore", "--merge", join(shared, "explore-report-shard-1-of-3.json"), other);
    expect(diff.status).toBe(2);
    expect(diff.stderr).toMatch(/different sweeps \("from": 100 vs 1\)/);

    const twice = join(root, "twice.json");
    writeFileSync(twice, JSON.stringify(report));
    const dup = await zksim("explore", "--merge", shared, twice);
    expect(dup.status).toBe(2);
    expect(dup.stderr).toContain("shard 1/3 is reported twice");

    const bad = join(root, "bad.json");
    writeFileSync(bad, JSON.stringify({ ...report, seedsRun: "nine" }));
    const malformed = await zksim("explore", "--merge", bad);
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toContain(`"seedsRun" must be an integer`);

    const empty = join(root, "empty");
    mkdirSync(empty);
    const none = await zksim("explore", "--merge", empty);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("holds no explore report");
    for (const r of [diff, dup, malformed, none]) expect(r.stderr).not.toMatch(/\n\s+at /);

    const mixed = await zksim("explore", "--merge", shared, "--seeds", "3");
    expect(mixed.status).toBe(2);
  });

  it("throughput adds up over shards run side by side; the slowest shard is the wall time", async () => {
    const base = parseSweepReport(JSON.parse(readFileSync(join(shared, "explore-report-shard-1-of-3.json"), "utf8")), "r1");
    const m = mergeSweepReports([
      { path: "a/r1.json", report: { ...base, shardCount: 2, shardIndex: 1, seedsPerSec: 2.5, wallSeconds: 4, failures: [{ seed: 7, checker: "x", replay: "r", replayFile: "s-7.json" }] } },
      { path: "b/r2.json", report: { ...base, shardCount: 2, shardIndex: 2, seedsPerSec: 1.5, wallSeconds: 6, failures: [{ seed: 2, checker: "y", replay: "r" }] } },
    ]);
    expect(m.seedsPerSec).toBe(4);
    expect(m.wallSeconds).toBe(6);
    expect(m.failures.map((f) => [f.seed, f.replayFile])).toEqual([[2, undefined], [7, join("a", "s-7.json")]]);
    let caught: unknown;
    try {
      mergeSweepReports([]);
    } catch (err) {
      caught = err;
    }
    expect(isUserInputError(caught)).toBe(true);
  });
});

/** The lines of a YAML block scalar `- |` that follows `key:` (the examples hold one each). */
function blockAfter(yaml: string, key: string): string {
  const lines = yaml.split("\n");
  const start = lines.findIndex((l) => l.trim() === `${key}:`);
  const bar = lines.findIndex((l, i) => i > start && l.trim() === "- |");
  const indent = /^\s*/.exec(lines[bar + 1]!)![0].length;
  const body: string[] = [];
  for (const l of lines.slice(bar + 1)) {
    if (l.trim() !== "" && /^\s*/.exec(l)![0].length < indent) break;
    body.push(l.slice(indent));
  }
  return body.join("\n");
}

describe("docs/sweeps: the examples run the shards they claim", () => {
  it("the Indexed Job: JOB_COMPLETION_INDEX 0 … completions−1 run shards 1/n … n/n, and they merge complete", async () => {
    const yaml = readFileSync(join(REPO, "docs/sweeps/explore-indexed-job.yaml"), "utf8");
    const completions = Number(/^\s*completions: (\d+)$/m.exec(yaml)![1]);
    expect(yaml).toMatch(/completionMode: Indexed/);
    expect(yaml).toMatch(new RegExp(`name: SHARDS\\n\\s*value: "${completions}"`));
    const script = blockAfter(yaml, "args");
    // The pod's script runs in a shell, with a `zksim` on PATH that records the arguments it was
    // given and exits with FAKE_EXIT; the recorded command then runs in this process (a fresh
    // process per shard, each loading the program and two worker threads, made this test 18 s of
    // CPU). The range is shrunk to keep the test short, and --workers 2 becomes 1: a sweep's
    // lists do not depend on --workers (src/cli/explore/command.ts).
    const bin = join(root, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "zksim"), `#!/bin/sh\nprintf '%s\\n' "$@" > "$ARGS_FILE"\nexit "$FAKE_EXIT"\n`);
    chmodSync(join(bin, "zksim"), 0o755);
    const results = join(root, "k8s");
    const pod = (index: number, fakeExit: number) => {
      const argsFile = join(root, `pod-${index}.args`);
      const r = spawnSync("/bin/sh", ["-c", script], {
        encoding: "utf8",
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, JOB_COMPLETION_INDEX: String(index), SCENARIO: "kernel-smoke", SEEDS: String(completions + 3), SHARDS: String(completions), RESULTS_DIR: results, ARGS_FILE: argsFile, FAKE_EXIT: String(fakeExit) },
      });
      return { status: r.status, stderr: r.stderr, args: readFileSync(argsFile, "utf8").split("\n").slice(0, -1) };
    };
    // Failing seeds found (exit 1) is a pod that did its job; anything worse fails the pod.
    expect(pod(0, 2).status).toBe(2);
    for (let index = 0; index < completions; index++) {
      const { status, stderr, args } = pod(index, 1);
      expect(status, stderr).toBe(0);
      expect(args.slice(0, 2)).toEqual(["explore", "kernel-smoke"]);
      const flag = (name: string) => args[args.indexOf(name) + 1];
      expect([flag("--seeds"), flag("--shard"), flag("--save-dir")]).toEqual([String(completions + 3), `${index + 1}/${completions}`, results]);
      if (args.includes("--workers")) args[args.indexOf("--workers") + 1] = "1";
      const r = await zksim(...args);
      expect(r.status, r.stderr).toBe(0);
    }
    const m = lastJson<MergedJson>(await zksim("explore", "--merge", results, "--json"));
    expect(m).toMatchObject({ shardsMerged: completions, shardCount: completions, seedsRun: completions + 3, failures: [] });
    expect(m.incomplete).toBeUndefined();
  });

  it("the CI matrix lists shards 1 … SHARDS and merges every artifact", async () => {
    const yaml = readFileSync(join(REPO, "docs/sweeps/github-actions-explore.yml"), "utf8");
    const shards = Number(/SHARDS: "(\d+)"/.exec(yaml)![1]);
    const matrix = /shard: \[([^\]]*)\]/.exec(yaml)![1]!.split(",").map((s) => Number(s.trim()));
    expect(matrix).toEqual(Array.from({ length: shards }, (_, i) => i + 1));
    expect(yaml).toContain(`--shard "\${{ matrix.shard }}/$SHARDS"`);
    expect(yaml).toContain(`--save-dir "results/shard-\${{ matrix.shard }}"`);
    expect(yaml).toContain("zksim explore --merge results/*");
  });
});
