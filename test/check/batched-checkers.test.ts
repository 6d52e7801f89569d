import { describe, expect, it } from "vitest";
import { CHECK_BATCH_EVENTS, runCheckers, subscribeCheckers, subscribeCheckersInBatches, type Checker, type Violation } from "../../src/check/checker.js";
import { SERVER_MESSAGE_TYPES, mayBeClientTraffic } from "../../src/check/message-types.js";
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

  it("holds a batch larger than the default's slots, and hands out a fractional batch as `length >= batch` would", () => {
    /** How many sends the recorder was handed once each of `at` sends was recorded, and in all. */
    const handed = (batch: number, events: number, at: number[]): { at: number[]; all: number } => {
      const t = new Trace();
      const r = new Recorder(t);
      const fed = subscribeCheckersInBatches(t, [r], batch);
      const seen: number[] = [];
      for (let i = 1; i <= events; i++) {
        t.recordMessage(i, "send", h("send"), "s1", h("s1"), "s2", h("s2"), i, "PING");
        if (at.includes(i)) seen.push(r.seen.length);
      }
      fed.flush();
      return { at: seen, all: r.seen.length };
    };
    const big = CHECK_BATCH_EVENTS + 1500;
    expect(handed(big, big + 10, [CHECK_BATCH_EVENTS + 1, big - 1, big, big + 10]), "nothing before the batch is full, then all of it").toEqual({ at: [0, 0, big, big], all: big + 10 });
    expect(handed(2.5, 10, [2, 3, 5, 6, 10]), "batches of three").toEqual({ at: [0, 3, 3, 6, 9], all: 10 });
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

  it("hands a checker that names message types only those of its message kinds (an untyped message to every reader), in every dispatch", () => {
    /** Reads sends of ACK, every deliver, and crashes; writes down what it is handed. */
    class Typed implements Checker<"send" | "deliver" | "crash"> {
      readonly name = "test.typed";
      readonly kinds = ["send", "deliver", "crash"] as const;
      readonly messageTypes: Checker["messageTypes"] = { send: ["ACK"] };
      readonly seen: string[] = [];
      onEvent(e: TraceEvent<"send" | "deliver" | "crash">): void {
        this.seen.push(`${e.kind} ${e.detail ?? "-"}`);
      }
      finish(): Violation[] {
        return [];
      }
    }
    /** Reads every send but PING (a test of the type). */
    class NotPing extends Typed {
      override readonly messageTypes: Checker["messageTypes"] = { send: (type: string) => type !== "PING" };
    }
    const record = (t: Trace): void => {
      for (const [kind, type] of [["send", "PING"], ["send", "ACK"], ["deliver", "PING"], ["send", "COMMIT"], ["send", "ACK"]] as const) t.recordMessage(0, kind, h(kind), "s1", h("s1"), "s2", h("s2"), 1, type);
      t.record(1, "send", "s1", "s2", 2);
      t.record(2, "crash", "s1");
    };
    const expected = ["send ACK", "deliver PING", "send ACK", "send -", "crash -"];
    const expectedNotPing = ["send ACK", "deliver PING", "send COMMIT", "send ACK", "send -", "crash -"];
    for (const batch of [1, 2, 4096]) {
      const t = new Trace();
      const [a, b] = [new Typed(), new NotPing()];
      const fed = subscribeCheckersInBatches(t, [a, b], batch);
      record(t);
      fed.flush();
      expect(a.seen, `batch ${batch}`).toEqual(expected);
      expect(b.seen, `batch ${batch}`).toEqual(expectedNotPing);
    }
    const t = new Trace(true);
    const [a, b] = [new Typed(), new NotPing()];
    subscribeCheckers(t, [a, b]);
    record(t);
    expect([a.seen, b.seen]).toEqual([expected, expectedNotPing]);
    const [c, d] = [new Typed(), new NotPing()];
    runCheckers([c, d], t.events);
    expect([c.seen, d.seen]).toEqual([expected, expectedNotPing]);
  });

  it("names as the servers' own traffic every type two servers exchange, and no type a client and a server exchange", async () => {
    const isServer = (node: string): boolean => /^s\d+$/.test(node);
    const between = { servers: new Set<string>(), client: new Set<string>() };
    for (const name of ["recipe-lock-bench", "zab-follower-restart-trunc"]) {
      await runScenario(loadScenario(name), {
        seed: 1,
        onTraceEvent: (e) => {
          if ((e.kind !== "send" && e.kind !== "deliver") || e.detail === undefined || e.peer === undefined) return;
          (isServer(e.node) && isServer(e.peer) ? between.servers : between.client).add(e.detail);
        },
      });
    }
    expect(between.servers.size).toBeGreaterThan(8);
    expect([...between.servers].filter((type) => mayBeClientTraffic(type))).toEqual([]);
    expect(between.client.size).toBeGreaterThan(8);
    expect([...between.client].filter((type) => SERVER_MESSAGE_TYPES.has(type))).toEqual([]);
  });
});
