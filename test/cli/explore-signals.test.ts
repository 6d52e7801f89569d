/**
 * explore keeps its results on SIGINT and on SIGTERM alike (src/cli/explore/command.ts): the
 * summary of the seeds that ran, their replay files under --save-dir, and exit 130 / 143.
 * Before, SIGTERM killed the process with nothing printed and --save-dir left empty.
 *
 * The tests signal a child process on an event, not after a delay: once the sweep's first seed
 * has an outcome (the first drawing of the progress bar, shown because a preloaded module,
 * test/fixtures/signal-watch.mjs, makes stdout report itself a terminal), or with --json (which
 * draws no bar) once the command has installed its signal handlers (the same module says so on
 * stderr). The child is still a real process that a real signal stops, so vitest.config.ts runs
 * this file alone (WALL_CLOCK_TESTS).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { lastJson } from "../helpers/cli.js";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));
const SIGNAL_WATCH = new URL("../fixtures/signal-watch.mjs", import.meta.url).href;

interface Interrupted {
  status: number;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The progress bar after at least one seed's outcome: `[#...] 1/100000 seeds, …`. */
const FIRST_OUTCOME = /\[[#.]+\] [1-9]\d*\/\d+ seeds/;
const HANDLERS_INSTALLED = /^signal-watch: handlers installed$/m;

/**
 * Runs `zksim ...args` (a long failing sweep) and sends it `signal` once its first seed has an
 * outcome, or with --json once its handlers are installed; SIGKILL 100 s after the start bounds
 * a hang.
 */
function interruptedSweep(args: string[], signal: NodeJS.Signals): Promise<Interrupted> {
  const json = args.includes("--json");
  return new Promise((resolve) => {
    const env = { ...process.env, FORCE_COLOR: "0", ...(json ? {} : { ZKSIM_TEST_STDOUT_TTY: "1" }) };
    const child = spawn(process.execPath, ["--import", SIGNAL_WATCH, BIN, ...args], { env });
    let stdout = "";
    let stderr = "";
    let sent = false;
    const send = () => {
      if (sent) return;
      sent = true;
      child.kill(signal);
    };
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (!json && FIRST_OUTCOME.test(stdout)) send();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (json && HANDLERS_INSTALLED.test(stderr)) send();
    });
    const guard = setTimeout(() => child.kill("SIGKILL"), 100_000);
    child.on("close", (status, killedBy) => {
      clearTimeout(guard);
      resolve({ status: status ?? -1, signal: killedBy, stdout, stderr });
    });
  });
}

const SWEEP = ["explore", "kernel-smoke", "--seeds", "100000", "--canary", "connection-reorder"];

describe("explore: SIGINT and SIGTERM keep the results", () => {
  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
    it(`${signal} on two workers: the summary, the replay files, exit ${code}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), `zksim-${signal}-`));
      const r = await interruptedSweep([...SWEEP, "--workers", "2", "--save-dir", dir], signal);
      expect(r.signal, r.stderr).toBeNull();
      expect(r.status, r.stdout + r.stderr).toBe(code);
      const m = /explored (\d+) seeds? in [\d.]+ s .*\(interrupted: \1 of 100000 seeds run\)/.exec(r.stdout);
      expect(m, r.stdout).not.toBeNull();
      const run = Number(m![1]);
      expect(run).toBeGreaterThan(0);
      // Every seed of the canary fails: each one run is a replay file (and the sweep report).
      expect(readdirSync(dir).filter((f) => /^kernel-smoke-seed-\d+\.json$/.test(f))).toHaveLength(run);
    });
  }

  it("SIGINT in process: the summary so far (failures with replay lines), then exit 130", async () => {
    const r = await interruptedSweep([...SWEEP, "--workers", "1"], "SIGINT");
    expect(r.signal, r.stderr).toBeNull();
    expect(r.status, r.stdout + r.stderr).toBe(130);
    const summary = /explored (\d+) seeds? in .*\(interrupted: (\d+) of 100000 seeds run\)/.exec(r.stdout);
    expect(summary, r.stdout).not.toBeNull();
    const run = Number(summary![1]);
    expect(run).toBeGreaterThan(0);
    expect(r.stdout.match(/^ {2}replay: zksim run kernel-smoke --seed \d+ --canary connection-reorder$/gm)).toHaveLength(run);
  });

  it("SIGINT with --json and worker threads: the JSON line with interrupted: true, then exit 130", async () => {
    const r = await interruptedSweep([...SWEEP, "--workers", "2", "--json"], "SIGINT");
    expect(r.signal, r.stderr).toBeNull();
    expect(r.status, r.stdout + r.stderr).toBe(130);
    const j = lastJson<{ seedsRun: number; failures: { seed: number; replay: string }[]; interrupted?: boolean }>(r);
    expect(j.interrupted).toBe(true);
    expect(j.seedsRun).toBeLessThan(100000);
    expect(j.failures).toHaveLength(j.seedsRun);
  });
});
