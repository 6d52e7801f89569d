import { describe, expect, it } from "vitest";
import { subscribeCheckersInBatches, type Checker, type Violation } from "../../src/check/checker.js";
import type { RunServices } from "../../src/check/check-run.js";
import { runScenario } from "../../src/scenario/run.js";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { Trace, hashString as h, type TraceEvent } from "../../src/sim/trace.js";

/** Writes down what it is handed, and when, against what the trace had recorded by then. */
class Recorder implements Checker<"zab.log" | "send"> {
  readonly name = "test.recorder";
  readonly kinds = ["zab.log", "send"] as const;
  readonly seen: string[] = [];
  floorSeenAt: number[] = [];
  private floorZxid: (() => bigint) | undefined;
  constructor(private readonly trace: Trace) {}
  attach(run: RunServices): void {
    const floor = run.durableFloor();
    this.floorZxid = () => floor.current();
  }
  onEvent(e: TraceEvent<"zab.log" | "send">): void {
    this.seen.push(`${e.index}:${e.kind}@${this.trace.count}`);
    if (e.kind === "zab.log") this.floorSeenAt.push(Number(this.floorZxid!()));
  }
  finish(): Violation[] {
    return [];
  }
}

function logTxn(t: Trace, atUs: number, node: string, zxid: number): void {
  t.annotation(atUs, "zab.log", node, h(node), { sid: Number(node.slice(1)), zxid: `0x${zxid.toString(16)}`, txn: "create /a" });
}

describe("check: checkers fed in batches", () => {
  it("hands each checker its kinds in order, `batch` events at a time, the run's floor fed each event just before it, and the rest on flush", () => {
    const t = new Trace();
    const r = new Recorder(t);
    const fed = subscribeCheckersInBatches(t, [r], 3);
    t.annotation(0, "zab.deliver", "s1", h("s1"), { sid: 1, zxid: "0x9", txn: "create /a" });
    logTxn(t, 1, "s1", 5);
    t.record(2, "start", "s2");
    expect(r.seen, "two events of the kinds read wait (the floor reads zab.deliver)").toEqual([]);
    t.recordMessage(3, "send", h("send"), "s1", h("s1"), "s2", h("s2"), 1, "PING");
    expect(r.seen).toEqual(["1:zab.log@4", "3:send@4"]);
    logTxn(t, 4, "s1", 6);
    logTxn(t, 5, "s1", 7);
    expect(r.seen).toHaveLength(2);
    fed.flush();
    expect(r.seen.slice(2)).toEqual(["4:zab.log@6", "5:zab.log@6"]);
    // s1 applied 0x9 and logged 0x5, 0x6, 0x7 in turn: the floor as each zab.log was handed over.
    expect(r.floorSeenAt).toEqual([5, 6, 7]);
    fed.unsubscribe();
    logTxn(t, 6, "s1", 8);
    fed.flush();
    expect(r.seen).toHaveLength(4);
  });

  it("judges a run as one event at a time does: a canary's violations, trace hash and judged summary alike", async () => {
    const scenario = loadScenario("kernel-smoke");
    const online = await runScenario(scenario, { seed: 1, canary: "connection-reorder", checkerBatchEvents: 1 });
    // Small batches: many flushes in the run (every other run of the suite takes the default).
    const batched = await runScenario(scenario, { seed: 1, canary: "connection-reorder", checkerBatchEvents: 5 });
    expect(online.violations.length).toBeGreaterThan(0);
    expect(batched.violations).toEqual(online.violations);
    expect(batched.traceHash).toBe(online.traceHash);
    expect(batched.judged).toEqual(online.judged);
    expect(batched.verdict).toBe(online.verdict);
  });
});
