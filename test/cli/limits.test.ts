/**
 * Limits and bad input (docs/commands.md, "Limits and bad input"): each edge is a clear one-line
 * error and exit 2, or a documented bound — never a hang, a stack trace, or a lost verdict.
 * The commands run in this process (`zksim()`, test/helpers/cli.ts: a fresh process per command
 * made this file 44 s of CPU), and vitest's testTimeout bounds an edge that hangs. In a fresh
 * process, killed after 100 s: what would block this process's thread if it regressed (a device
 * or a FIFO read synchronously), and `serve`, which opens sockets.
 */
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastJson, zksim, zksimProcessWithin, type CliResult } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "zksim-limits-"));
/** The CLI in a fresh process, killed after 100 s: an edge that hangs fails. */
const fresh = (...args: string[]): CliResult => zksimProcessWithin(100_000, ...args);

/** Exit 2 with exactly one `zksim: …` line on stderr matching `message`, and no stack trace. */
function expectBadInput(r: CliResult, message: RegExp): void {
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toMatch(/^zksim: /);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

const kernelSmoke = {
  name: "limits",
  durationMs: 2000,
  convergence: false,
  workload: { kind: "kernel-traffic", nodes: 3 },
};
function scenarioFile(name: string, doc: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(doc));
  return p;
}

describe("cli limits: output paths", () => {
  it("--save under /proc after a failing run: the verdict and the replay line, a one-line note, exit 1 (no spin in mkdir)", async () => {
    const r = await zksim("run", "kernel-smoke", "--canary", "connection-reorder", "--save", "/proc/zksim-no-such-dir/case.json");
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/verdict: FAIL/);
    expect(r.stdout).toMatch(/replay: zksim run kernel-smoke --seed 1 --canary connection-reorder/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^zksim: --save: cannot create .*mkdir \/proc\/zksim-no-such-dir: ENOENT.*nothing saved/);
  });

  it("a failed --save (a full disk) keeps the failing run's exit 1 and its JSON line, and says so on stderr", async () => {
    const r = await zksim("run", "kernel-smoke", "--canary", "connection-reorder", "--save", "/dev/full", "--json");
    expect(r.status).toBe(1);
    expect(lastJson<{ verdict: string }>(r).verdict).toBe("fail");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/--save: cannot write replay file \/dev\/full: ENOSPC.*re-run it: zksim run kernel-smoke --seed 1 --canary connection-reorder/);
  });

  it("--save-dir under /proc is exit 2 before any seed runs", async () => {
    expectBadInput(await zksim("explore", "kernel-smoke", "--seeds", "1", "--save-dir", "/proc/zksim-no-such-dir/out"), /cannot create --save-dir .*mkdir \/proc\/zksim-no-such-dir: ENOENT/);
  });

  it("shrink --out under /proc is exit 2 before any shrink run", async () => {
    const saved = join(dir, "case.json");
    expect((await zksim("run", "kernel-smoke", "--canary", "connection-reorder", "--save", saved)).status).toBe(1);
    const r = await zksim("shrink", saved, "--out", "/proc/zksim-no-such-dir/shrunk.json");
    expectBadInput(r, /mkdir \/proc\/zksim-no-such-dir: ENOENT/);
    expect(r.stdout).toBe("");
  });

  it("--trace to a full disk: the verdict is printed, one line says the trace is incomplete; exit 2 for a pass, 1 for a failure", async () => {
    const pass = await zksim("run", "kernel-smoke", "--trace", "/dev/full");
    expect(pass.status).toBe(2);
    expect(pass.stdout).toMatch(/verdict: PASS/);
    expect(pass.stdout).not.toMatch(/trace written/);
    expect(pass.stderr.trim().split("\n")).toHaveLength(1);
    expect(pass.stderr).toMatch(/^zksim: --trace \/dev\/full: writing failed .*ENOSPC.*incomplete/);
    const fail = await zksim("run", "kernel-smoke", "--canary", "connection-reorder", "--trace", "/dev/full", "--json");
    expect(fail.status).toBe(1);
    expect(lastJson<{ verdict: string }>(fail).verdict).toBe("fail");
    expect(fail.stderr).toMatch(/ENOSPC/);
  });
});

