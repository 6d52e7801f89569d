import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HTML_MAX_EVENTS, openTraceReport } from "../../src/cli/report/trace-report.js";
import type { TraceEvent } from "../../src/sim/trace.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("cli: --trace FILE.html keeps a bounded prefix", () => {
  it("a long run with no message at all stops collecting at HTML_MAX_EVENTS events and says so", () => {
    const dir = mkdtempSync(join(tmpdir(), "zksim-report-"));
    dirs.push(dir);
    const report = openTraceReport(join(dir, "run.html"))!;
    const total = HTML_MAX_EVENTS + 1000;
    for (let i = 0; i < total; i++) report.add({ index: i, atUs: i * 1000, kind: "timer", node: "n1" });
    const held = (report as unknown as { events: TraceEvent[] }).events.length;
    expect(held).toBe(HTML_MAX_EVENTS);
    const note = report.finish({ scenario: "t", seed: 1, events: total, virtualMs: total, verdict: "pass", violations: [], traceHash: "0" });
    expect(note).toBe(`diagram shows the first ${HTML_MAX_EVENTS} events`);
    expect(readFileSync(join(dir, "run.html"), "utf8")).toContain("<html");
  });
});
