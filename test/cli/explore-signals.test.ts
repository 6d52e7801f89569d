/**
 * explore keeps its results on SIGINT and on SIGTERM alike (src/cli/explore/command.ts): the
 * summary of the seeds that ran, their replay files under --save-dir, and exit 130 / 143.
 * Before, SIGTERM killed the process with nothing printed and --save-dir left empty. The tests
 * signal a child after a delay on the wall clock, so vitest.config.ts runs this file alone
 * (WALL_CLOCK_TESTS).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { lastJson } from "../helpers/cli.js";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));

/** Runs a long failing sweep on two workers, sends `signal` once a seed has failed (its sweep line), and collects the end. */
function interruptedSweep(signal: NodeJS.Signals, saveDir: string): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [BIN, "explore", "kernel-smoke", "--canary", "connection-reorder", "--seeds", "100000", "--workers", "2", "--save-dir", saveDir], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  // The header line is printed when the sweep starts; a few seconds later some seeds have run.
  const started = setInterval(() => {
    if (!/explore kernel-smoke/.test(stdout)) return;
    clearInterval(started);
    setTimeout(() => child.kill(signal), 6000);
  }, 200);
  return new Promise((resolve) => child.on("close", (code) => (clearInterval(started), resolve({ code, stdout }))));
}

describe("explore: SIGINT and SIGTERM keep the results", () => {
  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
    it(`${signal}: the summary, the replay files, exit ${code}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), `zksim-${signal}-`));
      const r = await interruptedSweep(signal, dir);
      expect(r.code, r.stdout).toBe(code);
      const m = /explored (\d+) seeds? in [\d.]+ s .*\(interrupted: \1 of 100000 seeds run\)/.exec(r.stdout);
      expect(m, r.stdout).not.toBeNull();
      const run = Number(m![1]);
      // Every seed of the canary fails: each one run is a replay file (and the sweep report).
      expect(readdirSync(dir).filter((f) => /^kernel-smoke-seed-\d+\.json$/.test(f))).toHaveLength(run);
    }, 120_000);
  }

  /**
   * Starts a sweep and sends SIGINT `afterMs` after it began: after its header line (its signal
   * handlers are installed right after it is printed), or after the start with --json (30 s: a process took over 15 s to load at a load average of 15), which
   * prints nothing before its end. The delays are generous for a loaded machine; SIGKILL 100 s
   * later bounds a hang.
   */
  function interrupted(args: string[], afterMs: number): Promise<{ status: number; stdout: string; stderr: string; signal: NodeJS.Signals | null }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, FORCE_COLOR: "0" } });
      let stdout = "";
      let stderr = "";
      let timer: NodeJS.Timeout | undefined;
      const interruptLater = () => (timer ??= setTimeout(() => child.kill("SIGINT"), afterMs));
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
        if (/^zksim explore /m.test(stdout)) interruptLater();
      });
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      if (args.includes("--json")) interruptLater();
      const guard = setTimeout(() => child.kill("SIGKILL"), afterMs + 100_000);
      child.on("close", (status, signal) => {
        clearTimeout(timer);
        clearTimeout(guard);
        resolve({ status: status ?? -1, stdout, stderr, signal });
      });
    });
  }

  it("SIGINT: the summary so far (failures with replay lines), then exit 130", async () => {
    const r = await interrupted(["explore", "kernel-smoke", "--seeds", "100000", "--workers", "1", "--canary", "connection-reorder"], 10_000);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(130);
    const summary = /explored (\d+) seeds? in .*\(interrupted: (\d+) of 100000 seeds run\)/.exec(r.stdout);
    expect(summary, r.stdout).not.toBeNull();
    const run = Number(summary![1]);
    expect(run).toBeGreaterThan(0);
    expect(r.stdout.match(/^ {2}replay: zksim run kernel-smoke --seed \d+ --canary connection-reorder$/gm)).toHaveLength(run);
  });

  it("SIGINT with --json and worker threads: the JSON line with interrupted: true, then exit 130", async () => {
    const r = await interrupted(["explore", "kernel-smoke", "--seeds", "100000", "--workers", "2", "--canary", "connection-reorder", "--json"], 30_000);
    expect(r.status).toBe(130);
    const j = lastJson<{ seedsRun: number; failures: { seed: number; replay: string }[]; interrupted?: boolean }>(r);
    expect(j.interrupted).toBe(true);
    expect(j.seedsRun).toBeLessThan(100000);
    expect(j.failures).toHaveLength(j.seedsRun);
  });
});

