import { describe, expect, it } from "vitest";
import { asEvent } from "../helpers/loose-events.js";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenarioWithSim } from "../../src/scenario/run.js";
import { renderShiviz, WORLD_HOST } from "../../src/scenario/report/index.js";
import type { TraceEvent } from "../../src/sim/trace.js";

interface Line {
  host: string;
  clock: Record<string, number>;
  event: string;
}

/** Parses a ShiViz log the way ShiViz does: the regex on line 1, the log after line 2. */
function parse(text: string): Line[] {
  const [regex, delimiter, ...log] = text.replace(/\n$/, "").split("\n");
  expect(delimiter).toBe("");
  const re = new RegExp(`^${regex!}$`);
  return log.map((l) => {
    const m = re.exec(l);
    expect(m, l).not.toBeNull();
    return { host: m!.groups!.host!, clock: JSON.parse(m!.groups!.clock!) as Record<string, number>, event: m!.groups!.event! };
  });
}

const leq = (a: Record<string, number>, b: Record<string, number>) => Object.entries(a).every(([h, t]) => t <= (b[h] ?? 0));

/** ShiViz's rules: the host is in its clock, starts at 1 and steps by exactly 1; no entry goes back. */
function expectMonotone(lines: readonly Line[]): void {
  const last = new Map<string, Record<string, number>>();
  for (const l of lines) {
    const prev = last.get(l.host);
    expect(l.clock[l.host], l.event).toBe((prev?.[l.host] ?? 0) + 1);
    if (prev) expect(leq(prev, l.clock), l.event).toBe(true);
    last.set(l.host, l.clock);
  }
}

describe("scenario: report: ShiViz log", () => {
  it("zab-isolated-leader: every line parses with the log's own regex; clocks are monotone per host", async () => {
    const { sim } = await runScenarioWithSim(loadScenario("zab-isolated-leader"), { seed: 1, retainTrace: true });
    const events = sim.trace.events;
    const log = renderShiviz(events);
    const lines = parse(log.text);
    expect(log.truncated).toBe(false);
    expect(lines).toHaveLength(events.filter((e) => e.kind !== "timer").length);
    expectMonotone(lines);
    expect(new Set(lines.map((l) => l.host))).toEqual(new Set([...events.map((e) => (e.node === "" ? WORLD_HOST : e.node))]));
  });

  it("a delivery happens after its send: its clock dominates the sender's clock at send", async () => {
    const { sim } = await runScenarioWithSim(loadScenario("kernel-smoke"), { seed: 1, retainTrace: true });
    const events = sim.trace.events.filter((e) => e.kind !== "timer").slice(0, 8000);
    const lines = parse(renderShiviz(events).text);
    expectMonotone(lines);
    const sentClock = new Map<number, Record<string, number>>();
    events.forEach((e, i) => {
      if (e.kind === "send") sentClock.set(e.id!, lines[i]!.clock);
      if (e.kind === "deliver") expect(leq(sentClock.get(e.id!)!, lines[i]!.clock)).toBe(true);
    });
  });

  it("a hand-made exchange gives the textbook clocks", () => {
    const ev = (index: number, kind: string, node: string, peer: string | undefined, id?: number): TraceEvent => asEvent({ index, atUs: index * 10, kind, node, ...(peer ? { peer } : {}), ...(id ? { id } : {}) });
    const events = [ev(0, "send", "a", "b", 1), ev(1, "timer", "b", undefined), ev(2, "send", "b", "c", 2), ev(3, "deliver", "b", "a", 1), ev(4, "deliver", "c", "b", 2), ev(5, "partition", "", undefined)];
    const lines = parse(renderShiviz(events).text);
    expect(lines.map((l) => [l.host, l.clock])).toEqual([
      ["a", { a: 1 }],
      ["b", { b: 1 }],
      ["b", { b: 2, a: 1 }],
      ["c", { c: 1, b: 1 }],
      [WORLD_HOST, { [WORLD_HOST]: 1 }],
    ]);
  });

  it("caps the log and says so", () => {
    const events: TraceEvent[] = Array.from({ length: 30 }, (_, i) => asEvent({ index: i, atUs: i, kind: "zab.log", node: "s1" }));
    const log = renderShiviz(events, 10);
    expect(log).toMatchObject({ written: 10, truncated: true });
    expect(parse(log.text)).toHaveLength(10);
  });
});