describe("cli limits: input files", () => {
  it("run /dev/zero is refused (not a regular file) instead of read without end", async () => {
    expectBadInput(fresh("run", "/dev/zero"), /scenario file \/dev\/zero is not a regular file/);
  });

  it("a FIFO is refused instead of blocking on open", async () => {
    const fifo = join(dir, "fifo.json");
    execFileSync("mkfifo", [fifo]);
    expectBadInput(fresh("run", fifo), /is not a regular file \(a FIFO\)/);
    expectBadInput(fresh("replay", fifo), /replay file .* is not a regular file/);
  });

  it("a directory given as a scenario or replay file is refused", async () => {
    expectBadInput(await zksim("replay", dir), /is not a regular file \(a directory\)/);
  });
});

describe("cli limits: bounded scenario values", () => {
  for (const rate of [1e9, 1e18, 1000]) {
    it(`a clock fault rate of ${rate} is bad input (bounded to [0.01, 100])`, async () => {
      const f = scenarioFile(`clock-${rate}.json`, { ...kernelSmoke, faults: [{ atMs: 100, kind: "clock", node: "n1", rate }] });
      expectBadInput(await zksim("run", f), /faults\[0\]\.rate: a clock rate must be in \[0\.01, 100\]/);
    });
  }

  it("the bounds themselves run: rate 100 and 0.01", async () => {
    const f = scenarioFile("clock-ok.json", { ...kernelSmoke, faults: [{ atMs: 100, kind: "clock", node: "n1", rate: 100 }, { atMs: 200, kind: "clock", node: "n2", rate: 0.01 }] });
    expect((await zksim("run", f)).status).toBe(0);
  });

  it("durationMs above a virtual day is bad input", async () => {
    expectBadInput(await zksim("run", scenarioFile("dur.json", { ...kernelSmoke, durationMs: 1e15 })), /"durationMs" must be at most 86400000/);
  });

  it("convergence.budgetMs above a virtual hour is bad input", async () => {
    expectBadInput(await zksim("run", scenarioFile("budget.json", { ...kernelSmoke, convergence: { budgetMs: 1e15 } })), /budgetMs must be at most 3600000/);
  });
});

describe("cli limits: explore", () => {
  it("--from 9007199254740991 --seeds 2 runs past the largest seed: exit 2 (its replay line would be one `run` rejects)", async () => {
    expectBadInput(await zksim("explore", "kernel-smoke", "--from", "9007199254740991", "--seeds", "2"), /runs past the largest seed, 9007199254740991/);
  });

  it("the largest seed itself is swept, and its replay line is one `run` accepts", async () => {
    const r = await zksim("explore", "kernel-smoke", "--from", "9007199254740991", "--seeds", "1", "--workers", "1", "--canary", "connection-reorder", "--json");
    expect(r.status).toBe(1);
    const { failures } = lastJson<{ failures: { replay: string }[] }>(r);
    expect(failures.map((f) => f.replay)).toEqual(["zksim run kernel-smoke --seed 9007199254740991 --canary connection-reorder"]);
  });
});

describe("cli limits: usage", () => {
  it("zksim with no arguments: the usage on stderr, nothing on stdout, exit 2", async () => {
    const r = await zksim();
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^usage: zksim <command>/);
  });

  it("zksim <command> --help and zksim help <command>: that command's usage on stdout, exit 0", async () => {
    for (const args of [["run", "--help"], ["help", "run"], ["run", "kernel-smoke", "-h"]]) {
      const r = await zksim(...args);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^usage: zksim run <scenario>/);
      expect(r.stderr).toBe("");
    }
    expect((await zksim("help")).stdout).toMatch(/^usage: zksim <command>[\s\S]*\n {2}demo /);
  });

  it("every command refuses an argument it does not take", async () => {
    expectBadInput(await zksim("demo", "extra"), /demo: unexpected argument "extra"/);
    expectBadInput(await zksim("list", "extra"), /list: unexpected argument "extra"/);
    expectBadInput(await zksim("bench", "zk", "extra"), /bench: unexpected argument "extra"/);
    expectBadInput(await zksim("help", "nope"), /unknown command "nope"/);
  });
});

