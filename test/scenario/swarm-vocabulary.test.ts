/**
 * The zab swarms draw the whole fault vocabulary (zab-swarm's vocabulary timeline): over a few
 * hundred seeds every aim and every quorum message type shows up in the drawn schedules, client
 * nodes are crashed and paused, and seeds that once failed with the new faults pass.
 */
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { scenarioAsRun } from "../../src/scenario/replay-file.js";
import { ZAB_MESSAGES } from "../../src/scenario/nemesis/zab-swarm.js";
import type { Fault } from "../../src/sim/faults.js";

describe("ensemble: swarm: the whole fault vocabulary", () => {
  it("200 seeds' schedules crash after every quorum message type, sent and received, and crash, pause and skew clients", () => {
    const swarm = loadScenario("zab-random-faults");
    const faults: Fault[] = Array.from({ length: 200 }, (_, i) => scenarioAsRun(swarm, i + 1).faults).flat();
    const aimed = (after: string) => new Set(faults.flatMap((f) => (f.when ?? []).filter((s) => s.after === after && s.detail !== undefined).map((s) => s.detail)));
    for (const after of ["send", "deliver"]) expect([...aimed(after)].sort(), after).toEqual(expect.arrayContaining([...ZAB_MESSAGES]));
    const onClient = (kind: string) => faults.some((f) => f.kind === kind && "node" in f && f.node.startsWith("c"));
    expect([onClient("crash"), onClient("pause"), onClient("clock")]).toEqual([true, true, true]);
    expect(faults.some((f) => f.kind === "disk" && f.fault === "full")).toBe(true);
  });

  it("seed 2271 (a leader's initLimit wait under a clock slowed 10x, then true) converges; same seed, same hash", async () => {
    const s = loadScenario("zab-random-faults");
    const [a, b] = [await runScenario(s, { seed: 2271 }), await runScenario(s, { seed: 2271 })];
    expect(a.violations).toEqual([]);
    expect(b.traceHash).toBe(a.traceHash);
  });

  it("seed 10193 (a follower whose disk is full when it accepts an epoch) no longer yields two leaders of one epoch", async () => {
    const r = await runScenario(loadScenario("zab-random-faults"), { seed: 10193 });
    expect(r.violations.map((v) => v.checker)).toEqual([]);
  });

  it("seeds 10367 and 10706 (a txn log torn at a fresh file's head; a TRUNC on a full disk) keep every committed txn; 10275 (a session expired while its close waits for a quorum) is no violation", async () => {
    const s = loadScenario("zab-random-faults");
    for (const seed of [10367, 10706, 10275]) expect((await runScenario(s, { seed })).violations.map((v) => v.checker), String(seed)).toEqual([]);
  }, 180_000);

  it("zab-fuzzy-snapshots seed 11551 (a TRUNC below the snapshot of a learner synced by SNAP, whose log stops far below: it syncs again rather than claim the TRUNC zxid) keeps the trees identical", async () => {
    const r = await runScenario(loadScenario("zab-fuzzy-snapshots"), { seed: 11551 });
    expect(r.violations.map((v) => v.checker)).toEqual([]);
  }, 180_000);

  it("zab-shared-session seeds 10007 (an episode on a paused client), 10015 (on a crashed one) and 10075 (the successor answered with the zombie's create: same session, same cxid) pass", async () => {
    const s = loadScenario("zab-shared-session");
    for (const seed of [10007, 10015, 10075]) expect((await runScenario(s, { seed })).violations.map((v) => v.checker), String(seed)).toEqual([]);
  }, 180_000);
});
