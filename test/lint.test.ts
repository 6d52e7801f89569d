import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const LINT = fileURLToPath(new URL("../scripts/lint-determinism.mjs", import.meta.url));

function lint(files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), "zksim-lint-"));
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(join(root, "src", name, ".."), { recursive: true });
    writeFileSync(join(root, "src", name), body);
  }
  return spawnSync(process.execPath, [LINT, "src"], { cwd: root, encoding: "utf8" });
}

describe("determinism lint", () => {
  it("passes on the project's own sources", () => {
    expect(spawnSync(process.execPath, [LINT], { encoding: "utf8" }).status).toBe(0);
  });

  for (const [what, code] of [
    ["Date.now", "export const t = Date.now();"],
    ["Math.random", "export const r = Math.random();"],
    ["setTimeout", "setTimeout(() => 1, 5);"],
    ["performance.now", "export const p = performance.now();"],
    ["real I/O", 'import { readFileSync } from "node:fs";'],
  ] as const) {
    it(`fails on ${what} in simulated code, but not in cli/`, () => {
      const bad = lint({ "sim/x.ts": code });
      expect(bad.status).toBe(1);
      expect(bad.stderr).toMatch(/sim\/x\.ts:1/);
      expect(lint({ "cli/x.ts": code }).status).toBe(0);
    });
  }
});