describe("cli limits: list says which scenarios fail on purpose", () => {
  it("the naive twins, recipe-lock-pause-unfenced and the commit protocols' documented flaws, and only they, are expect: fail", async () => {
    const entries = lastJson<{ name: string; expect: string }[]>(await zksim("list", "--json"));
    const failing = entries.filter((e) => e.expect === "fail").map((e) => e.name);
    expect(failing).toEqual([
      "2pc-coordinator-crash-blocks",
      "3pc-partition-inconsistency",
      "recipe-barrier-naive-poll",
      "recipe-counter-naive",
      "recipe-double-barrier-naive",
      "recipe-lock-naive-herd",
      "recipe-lock-naive-retry",
      "recipe-lock-pause-unfenced",
      "recipe-naming-naive",
      "recipe-queue-priority-naive",
      "recipe-revocable-lock-naive",
    ]);
    expect(entries.every((e) => e.expect === "fail" || e.expect === "pass")).toBe(true);
    expect((await zksim("list")).stdout).toMatch(/^recipe-lock-pause-unfenced +\[fails on purpose\] /m);
  });
});

describe("cli limits: learn, serve and ctl inputs", () => {
  it("learn --open refuses a device and a FIFO before opening them", async () => {
    expectBadInput(fresh("learn", "--open", "/dev/zero", "--plain"), /session file \/dev\/zero is not a regular file \(a device or socket\)/);
    const fifo = join(dir, "session.fifo");
    execFileSync("mkfifo", [fifo]);
    expectBadInput(fresh("learn", "--open", fifo, "--plain"), /session file .*session\.fifo is not a regular file \(a FIFO\)/);
  });

  it("a saved session whose action kind is a list, or whose fault is a number, is one line naming the field (replay and learn --open)", async () => {
    const saved = join(dir, "saved.json");
    const made = await zksim("learn", "zab", "--plain", "--script", "step 3; crash s3; step 2", "--save", saved);
    expect(made.status, made.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(saved, "utf8")) as { branches: { interventions: { action: Record<string, unknown> }[] }[] };
    const variant = (name: string, change: (a: Record<string, unknown>) => void): string => {
      const d = structuredClone(doc);
      change(d.branches[0]!.interventions[0]!.action);
      return scenarioFile(name, d);
    };
    const kindList = variant("kind-list.json", (a) => (a.kind = ["fault"]));
    const faultNumber = variant("fault-number.json", (a) => (a.fault = 7));
    for (const cmd of [["replay"], ["learn", "--plain", "--open"]]) {
      expectBadInput(await zksim(...cmd, kindList), /kind-list\.json: branches\[0\]\.interventions\[0\]\.action\.kind must be one of deliver, /);
      expectBadInput(await zksim(...cmd, faultNumber), /^zksim: \S*fault-number\.json: branches\[0\]\.interventions\[0\]\.action\.fault must be an object$/m);
    }
  });

  it("serve --bind: a malformed address and an unknown host are one line", async () => {
    expectBadInput(fresh("serve", "--bind", "999.1.1.1", "--base-port", "26101", "--no-record"), /--bind 999\.1\.1\.1 is not an IPv4 address/);
    expectBadInput(fresh("serve", "--bind", "no-such-host.invalid", "--base-port", "26111", "--no-record"), /--bind no-such-host\.invalid: no such address/);
  });

  it("serve --record where no file can be made is one line", async () => {
    expectBadInput(fresh("serve", "--base-port", "26121", "--record", "/proc/zksim-record.json"), /--record \/proc\/zksim-record\.json: cannot write its journal \/proc\/zksim-record\.json\.partial: ENOENT/);
  });

  it("ctl --port out of range is bad input (exit 2), not 'no serve answered' (exit 5)", async () => {
    for (const port of ["0", "65536", "99999999"]) expectBadInput(await zksim("ctl", "--port", port, "status"), /ctl: --port must be a TCP port from 1 to 65535/);
  });
});
