import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenarioWithSim } from "../../src/scenario/run.js";
import { layoutSpaceTime, renderSpaceTimeHtml, SPACE_TIME_MAX_MESSAGES } from "../../src/scenario/report/index.js";
import type { TraceEvent } from "../../src/sim/trace.js";

async function traced(name: string, seed = 1) {
  const { sim, result } = await runScenarioWithSim(loadScenario(name), { seed, retainTrace: true });
  return { events: sim.trace.events, result };
}

const count = (html: string, needle: string) => html.split(needle).length - 1;
const nodesOf = (events: readonly TraceEvent[]) => new Set(events.flatMap((e) => [e.node, e.peer ?? ""]).filter((n) => n !== ""));

describe("scenario: report: space-time diagram (HTML)", () => {
  it("zab-isolated-leader: one lane per node, one arrow per delivered message, one span per client op", async () => {
    const { events, result } = await traced("zab-isolated-leader");
    const html = renderSpaceTimeHtml(events, result);
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(count(html, "<svg")).toBe(2); // lane heads + diagram
    expect(count(html, "<svg")).toBe(count(html, "</svg>"));
    expect(count(html, "<g")).toBe(count(html, "</g>"));
    expect(count(html, `<g class="lane"`)).toBe(nodesOf(events).size);
    for (const n of nodesOf(events)) expect(html).toContain(`data-node="${n}"`);
    const delivered = events.filter((e) => e.kind === "deliver").length;
    expect(delivered).toBeLessThan(SPACE_TIME_MAX_MESSAGES);
    expect(count(html, `<line class="msg`)).toBe(delivered);
    expect(count(html, `<g class="op `)).toBe(events.filter((e) => e.kind === "client.invoke").length);
    expect(html).toContain(`<g class="op unknown"`); // the minority's write: CONNECTIONLOSS
    expect(count(html, `class="role `)).toBe(events.filter((e) => e.kind === "zab.state").length);
    expect(html).toContain(`<g class="world"`); // the partition and the heal
    // The summary header.
    expect(html).toContain(`zab-isolated-leader · seed 1`);
    expect(html).toContain(result.traceHash);
    expect(html).toContain("PASS");
  });

  it("is self-contained: no URLs, no external scripts, styles or images", async () => {
    const { events, result } = await traced("zab-leader-crash-before-commit");
    const html = renderSpaceTimeHtml(events, result);
    expect(html).not.toMatch(/https?:/);
    expect(html).not.toMatch(/<script[^>]*\ssrc=|<link\b|<img\b|@import|url\((?!#)/);
    expect(html).toContain(`class="fault crash"`);
    expect(html).toContain(`class="commit"`);
  });

  it("caps a large trace at the first deliveries and says so", async () => {
    const { events, result } = await traced("kernel-smoke");
    const delivered = events.filter((e) => e.kind === "deliver").length;
    expect(delivered).toBeGreaterThan(SPACE_TIME_MAX_MESSAGES);
    const html = renderSpaceTimeHtml(events, result);
    expect(count(html, `<line class="msg`)).toBe(SPACE_TIME_MAX_MESSAGES);
    expect(html).toContain(`showing the first ${SPACE_TIME_MAX_MESSAGES} delivered messages`);
    const small = renderSpaceTimeHtml(events, result, { maxMessages: 40 });
    expect(count(small, `<line class="msg`)).toBe(40);
  });

  it("the same events give the same page; time runs down and idle stretches are compressed", async () => {
    const { events, result } = await traced("zab-isolated-leader", 2);
    expect(renderSpaceTimeHtml(events, result)).toBe(renderSpaceTimeHtml(events, result));
    const layout = layoutSpaceTime(events);
    for (let i = 1; i < layout.ticks.length; i++) expect(layout.ticks[i]!.y).toBeGreaterThan(layout.ticks[i - 1]!.y);
    for (const a of layout.arrows) expect(a.y2).toBeGreaterThanOrEqual(a.y1);
    // Seconds of idle virtual time cost a bounded number of pixels.
    const steps = layout.ticks.slice(1).map((t, i) => ({ px: t.y - layout.ticks[i]!.y, us: t.gapUs }));
    expect(Math.max(...steps.map((s) => s.us))).toBeGreaterThanOrEqual(1_000_000);
    expect(Math.max(...steps.map((s) => s.px))).toBeLessThanOrEqual(52);
  });

  it("a failing run says FAIL, lists its violations and rules them across the diagram", async () => {
    const { sim, result } = await runScenarioWithSim(loadScenario("kernel-smoke"), { seed: 1, retainTrace: true, canary: "connection-reorder" });
    expect(result.verdict).toBe("fail");
    const html = renderSpaceTimeHtml(sim.trace.events, result);
    expect(html).toContain(`<b class="fail">FAIL</b>`);
    expect(html).toContain(`[kernel.connection-fifo]`);
    const shown = layoutSpaceTime(sim.trace.events).shownUntilUs;
    const inView = result.violations.slice(0, 10).filter((v) => v.atMs * 1000 <= shown).length;
    expect(inView).toBeGreaterThan(0);
    expect(count(html, `<g class="violation"`)).toBe(inView);
  });

  it("escapes whatever the trace carries", () => {
    const events: TraceEvent[] = [
      { index: 0, atUs: 0, kind: "send", node: "a<b", peer: "c", id: 1, detail: `"><script>alert(1)</script>` },
      { index: 1, atUs: 500, kind: "deliver", node: "c", peer: "a<b", id: 1, detail: `"><script>alert(1)</script>` },
    ];
    const html = renderSpaceTimeHtml(events, { scenario: "x&y", seed: 1, traceHash: "0", verdict: "fail", violations: [{ checker: "c", message: "<b>", eventIndex: 1, atMs: 0.5 }], events: 2, virtualMs: 1 });
    expect(count(html, "<script")).toBe(1);
    expect(html).not.toContain("<b>");
    expect(count(html, `<line class="msg`)).toBe(1);
    expect(count(html, `<g class="lane"`)).toBe(2);
  });
});
