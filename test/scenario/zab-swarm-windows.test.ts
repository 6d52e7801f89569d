import { describe, expect, it } from "vitest";
import { drawSwarmFaults } from "../../src/scenario/nemesis/zab-swarm.js";
import { parseFaultSchedule, type Fault } from "../../src/sim/faults.js";
import { Rng } from "../../src/sim/rng.js";
import { ZAB_TRACE_ROLES } from "../../src/scenario/workloads/zk.js";

const servers = ["s1", "s2", "s3", "s4", "s5"];
const clients = ["c1", "c2"];
const waitsFor = (f: Fault, kind: string) => f.when?.some((s) => s.after === kind) ?? false;

describe("zab-swarm: the durability windows' timeline", () => {
  const drawn = Array.from({ length: 30 }, (_, i) => drawSwarmFaults(Rng.root(i + 1), servers, clients, 2000, undefined, true));

  it("aims crashes at an fsync in flight, right after an ACK, at a snapshot and during a sync, with slow-fsync bursts", () => {
    const all = drawn.flat();
    const crashes = all.filter((f) => f.kind === "crash");
    expect(crashes.some((f) => waitsFor(f, "zab.ack"))).toBe(true);
    expect(crashes.some((f) => waitsFor(f, "zk.snapshot.done") || waitsFor(f, "zk.snapshot.start"))).toBe(true);
    // During a sync: the learner's next fsync after the leader's zab.sync, under the burst's latency.
    expect(crashes.some((f) => waitsFor(f, "zab.sync") && f.when!.some((s) => s.after === "disk.fsync" && s.node === "$1.learner"))).toBe(true);
    // A burst slows the learner's disk as soon as the sync begins.
    expect(all.some((f) => f.kind === "disk" && f.node === "$1.learner" && waitsFor(f, "zab.sync"))).toBe(true);
    for (const c of crashes) expect(c.onlyIfUp).toBe(true);
  });

  it("every drawn schedule is valid fault data over the ensemble's nodes", () => {
    const roles = ZAB_TRACE_ROLES.roles.map((r) => r.role);
    for (const faults of drawn) {
      expect(parseFaultSchedule(JSON.parse(JSON.stringify(faults)), [...servers, ...clients], "faults", roles)).toEqual(faults);
    }
  });

  it("a crash aimed inside an fsync's flight waits less than the slowed latency after the fsync is issued", () => {
    for (const faults of drawn) {
      for (const f of faults) {
        const step = f.kind === "crash" ? f.when?.find((s) => s.after === "disk.fsync" && s.delayMs !== undefined && s.delayMs > 1) : undefined;
        if (step === undefined) continue;
        const burst = faults.find((b) => b.kind === "disk" && b.fault === "slow-fsync" && b.fsyncLatencyMs !== undefined && b.fsyncLatencyMs > step.delayMs!);
        expect(burst, JSON.stringify(f)).toBeDefined();
      }
    }
  });
});
