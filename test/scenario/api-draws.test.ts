// The whole-API swarm's draws beyond the common corner (issue #33's mechanical mutation score:
// code no budget run reached): IPv6 `ip` ids of every spelling, connect strings without ports,
// server settings (small snapCounts with autopurge, session timeout bounds) and session timeouts
// on both sides of them. Pure draws: no run here. The reference model and the server must agree
// on every IPv6 id drawn (valid or INVALIDACL), or the swarm would judge the server by a wrong rule.
import { describe, expect, it } from "vitest";
import { Rng } from "../../src/sim/rng.js";
import { isValidIpId } from "../../src/zk/server/acl.js";
import { fixupAcl, type Identities } from "../../src/check/linearizability/zk-acl.js";
import { ApiDraws } from "../../src/scenario/scripts/api-draws.js";
import { ACL_KINDS, apiPlanOf, apiShapeOf, type AclKind } from "../../src/scenario/workloads/api-swarm-shape.js";

const IDS: Identities = { digests: [], ip: "10.0.0.7", super: false, uncertain: false };

function ipIds(seed: number, n: number): string[] {
  const plan = { ...apiPlanOf(Rng.root(seed)), acls: Object.fromEntries(ACL_KINDS.map((k) => [k, k === "ip" ? 1 : 0])) as Record<AclKind, number> };
  const draws = new ApiDraws(Rng.root(seed).fork("actor"), plan, ["10.0.0.7", "10.0.0.8"]);
  return Array.from({ length: n }, () => draws.acl()[0]!.id.id);
}

describe("api-swarm draws", () => {
  it("IPv6 ip ids of every spelling, valid and not; the server and the reference model agree on each", () => {
    const v6 = [1, 2, 3].flatMap((seed) => ipIds(seed, 600)).filter((id) => id.includes(":"));
    const valid = v6.filter((id) => isValidIpId(id));
    for (const id of v6) expect(fixupAcl([`ip:${id}:31`], IDS) === "INVALIDACL", id).toBe(!isValidIpId(id));
    expect(valid.some((id) => !id.includes("::") && !id.includes("/")), "eight groups").toBe(true);
    expect(valid.some((id) => id.includes("::") && id !== "::"), "a compressed address").toBe(true);
    expect(valid.some((id) => id.includes("/")), "a prefix").toBe(true);
    expect(v6.length - valid.length, "malformed ones").toBeGreaterThan(20);
  });

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
