// The whole-API swarm's draws beyond the common corner (issue #33's mechanical mutation score:
// code no budget run reached): connect strings without ports, server settings (small snapCounts
// with autopurge, session timeout bounds) and session timeouts on both sides of them. Pure draws:
// no run here.
import { describe, expect, it } from "vitest";
import { Rng } from "../../src/sim/rng.js";
import { apiPlanOf, apiShapeOf } from "../../src/scenario/workloads/api-swarm-shape.js";

describe("api-swarm draws", () => {
  it("seeds draw small snapCounts with autopurge, session timeout bounds, wide timeout ranges and host-only connect strings", () => {
    const shapes = Array.from({ length: 200 }, (_, i) => apiShapeOf(Rng.root(i + 1), i % 2 === 0));
    const plans = Array.from({ length: 200 }, (_, i) => apiPlanOf(Rng.root(i + 1)));
    expect(shapes.some((s) => s.snapCount !== undefined && s.snapCount <= 10 && s.purgeSnapRetainCount > 0)).toBe(true);
    expect(shapes.some((s) => s.purgeSnapRetainCount === 0)).toBe(true);
    for (const s of shapes) if (s.minSessionTimeoutMs !== undefined) expect(s.maxSessionTimeoutMs!).toBeGreaterThanOrEqual(s.minSessionTimeoutMs);
    expect(shapes.some((s) => s.minSessionTimeoutMs !== undefined)).toBe(true);
    expect(plans.some((p) => p.sessionTimeoutMs[0] < 2000 && p.sessionTimeoutMs[1] > 40_000), "below 2 ticks and above 20").toBe(true);
    expect(new Set(plans.map((p) => p.hostOnlyShare))).toEqual(new Set([0, 0.5, 1]));
  });
});
