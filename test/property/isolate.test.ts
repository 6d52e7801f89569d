/**
 * The `isolate` disruption (src/property/disruptions.ts): a server cut off from the other
 * servers, both ways, while its clients still reach it. Its fault touches server-to-server
 * links only; it is re-aimed at a smaller ensemble's servers; a lone server is never isolated;
 * and in a run it does what it is for — a follower isolated under a reader keeps serving it,
 * behind the quorum, so a read without `sync` misses a write another client had confirmed,
 * while the same read after `sync` does not. `weights` tilts the draw toward a kind.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runUserScript } from "../../src/api/index.js";
import { FAULT_MIXES } from "../../src/api/fault-mixes.js";
import { userScenarioArbitrary } from "../../src/api/user-property.js";
import type { Scenario } from "../../src/scenario/types.js";
import { disruptionAction, faultsOf, projectDisruption, type Disruption } from "../../src/property/disruptions.js";
import { disruptionsArbitrary } from "../../src/property/fault-schedule.js";
// @ts-expect-error: a plain JavaScript module (what a user writes), without declarations
import { syncedConfigReader, unsyncedConfig, where } from "../api/fixtures/scripts.mjs";

const servers = ["s1", "s2", "s3"];
const window = { startMs: 1000, endMs: 20_000 };

describe("isolate", () => {
  it("cuts the server from its peers both ways and leaves every client link alone", () => {
    const d: Disruption = { kind: "isolate", node: "s2", peers: ["s1", "s3"], atMs: 1000, forMs: 500 };
    expect(disruptionAction(d)).toEqual({ kind: "cut", from: ["s2"], to: ["s1", "s3"], oneWay: false });
    expect(faultsOf([d]).map((f) => f.kind)).toEqual(["cut", "heal"]);
    const drawn = fc.sample(disruptionsArbitrary({ servers, clients: ["c1", "c2"] }, window, { kinds: ["isolate"] }), { seed: 5, numRuns: 50 }).flat();
    expect(drawn.length).toBeGreaterThan(0);
    for (const x of drawn) {
      if (x.kind !== "isolate") throw new Error(`drew ${x.kind}`);
      expect(servers).toContain(x.node);
      expect([x.node, ...x.peers].sort()).toEqual(servers);
    }
  });

  it("is re-aimed at a smaller ensemble's servers, and dropped on a lone server", () => {
    const d: Disruption = { kind: "isolate", node: "s5", peers: ["s1", "s2", "s3", "s4"], atMs: 1000, forMs: 500 };
    expect(projectDisruption(d, { servers, clients: ["c1"] })).toEqual({ ...d, node: "s2", peers: ["s1", "s3"] });
    expect(projectDisruption(d, { servers: ["s1"], clients: ["c1"] })).toBeUndefined();
    const lone = fc.sample(disruptionsArbitrary({ servers: ["s1"], clients: ["c1"] }, window), { seed: 5, numRuns: 100 }).flat();
    expect(lone.some((x) => x.kind === "isolate")).toBe(false);
    expect(() => disruptionsArbitrary({ servers: ["s1"], clients: [] }, window, { kinds: ["isolate"] })).toThrow(/"isolate" needs at least two servers/);
  });

  it("weights: a kind weighted 9 against 1 makes most of the draws; bad weights are refused", () => {
    const drawn = fc.sample(disruptionsArbitrary({ servers, clients: [] }, window, { kinds: ["crash", "isolate"], weights: { isolate: 9 } }), { seed: 5, numRuns: 200 }).flat();
    const isolated = drawn.filter((x) => x.kind === "isolate").length;
    expect(isolated / drawn.length).toBeGreaterThan(0.75);
    expect(() => disruptionsArbitrary({ servers, clients: [] }, window, { weights: { isolate: 0 } })).toThrow(/weights\.isolate must be a whole number ≥ 1/);
    expect(() => disruptionsArbitrary({ servers, clients: [] }, window, { weights: { quake: 2 } as never })).toThrow(/weights names an unknown disruption kind "quake"/);
    expect(FAULT_MIXES.default.weights.isolate).toBeGreaterThan(1);
  });

  it("a property without faults draws the default mix: isolate about three times as often as any other kind", () => {
    const drawn = new WeakMap<Scenario, readonly string[]>();
    const arb = userScenarioArbitrary(unsyncedConfig, { numRuns: 1, seed: 1, outDir: "unused" }, "./scripts.mjs", drawn);
    const counts = new Map<string, number>();
    for (const scenario of fc.sample(arb, { seed: 9, numRuns: 300 })) for (const k of drawn.get(scenario) ?? []) counts.set(k, (counts.get(k) ?? 0) + 1);
    const isolate = counts.get("isolate") ?? 0;
    const others = [...counts].filter(([k]) => k !== "isolate").map(([, n]) => n);
    expect(others).toHaveLength(10);
    expect(isolate).toBeGreaterThan(2 * Math.max(...others));
  });

  it("a follower isolated under a reader serves it stale reads: found without sync, not with sync", async () => {
    // Where the clients' sessions landed and who leads, from a run without faults (the same
    // seed makes the same choices until the first fault, at 1500 ms).
    let seed = 0;
    let reader = "";
    for (let s = 1; s <= 20 && reader === ""; s++) {
      expect((await runUserScript(unsyncedConfig, { seed: s, durationMs: 10_000 })).verdict).toBe("pass");
      const r = where.sessions.get("c2") ?? "";
      if (r !== "" && r !== where.leader && r !== where.sessions.get("c1")) [seed, reader] = [s, r];
    }
    expect(reader, "a seed puts c2 on a follower c1 is not on").not.toBe("");
    const isolated: Disruption = { kind: "isolate", node: reader, peers: servers.filter((x) => x !== reader), atMs: 1500, forMs: 6000 };
    const world = { seed, durationMs: 20_000, faults: faultsOf([isolated]) };
    const stale = await runUserScript(unsyncedConfig, world);
    expect(stale.violations.map((v) => v.checker)).toContain("client.read-after-confirmed-write");
    const synced = await runUserScript(syncedConfigReader, world);
    expect(synced.verdict).toBe("pass");
  }, 60_000);
});
