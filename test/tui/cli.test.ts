/**
 * `zksim learn` in plain mode through the built CLI: scripts, exit 2 on bad commands and
 * options, a saved session that `zksim replay` re-executes (and notices when it does not
 * reproduce) and `learn --open` re-opens.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { zksim } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "zksim-learn-"));
const env = { XDG_CONFIG_HOME: dir };

async function learn(...args: string[]) {
  const saved = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = env.XDG_CONFIG_HOME;
  try {
    return await zksim("learn", ...args);
  } finally {
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
  }
}

describe("tui: zksim learn (plain)", () => {
  it("tui: cli: a script runs and prints frames; a bad command exits 2 with one error line", async () => {
    const ok = await learn("zab", "--script", "step 3; back; show");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/> back\nback at step 2/);
    const bad = await learn("--script", "step 2; teleport s1");
    expect(bad.status).toBe(2);
    expect(bad.stdout).toMatch(/^error: unknown command "teleport"/m);
    expect((await learn("--lesson", "nope")).stderr).toMatch(/^zksim: learn: no zab lesson "nope" \(lessons: quorum-commit/);
    expect((await learn("--variant", "7")).status).toBe(2);
  });

  it("tui: cli: a finished lesson is recorded in the progress file and listed as done", async () => {
    const r = await learn("--lesson", "isolated-leader", "--script", "cut s3 <-> s1,s2; run 15s");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/✓ GOAL REACHED/);
    expect(JSON.parse(readFileSync(join(dir, "zksim", "learn.json"), "utf8"))).toEqual({ completed: ["zab/isolated-leader"] });
    expect((await learn("--lessons")).stdout).toMatch(/^\s+✓ isolated-leader/m);
  });

  it("tui: cli: a saved session replays (exit 0), re-opens, and a tampered one does not reproduce (exit 4)", async () => {
    const file = join(dir, "s.json");
    expect((await learn("--script", "write c1 /a 1; step 5; back 2; crash s2; step 3", "--save", file)).status).toBe(0);
    const replay = await zksim("replay", file);
    expect(replay.status).toBe(0);
    expect(replay.stdout).toMatch(/zksim replay .*: reproduced \(trace [0-9a-f]{16}\)/);
    const reopened = await learn("--open", file, "--script", "branch");
    expect(reopened.stdout).toMatch(/▶ branch 1: 6 steps, 2 action\(s\), from branch 0 at step 3/);
    const saved = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...saved, traceHash: "0000000000000000" }));
    expect((await zksim("replay", file)).status).toBe(4);
    writeFileSync(file, JSON.stringify({ ...saved, branches: [{ marks: [] }] }));
    const bad = await zksim("replay", file);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/branches\[0\]\.marks must be a non-empty list/);
  });
});
