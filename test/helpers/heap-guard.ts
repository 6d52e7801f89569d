/**
 * The heap guard in a real process with a small heap (docs/long-runs.md, "The heap guard"): with
 * `--max-old-space-size=oldSpaceMb` and zksim's own 64 MiB semi-spaces, the scenario stops with
 * the guard's one line and exit 3 — never V8's "JavaScript heap out of memory" abort (exit 134).
 * `npm test` runs `soak-tree-100k` at 40 MB (test/scenario/heap-guard-child.test.ts), whose tree
 * once filled such a heap before the guard's first probe; `npm run test:deep` runs it at 60 MB
 * and `soak-10m` at 96 MB, where the runs go further before the heap fills
 * (heap-guard-child.deep.test.ts).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));

export function heapGuardStops(scenario: string, oldSpaceMb: number): void {
  it(`--max-old-space-size=${oldSpaceMb}: ${scenario} stops itself with one line and exit 3`, () => {
    const r = spawnSync(process.execPath, ["--max-semi-space-size=64", `--max-old-space-size=${oldSpaceMb}`, BIN, "run", scenario], { encoding: "utf8", timeout: 300_000 });
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.status, r.stderr.slice(-2000)).toBe(3);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^zksim: run stopped: the heap reached \\d+ MB \\(limit ${Math.round(0.9 * oldSpaceMb)} MB\\) at virtual [\\d.]+ s after \\d+ events; `));
    expect(lines[0]).toMatch(
      new RegExp(`replay: zksim run ${scenario} --seed 1; to finish it, give node a larger heap \\(NODE_OPTIONS=--max-old-space-size=MB, now ${oldSpaceMb}\\) or run a smaller scenario`),
    );
  }, 320_000);
}
