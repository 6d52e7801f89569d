import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastJson, zksim } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "zksim-replay-"));

function edited(from: string, to: string, edit: (doc: Record<string, any>) => void): string {
  const doc = JSON.parse(readFileSync(from, "utf8"));
  edit(doc);
  writeFileSync(to, JSON.stringify(doc));
  return to;
}

describe("cli: replay", () => {
  const saved = join(dir, "kernel-smoke-canary.json");
  let hash = "";

  it("run --save writes a failing case and replay reproduces it (exit 1, same hash)", async () => {
    const run = await zksim("run", "kernel-smoke", "--canary", "connection-reorder", "--save", saved, "--json");
    expect(run.status).toBe(1);
    hash = lastJson<{ traceHash: string }>(run).traceHash;
    const file = JSON.parse(readFileSync(saved, "utf8"));
    expect(file).toMatchObject({ zksim: "replay/1", seed: 1, bugs: [], canary: "connection-reorder", expected: { traceHash: hash, verdict: "fail" } });
    expect(file.scenario.faults.length).toBe(24);
    const r = await zksim("replay", saved);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`reproduced: ${hash}`);
    expect(r.stderr).toBe("");
  });

  it("a bug-zoo case reproduces", async () => {
    const f = join(dir, "bug-1154.json");
    expect((await zksim("run", "bug-1154", "--bug", "1154", "--save", f)).status).toBe(1);
    const html = join(dir, "bug-1154.html");
    const r = await zksim("replay", f, "--json", "--trace", html);
    expect(r.status).toBe(1);
    const replayed = lastJson<{ actual: string }>(r);
    expect(replayed).toMatchObject({ reproduced: true, verdict: "fail" });
    // --trace draws the run replayed: its hash in the diagram's header.
    expect(readFileSync(html, "utf8")).toContain(`trace hash <code>${replayed.actual}</code>`);
  });

  it("a passing run saves nothing", async () => {
    const f = join(dir, "pass.json");
    const r = await zksim("run", "kernel-smoke", "--save", f);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("nothing saved");
    expect((await zksim("replay", f)).status).toBe(2);
  });

  it("a changed seed gives a different hash: did not reproduce (exit 4)", async () => {
    const f = edited(saved, join(dir, "seed.json"), (d) => (d.seed = 2));
    const r = await zksim("replay", f);
    expect(r.status).toBe(4);
    expect(r.stdout).toContain(`did not reproduce: expected trace hash ${hash}, got `);
    expect(r.stdout).toContain("first differing violation #");
  });

  it("a changed expected checker with the same hash does not reproduce", async () => {
    const f = edited(saved, join(dir, "checker.json"), (d) => (d.expected.violations[0].checker = "kernel.other"));
    const r = await zksim("replay", f);
    expect(r.status).toBe(4);
    expect(r.stdout).toMatch(/did not reproduce: same trace hash .* failing checkers differ/);
    expect(r.stdout).toContain("first differing violation #0");
  });

  it.each<[string, (path: string) => void]>([
    ["broken JSON", (p) => writeFileSync(p, '{"zksim": "replay/1", ')],
    ["wrong version", (p) => edited(saved, p, (d) => (d.zksim = "replay/0"))],
    ["missing field", (p) => edited(saved, p, (d) => delete d.expected)],
    ["invalid scenario", (p) => edited(saved, p, (d) => (d.scenario.workload.kind = "nope"))],
    ["unknown bug", (p) => edited(saved, p, (d) => (d.bugs = ["ZK-1"]))],
  ])("a corrupt file (%s) is one line on stderr, exit 2", async (what, write) => {
    const f = join(dir, `corrupt-${what.replace(/ /g, "-")}.json`);
    write(f);
    const r = await zksim("replay", f);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^zksim: /);
  });

  it("a missing file is exit 2", async () => {
    const r = await zksim("replay", join(dir, "absent.json"));
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("explore --save-dir writes a replay file per failing seed, and each reproduces", async () => {
    const out = join(dir, "sweep");
    const r = await zksim("explore", "kernel-smoke", "--seeds", "2", "--from", "5", "--canary", "connection-reorder", "--save-dir", out, "--json");
    expect(r.status).toBe(1);
    expect(lastJson<{ failures: unknown[] }>(r).failures).toHaveLength(2);
    const replay = await zksim("replay", join(out, "kernel-smoke-seed-6.json"));
    expect(replay.status).toBe(1);
    expect(replay.stdout).toContain("reproduced: ");
  });
});
