/**
 * Coverage (scenario/coverage.ts): a run reports the fault kinds and protocol states it reached,
 * and a sweep counts them per 1,000 seeds with the declared ones nobody reached at 0.
 */
import { asEvent, type LooseEvent } from "../helpers/loose-events.js";
import { describe, expect, it } from "vitest";
import { CoverageRecorder, declaredFeatures } from "../../src/scenario/coverage.js";
import { ZAB_COVERAGE } from "../../src/scenario/workloads/zab-coverage.js";
import { summarizeCoverage, perThousand } from "../../src/cli/explore/coverage-report.js";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { isOneOf, type TraceEvent } from "../../src/sim/trace.js";

const ev = (atUs: number, kind: string, node: string, more: Partial<LooseEvent> = {}): TraceEvent => asEvent({ index: 0, atUs, kind, node, ...more });

describe("scenario: coverage", () => {
  it("a crash at the instant its node sent or received a message names the message; faults split by node class", () => {
    const r = new CoverageRecorder(ZAB_COVERAGE);
    const events = [
      ev(10, "send", "s1", { detail: "NEWLEADER" }),
      ev(10, "deliver", "s1", { detail: "ACK" }),
      ev(10, "crash", "s1"),
      ev(20, "send", "s2", { detail: "PROPOSAL" }),
      ev(21, "crash", "s2"),
      ev(30, "pause", "c1"),
      ev(40, "disk.fault", "s3", { detail: "full", id: 1 }),
      ev(41, "disk.fault", "s3", { detail: "full", id: 0 }),
      ev(42, "disk.fault", "s3", { detail: "fsync-latency", id: 2000 }),
      ev(50, "zab.sync", "s1", { fields: { sid: 1, learner: 2, mode: "TRUNC", peerLastZxid: "0x1", zxid: "0x1" } }),
      ev(60, "zab.leader.established", "s1", { fields: { sid: 1, epoch: 1, lastZxid: "0x0" } }),
    ];
    for (const e of events) if (isOneOf(e, r.kinds)) r.onEvent(e);
    expect(r.reached()).toEqual(["crash", "crash (server)", "crash right after receive ACK", "crash right after send NEWLEADER", "disk full", "pause", "pause (client)", "sync TRUNC"].sort());
  });

  it("a sweep lists every declared feature, the unreached at 0, per 1,000 seeds", () => {
    const s = loadScenario("zab-random-faults");
    const summary = summarizeCoverage(s, [["crash", "sync SNAP"], ["crash"], undefined, ["crash"]]);
    expect(summary.seeds).toBe(3);
    const rates = perThousand(summary);
    expect([rates.crash, rates["sync SNAP"], rates["sync TRUNC"], rates["crash right after send UPTODATE"]]).toEqual([1000, 333, 0, 0]);
    expect(Object.keys(rates)).toEqual(expect.arrayContaining(declaredFeatures(ZAB_COVERAGE)));
  });

  it("a swarm run reports what it reached; asking for coverage changes nothing in the run", async () => {
    const s = loadScenario("zab-random-faults");
    const plain = await runScenario(s, { seed: 2 });
    const covered = await runScenario(s, { seed: 2, coverage: true });
    expect(covered.traceHash).toBe(plain.traceHash);
    expect(plain.coverage).toBeUndefined();
    expect(covered.coverage).toEqual(expect.arrayContaining(["crash", "election", "phase BROADCAST", "sync DIFF"]));
  });
});
