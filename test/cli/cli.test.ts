import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { lastJson, zksim, zksimProcess } from "../helpers/cli.js";

interface RunJson {
  scenario: string;
  seed: number;
  traceHash: string;
  events: number;
  virtualMs: number;
  wallMs: number;
  verdict: string;
  violations: unknown[];
}

describe("cli: the executable", () => {
  it("bin/zksim.js runs as a program: its shebang (Node with a 64 MiB young generation) is one Node accepts", async () => {
    const bin = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));
    expect(readFileSync(bin, "utf8").split("\n")[0]).toBe("#!/usr/bin/env -S node --max-semi-space-size=64");
    const r = spawnSync(bin, ["run", "kernel-smoke", "--seed", "1", "--json"], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(lastJson<RunJson>({ status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }).traceHash).toBe("24dae2a95db94065");
  });
});

describe("cli: run", () => {
  it("--variant naive runs the recipe's naive variant: a herd lock, caught, with a replay line that keeps the flag", async () => {
    const r = await zksim("run", "recipe-lock", "--seed", "1", "--variant", "naive");
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/\[recipe\.lock-herd\] .*herd effect on \/app\/lock/);
    expect(r.stdout).toMatch(/replay: zksim run recipe-lock --seed 1 --variant naive/);
    const again = await zksim("run", "recipe-lock", "--seed", "1", "--variant", "naive", "--json");
    expect(lastJson<RunJson>(again).traceHash).toBe(lastJson<RunJson>(await zksim("run", "recipe-lock-naive-herd", "--seed", "1", "--json")).traceHash);
  });


  it("fresh processes: the same seed gives the same trace hash, and the JSON contract holds", async () => {
    const a = zksimProcess("run", "kernel-smoke", "--seed", "7", "--json");
    const b = zksimProcess("run", "kernel-smoke", "--seed", "7", "--json");
    expect(a.status).toBe(0);
    const ja = lastJson<RunJson>(a);
    const jb = lastJson<RunJson>(b);
    expect(ja.traceHash).toBe(jb.traceHash);
    expect(ja.traceHash).toMatch(/^[0-9a-f]{16}$/);
    expect(ja).toMatchObject({ scenario: "kernel-smoke", seed: 7, verdict: "pass", violations: [], virtualMs: 20000 });
    expect(typeof ja.events).toBe("number");
    expect(typeof ja.wallMs).toBe("number");
  });

  it("a fresh process agrees with the in-process golden hash", async () => {
    expect(lastJson<RunJson>(zksimProcess("run", "kernel-smoke", "--seed", "1", "--json")).traceHash).toBe("24dae2a95db94065");
  });

  it("in-process runs after other runs give a fresh process's hash (no state kept between runs)", async () => {
    expect(lastJson<RunJson>(await zksim("run", "kernel-smoke", "--seed", "7", "--json")).traceHash).toBe(lastJson<RunJson>(zksimProcess("run", "kernel-smoke", "--seed", "7", "--json")).traceHash);
  });

  it("exit 1 with violations named when a checker fails (canary)", async () => {
    const r = await zksim("run", "kernel-smoke", "--json", "--canary", "connection-reorder");
    expect(r.status).toBe(1);
    const j = lastJson<RunJson & { violations: { checker: string; message: string; eventIndex: number; atMs: number }[] }>(r);
    expect(j.verdict).toBe("fail");
    expect(j.violations[0]).toMatchObject({ checker: "kernel.connection-fifo" });
    expect(typeof j.violations[0]!.atMs).toBe("number");
  });

  it("--trace FILE writes one JSON line per event", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zksim-"));
    const file = join(dir, "t.jsonl");
    const r = await zksim("run", "kernel-smoke", "--seed", "2", "--json", "--trace", file);
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines.length).toBe(lastJson<RunJson>(r).events);
    expect(JSON.parse(lines[0]!)).toMatchObject({ i: 0, atUs: 0 });
  });

  it("human output narrates and ends with the replay command", async () => {
    const r = await zksim("run", "kernel-smoke", "--seed", "3");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/verdict: PASS/);
    expect(r.stdout.trim().split("\n").pop()).toBe("replay: zksim run kernel-smoke --seed 3");
  });

  it("determinism command: two runs, same hash", async () => {
    const r = await zksim("determinism", "kernel-smoke", "--seed", "9");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^deterministic: kernel-smoke seed 9 gave trace hash [0-9a-f]{16} twice/);
  });
});

describe("cli: list", () => {
  it("--json lists scenarios with name, description and tags", async () => {
    const r = await zksim("list", "--json");
    expect(r.status).toBe(0);
    const list = lastJson<{ name: string; description: string; tags: string[] }[]>(r);
    expect(list.find((s) => s.name === "kernel-smoke")).toMatchObject({ tags: ["kernel", "smoke"] });
  });
});

describe("cli: bad input gets one line and exit 2, never a stack trace", () => {
  const dir = mkdtempSync(join(tmpdir(), "zksim-bad-"));
  const write = (name: string, body: unknown) => {
    const p = join(dir, name);
    writeFileSync(p, typeof body === "string" ? body : JSON.stringify(body));
    return p;
  };
  const base = { name: "x", durationMs: 100, workload: { kind: "kernel-traffic", nodes: 3 } };
  const cases: [string, string[], RegExp][] = [
    ["unknown scenario", ["run", "no-such-scenario"], /unknown scenario "no-such-scenario"/],
    ["unknown flag", ["run", "kernel-smoke", "--sed", "3"], /unknown option --sed/],
    ["bad seed", ["run", "kernel-smoke", "--seed", "-3"], /--seed needs a value|--seed must be a whole number/],
    ["non-numeric seed", ["run", "kernel-smoke", "--seed", "abc"], /--seed must be a whole number/],
    ["unknown command", ["frobnicate"], /unknown command "frobnicate"/],
    ["missing file", ["run", "./nope.json"], /scenario file not found/],
    ["malformed JSON", ["run", write("a.json", "{ not json")], /not valid JSON/],
    ["unknown node in schedule", ["run", write("b.json", { ...base, faults: [{ atMs: 1, kind: "crash", node: "n9" }] })], /faults\[0\]\.node: unknown node "n9"/],
    ["negative delay", ["run", write("c.json", { ...base, network: { minDelayMs: -1 } })], /network"\.minDelayMs must be a number ≥ 0/],
    ["unknown workload", ["run", write("d.json", { ...base, workload: { kind: "nope" } })], /unknown workload "nope"/],
    ["unknown checker", ["run", write("e.json", { ...base, checkers: ["nope"] })], /unknown checker "nope"/],
    ["unknown bench suite", ["bench", "nope"], /unknown suite "nope"/],
    ["profile of a suite without one", ["bench", "kernel", "--profile"], /--profile profiles the recipes or check suite only, got "kernel"/],
    ["unknown canary", ["run", "kernel-smoke", "--canary", "nope"], /unknown canary "nope"/],
    ["unknown variant", ["run", "recipe-lock", "--variant", "nope"], /script "recipe-lock" has no variant "nope" \(its variants: naive, naive-herd, naive-retry\)/],
    ["variant of a recipe without one", ["explore", "recipe-queue", "--seeds", "1", "--variant", "naive"], /script "recipe-queue" has no variant "naive" \(it has none\)/],
    ["variant of a scenario without a script", ["run", "kernel-smoke", "--variant", "naive"], /--variant needs a scenario whose workload names a script/],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const r = await zksim(...args);
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  }
});
