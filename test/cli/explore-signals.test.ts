/**
 * explore keeps its results on SIGINT and on SIGTERM alike (src/cli/explore/command.ts): the
 * summary of the seeds that ran, their replay files under --save-dir, and exit 130 / 143.
 * Before, SIGTERM killed the process with nothing printed and --save-dir left empty.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

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
});
