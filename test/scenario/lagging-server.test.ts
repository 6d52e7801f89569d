import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import type { TraceEvent } from "../../src/sim/trace.js";
import type { AnyCanary } from "../../src/scenario/canaries.js";
import { scenarioAsRun } from "../../src/scenario/replay-file.js";
import { parseFaultSchedule } from "../../src/sim/faults.js";
import { ZAB_TRACE_ROLES } from "../../src/scenario/workloads/zk.js";

/** The (client, server) pairs of a run's refused connects and of its re-attached sessions, at the stale leader. */
async function meetings(seed: number, canary?: AnyCanary): Promise<{ refused: string[]; established: string[]; violations: string[] }> {
  const refused: string[] = [];
  const established: string[] = [];
  const onTraceEvent = (e: TraceEvent) => {
    if (e.kind === "zk.cnxn.refused") refused.push(`${String(e.fields?.client)}@${e.node}`);
    if (e.kind === "zk.session.established") established.push(`${String(e.fields?.client)}@${e.node}`);
  };
  const r = await runScenario(loadScenario("zab-lagging-server"), { seed, onTraceEvent, ...(canary ? { canary } : {}) });
  return { refused, established, violations: r.violations.map((v) => v.checker) };
}

describe("scenario: lagging servers that clients can still reach", () => {
  it("lagging-server: the drawn list is valid data (a stale leader named by its clock event), drawn once", () => {
    const listed = scenarioAsRun(loadScenario("zab-lagging-server"), 5);
    expect(scenarioAsRun(listed, 5)).toBe(listed);
    const nodes = ["s1", "s2", "s3", "s4", "s5", "s6", "c1", "c2", "c3", "c4"];
    expect(parseFaultSchedule(JSON.parse(JSON.stringify(listed.faults)), nodes, "faults", ZAB_TRACE_ROLES.roles.map((r) => r.role))).toEqual(listed.faults);
    expect(listed.faults.some((f) => f.kind === "clock" && f.node === "$leader")).toBe(true);
    expect(listed.faults.some((f) => f.kind === "heal" && f.to?.includes("$1") && f.when?.some((w) => w.after === "clock"))).toBe(true);
  });

  it("zab-lagging-server seed 5: a stale leader refuses clients ahead of it; one that forgets its lastZxidSeen is taken in", async () => {
    const ok = await meetings(5);
    expect(ok.violations).toEqual([]);
    // The stale leader s3 (slow clock, cut off) refuses the clients the new epoch served.
    expect(ok.refused.filter((m) => m.endsWith("@s3")).length).toBeGreaterThanOrEqual(3);
    const broken = await meetings(5, "forget-last-zxid");
    expect(broken.refused).toEqual([]);
    // The same clients are re-attached there instead, behind what they have seen.
    for (const m of new Set(ok.refused)) expect(broken.established, m).toContain(m);
  });
});
