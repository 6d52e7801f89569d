import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastJson, zksim } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "zksim-report-"));

describe("cli: run --trace reports", () => {
  it("--trace FILE.html writes a self-contained space-time diagram with one arrow per delivered message", async () => {
    const jsonl = join(dir, "a.jsonl");
    const html = join(dir, "a.html");
    const a = await zksim("run", "zab-isolated-leader", "--seed", "3", "--json", "--trace", jsonl);
    const b = await zksim("run", "zab-isolated-leader", "--seed", "3", "--json", "--trace", html);
    expect(b.status).toBe(0);
    expect(lastJson(b).traceHash).toBe(lastJson(a).traceHash); // collecting events changes nothing
    const events = readFileSync(jsonl, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { kind: string; node: string; peer?: string });
    const page = readFileSync(html, "utf8");
    expect(page).toContain("<svg");
    expect(page).not.toMatch(/https?:/);
    const delivered = events.filter((e) => e.kind === "deliver").length;
    expect(page.split(`<line class="msg`).length - 1).toBe(Math.min(delivered, 5000));
    const nodes = new Set(events.flatMap((e) => [e.node, e.peer ?? ""]).filter((n) => n !== ""));
    expect(page.split(`<g class="lane"`).length - 1).toBe(nodes.size);
    expect(page).toContain(lastJson<{ traceHash: string }>(b).traceHash);
  });

  it("--trace FILE.shiviz writes a ShiViz log whose first line is its parser regex", async () => {
    const file = join(dir, "b.shiviz");
    const r = await zksim("run", "zab-leader-crash-before-commit", "--trace", file);
    expect(r.status).toBe(0);
    const [regex, delimiter, ...log] = readFileSync(file, "utf8").trim().split("\n");
    expect(delimiter).toBe("");
    const re = new RegExp(`^${regex!}$`);
    expect(log.length).toBeGreaterThan(100);
    for (const line of log) expect(re.test(line), line).toBe(true);
  });

  it("a large trace is capped and the run says so on stderr", async () => {
    const file = join(dir, "c.html");
    const r = await zksim("run", "kernel-smoke", "--trace", file);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/first 5000 delivered messages/);
    expect(readFileSync(file, "utf8").split(`<line class="msg`).length - 1).toBe(5000);
  });

  it("an unwritable report path is bad input (exit 2, one line)", async () => {
    const r = await zksim("run", "kernel-smoke", "--trace", join(dir, "no-such-dir", "x.html"));
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
