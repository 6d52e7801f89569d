/**
 * User code runs in a worker under a wall-clock limit (src/cli/user-code-worker.ts): a user's
 * module that never finishes loading, a script whose run never returns, and a top-level await
 * that never settles each end every command taking `--module` (replay, shrink, run) with one
 * line and exit 2, never a hang and never "reproduced a pass". A module path that is not a
 * regular file is refused before it is opened. The limit is on each stretch of user code (a
 * shrink runs the script many times), restarted by the task's progress calls.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runUserScript } from "../../src/api/index.js";
import { zksim, zksimProcessWithin, type CliResult } from "../helpers/cli.js";
// @ts-expect-error: a plain JavaScript module (what a user writes), without declarations
import { staleRead, writeRead } from "../api/fixtures/scripts.mjs";

const ROOT = resolve(import.meta.dirname, "../..");
const API = pathToFileURL(join(ROOT, "dist/api/index.js")).href;
const dir = mkdtempSync(join(tmpdir(), "zksim-user-code-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FIXTURES = "test/fixtures/user-code";
let replayFile = "";
/** A failing case of `staleRead` (shrink takes only a failing case), and its scenario alone (for run). */
let failingFile = "";
let failingScenario = "";

beforeAll(async () => {
  replayFile = (await runUserScript(writeRead, { seed: 5, replayDir: dir })).replayFile!;
  const failing = await runUserScript(staleRead, { seed: 5, replayDir: dir });
  expect(failing.verdict).toBe("fail");
  failingFile = failing.replayFile!;
  failingScenario = join(dir, "stale-scenario.json");
  writeFileSync(failingScenario, JSON.stringify((JSON.parse(readFileSync(failingFile, "utf8")) as { scenario: unknown }).scenario));
}, 60_000);

/** A user module in the temporary directory. */
function userModule(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

/**
 * `zksim replay replayFile --module …`, in this process (test/helpers/cli.ts): the user code runs
 * in the CLI's worker either way, and a fresh process per call (a second of CPU to load the
 * program) made this file one of the suite's slowest. A hang is bounded by vitest's testTimeout.
 */
function replay(...args: string[]): Promise<CliResult> {
  return zksim("replay", replayFile, ...args);
}

function expectOneLine(r: CliResult, message: RegExp): void {
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout).not.toMatch(/reproduced/);
}

describe("replay --module: user code under a wall-clock limit", () => {
  test("a module whose top level loops forever is stopped at the limit", async () => {
    const m = userModule("loops.mjs", "for (;;) {}\n");
    expectOneLine(await replay("--module", m, "--user-code-limit-s", "1"), /--module .*loops\.mjs: the user code did not finish within 1 s of wall-clock time.*--user-code-limit-s N/);
  });

  test("a script whose run loops synchronously is stopped at the limit", async () => {
    const m = userModule("spins.mjs", `import { defineUserScript } from ${JSON.stringify(API)};\nexport const writeRead = defineUserScript({ module: import.meta.url, export: "writeRead", async run() { for (;;) {} } });\n`);
    expectOneLine(await replay("--module", m, "--user-code-limit-s", "1"), /spins\.mjs: the user code did not finish within 1 s/);
  });

  test("a top-level await that never settles is an error, not a pass", async () => {
    const m = userModule("never.mjs", "await new Promise(() => {});\n");
    expectOneLine(await replay("--module", m), /never\.mjs: the user code stopped without finishing .*an await that never settles/);
  });

  test("a module that throws from a timer of its own is the user's error", async () => {
    const m = userModule("throws-later.mjs", `setTimeout(() => { throw new Error("boom"); }, 10);\nawait new Promise((r) => setTimeout(r, 1000));\n`);
    expectOneLine(await replay("--module", m), /throws-later\.mjs: the user code threw: boom/);
  });

  test("a module path that is a device or a FIFO is refused before it is opened", async () => {
    // In a fresh process killed after 60 s: opened, either would block the thread that reads it.
    const fresh = (module: string) => zksimProcessWithin(60_000, "replay", replayFile, "--module", module);
    expectOneLine(fresh("/dev/zero"), /^zksim: --module \/dev\/zero is not a regular file \(a device or socket\)/);
    const fifo = join(dir, "fifo.mjs");
    execFileSync("mkfifo", [fifo]);
    expectOneLine(fresh(fifo), /fifo\.mjs is not a regular file \(a FIFO\)/);
  });

  test("the limit is checked", async () => {
    expectOneLine(await replay("--user-code-limit-s", "0"), /--user-code-limit-s must be a whole number of seconds from 1 to 86400, got 0/);
  });

  test("a script that finishes replays as before, in the worker", async () => {
    const r = await replay("--json");
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ reproduced: true, verdict: "pass" });
  });
});

/** Each command taking --module, on a failing case of the fixture's `staleRead`. */
const COMMANDS: { command: string; args: () => string[] }[] = [
  { command: "replay", args: () => ["replay", failingFile] },
  { command: "shrink", args: () => ["shrink", failingFile, "--out", join(dir, "never-written.json")] },
  { command: "run", args: () => ["run", failingScenario, "--trace", join(dir, "never-drawn.html")] },
];

describe.each(COMMANDS)("$command --module: one limit for all user code", ({ args }) => {
  test("a module whose top level loops forever: stopped at --user-code-limit-s, one line, exit 2", async () => {
    const r = await zksim(...args(), "--module", `${FIXTURES}/top-level-loop.mjs`, "--user-code-limit-s", "1");
    expectOneLine(r, /^zksim: --module test\/fixtures\/user-code\/top-level-loop\.mjs: the user code did not finish within 1 s of wall-clock time .*--user-code-limit-s N/);
  });

  test("a module whose top-level await never settles: one line, exit 2", async () => {
    const r = await zksim(...args(), "--module", `${FIXTURES}/never-settles.mjs`);
    expectOneLine(r, /never-settles\.mjs: the user code stopped without finishing .*an await that never settles/);
  });

  test("a script whose run loops synchronously: stopped at the limit, one line, exit 2", async () => {
    const r = await zksim(...args(), "--module", `${FIXTURES}/spins-in-run.mjs`, "--user-code-limit-s", "1");
    expectOneLine(r, /spins-in-run\.mjs: the user code did not finish within 1 s/);
  });
});

describe("the limit restarts at each progress call", () => {
  const task = pathToFileURL(join(ROOT, FIXTURES, "progress-task.mjs"));
  // The built worker (its entry is a .js file beside it).
  const worker = () => import(pathToFileURL(join(ROOT, "dist/cli/user-code-worker.js")).href) as Promise<typeof import("../../src/cli/user-code-worker.js")>;
  // Five busy stretches of 0.5 s under a 2 s limit: 2.5 s in all, but no stretch near the limit.
  const input = (progressEach: boolean) => ({ count: 5, stretchMs: 500, progressEach });

  test("a task that reports progress after each stretch runs past the limit's total", async () => {
    const { runInUserCodeWorker } = await worker();
    await expect(runInUserCodeWorker(task, "stretches", input(true), { what: "stretches", limitMs: 2000 })).resolves.toBe(5);
  });

  test("the same task without progress calls is stopped at the limit", async () => {
    const { runInUserCodeWorker } = await worker();
    await expect(runInUserCodeWorker(task, "stretches", input(false), { what: "stretches", limitMs: 2000 })).rejects.toThrow(/^stretches: the user code did not finish within 2 s/);
  });
});
