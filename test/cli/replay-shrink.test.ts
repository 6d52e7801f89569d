import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zksim } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "zksim-shrink-"));

describe("cli: shrink", () => {
  it("shrinks a canary failure in a scenario with many faults; the shrunk file reproduces", async () => {
    const f = join(dir, "k.json");
    expect((await zksim("run", "kernel-smoke", "--canary", "connection-reorder", "--save", f)).status).toBe(1);
    const out = join(dir, "k-small.json");
    const r = await zksim("shrink", f, "--out", out);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/faults: +24 → \d+/);
    expect(r.stdout).toMatch(/durationMs: +20000 → \d+/);
    expect(r.stdout).toMatch(/decision stream: [\d,]+ of [\d,]+ draws simplified/);
    expect(r.stdout).toContain(`replay: zksim replay ${out}`);
    const before = JSON.parse(readFileSync(f, "utf8"));
    const after = JSON.parse(readFileSync(out, "utf8"));
    expect(after.scenario.faults.length).toBeLessThan(before.scenario.faults.length);
    expect(after.scenario.durationMs).toBeLessThanOrEqual(before.scenario.durationMs);
    expect(after.seed).toBe(before.seed);
    expect(after.simplify.length).toBeGreaterThan(0);
    expect(after.expected.violations[0].checker).toBe("kernel.connection-fifo");
    const replay = await zksim("replay", out);
    expect(replay.status).toBe(1);
    expect(replay.stdout).toContain(`reproduced: ${after.expected.traceHash}`);
  });

  it("shortens a bug-zoo case with the default output name", async () => {
    const f = join(dir, "bug-1154.json");
    expect((await zksim("run", "bug-1154", "--bug", "1154", "--save", f)).status).toBe(1);
    const r = await zksim("shrink", f, "--max-runs", "30");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/of at most 30/);
    const shrunk = join(dir, "bug-1154.shrunk.json");
    const after = JSON.parse(readFileSync(shrunk, "utf8"));
    expect(after.scenario.durationMs).toBeLessThan(120000);
    expect(after.expected.violations.every((v: { checker: string }) => v.checker === "zab.prefix-consistency")).toBe(true);
    expect((await zksim("replay", shrunk)).status).toBe(1);
  });

  it("a corrupt file is exit 2", async () => {
    const r = await zksim("shrink", join(dir, "absent.json"));
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
