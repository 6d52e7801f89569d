/**
 * The heap guard in a real process with a small heap (docs/long-runs.md, "The heap guard"): with
 * `--max-old-space-size=oldSpaceMb` and zksim's own 64 MiB semi-spaces, `soak-10m` stops with the
 * guard's one line and exit 3 — never V8's "JavaScript heap out of memory" abort (exit 134).
 * `npm test` runs it at 48 MB (test/scenario/heap-guard-child.test.ts), `npm run test:deep` at
 * 96 MB, where the run goes further before the heap fills (heap-guard-child.deep.test.ts).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));

export function heapGuardStopsSoak(oldSpaceMb: number): void {
  it(`--max-old-space-size=${oldSpaceMb}: soak-10m stops itself with one line and exit 3`, () => {
    const r = spawnSync(process.execPath, ["--max-semi-space-size=64", `--max-old-space-size=${oldSpaceMb}`, BIN, "run", "soak-10m"], { encoding: "utf8", timeout: 300_000 });
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.status, r.stderr.slice(-2000)).toBe(3);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^zksim: run stopped: the heap reached \\d+ MB \\(limit ${Math.round(0.9 * oldSpaceMb)} MB\\) at virtual [\\d.]+ s after \\d+ events; `));
    expect(lines[0]).toMatch(new RegExp(`replay: zksim run soak-10m --seed 1; to finish it, give node a larger heap \\(NODE_OPTIONS=--max-old-space-size=MB, now ${oldSpaceMb}\\)`));
  }, 320_000);
}
