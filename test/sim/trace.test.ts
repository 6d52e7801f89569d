import { describe, expect, it } from "vitest";
import { runCheckers, type Checker, type RunEnd, type Violation } from "../../src/check/checker.js";
import { Trace, hashString as h, type TraceEvent } from "../../src/sim/trace.js";
import { hashStructure } from "../../src/base/structure-hash.js";

function record(t: Trace): void {
  t.record(0, "start", "s1");
  t.recordMessage(10, "send", h("send"), "s1", h("s1"), "c1", h("c1"), 7, "reply");
  t.record(20, "zab.phase", "s1", undefined, undefined, undefined, { sid: 1, phase: "BROADCAST", epoch: 1 });
  t.recordMessage(30, "deliver", h("deliver"), "c1", h("c1"), "s1", h("s1"), 7, "reply");
  t.record(40, "zab.state", "s1", undefined, undefined, undefined, { sid: 1, state: "LEADING" });
}

describe("sim: trace listeners by kind", () => {
  it("calls a listener only with the kinds it accepts, in order, and the others with every event", () => {
    const t = new Trace();
    const zab: string[] = [];
    const all: string[] = [];
    t.subscribe((e) => zab.push(`${e.index}:${e.kind}`), ["zab.phase", "zab.state"]);
    t.subscribe((e) => all.push(e.kind));
    record(t);
    expect(zab).toEqual(["2:zab.phase", "4:zab.state"]);
    expect(all).toEqual(["start", "send", "zab.phase", "deliver", "zab.state"]);
  });

  it("hashes and counts the same whoever listens", () => {
    const bare = new Trace();
    record(bare);
    const heard = new Trace();
    heard.subscribe(() => undefined, ["send"]);
    record(heard);
    expect(heard.hash()).toBe(bare.hash());
    expect(heard.kindCounts()).toEqual(bare.kindCounts());
    expect(bare.kindCounts()).toEqual({ start: 1, send: 1, "zab.phase": 1, deliver: 1, "zab.state": 1 });
    expect(bare.last).toEqual({ index: 4, atUs: 40 });
  });

  it("calls the listeners of a kind in subscription order, those of every kind among them", () => {
    const t = new Trace();
    const calls: string[] = [];
    t.subscribe((e) => calls.push(`all1:${e.kind}`));
    const offNamed = t.subscribe((e) => calls.push(`named1:${e.kind}`), ["start", "zab.state"]);
    t.subscribe((e) => calls.push(`all2:${e.kind}`));
    t.subscribe((e) => calls.push(`named2:${e.kind}`), ["zab.state"]);
    t.record(0, "start", "s1");
    t.record(1, "zab.state", "s1", undefined, undefined, undefined, { sid: 1, state: "LEADING" });
    offNamed();
    offNamed();
    t.record(2, "zab.state", "s1", undefined, undefined, undefined, { sid: 1, state: "LEADING" });
    const late = t.subscribe((e) => calls.push(`all3:${e.kind}`));
    t.record(3, "start", "s2");
    late();
    t.record(4, "start", "s3");
    expect(calls).toEqual([
      "all1:start",
      "named1:start",
      "all2:start",
      "all1:zab.state",
      "named1:zab.state",
      "all2:zab.state",
      "named2:zab.state",
      "all1:zab.state",
      "all2:zab.state",
      "named2:zab.state",
      "all1:start",
      "all2:start",
      "all3:start",
      "all1:start",
      "all2:start",
    ]);
  });

  it("works the filters out again after an unsubscribe", () => {
    const t = new Trace();
    const seen: string[] = [];
    const off = t.subscribe((e) => seen.push(e.kind), ["start"]);
    t.record(0, "start", "s1");
    off();
    t.record(1, "start", "s2");
    expect(seen).toEqual(["start"]);
  });
});

describe("check: runCheckers", () => {
  class ZabCounter implements Checker<"zab.state" | "zab.phase"> {
    readonly name = "zab-counter";
    readonly kinds = ["zab.state", "zab.phase"] as const;
    readonly seen: string[] = [];
    end: RunEnd | undefined;
    onEvent(e: TraceEvent<"zab.state" | "zab.phase">): void {
      this.seen.push(e.kind);
    }
    finish(end?: RunEnd): Violation[] {
      this.end = end;
      return [];
    }
  }

  it("feeds a checker only what it accepts and finishes it with the run's last event", () => {
    const c = new ZabCounter();
    const events: TraceEvent[] = [
      { index: 0, atUs: 0, kind: "zab.state", node: "s1", fields: { sid: 1, state: "LOOKING" } },
      { index: 1, atUs: 5, kind: "send", node: "s1" },
    ];
    runCheckers([c], events);
    expect(c.seen).toEqual(["zab.state"]);
    expect(c.end).toMatchObject({ index: 1, atUs: 5 });
  });
});

describe("sim: the trace hash's canonical sequence", () => {
  // The hash folds an event's words in locals on its hot path (recordHashed, mixCachedFields) and
  // takes the mixer's longer forms for numbers that are no uint32: times past 2^32 µs, negative
  // and fractional ids, connection ids past 2^32, and field values of every type. The value was
  // computed by the build before that change (one `mixWord` call per word), so both paths keep it.
  it("hashes numbers of every form and field values of every type as it always has", () => {
    const t = new Trace();
    t.record(0, "start", "s1");
    t.record(5_000_000_000, "timer", "s1", undefined, 2 ** 33 + 7, "late");
    t.record(5_000_000_001, "drop", "s2", "s1", -4, "loss", undefined, 2 ** 32);
    t.recordMessage(5_000_000_002, "send", h("send"), "s1", h("s1"), "c1", h("c1"), 1.5, "reply", -1);
    t.record(5_000_000_003, "clock", "s1", undefined, undefined, undefined, { rate: 1.5 });
    const odd = {
      sid: -2,
      phase: "x",
      epoch: 2 ** 40,
      big: 12345678901234567890n,
      ok: true,
      no: false,
      nil: null,
      gone: undefined,
      list: [1, "a", [2 ** 32], { k: 1 }],
      bytes: Uint8Array.of(1, 2, 3, 4, 5),
      nested: { a: 1.25, b: { c: "d", e: -0 } },
      nan: NaN,
      inf: -Infinity,
    };
    t.annotation(5_000_000_004, "zab.phase", "s1", h("s1"), odd as never);
    t.annotation(5_000_000_005, "zab.phase", "s1", h("s1"), { sid: 1, phase: "BROADCAST", epoch: 3 });
    expect(t.hash()).toBe("f0ed9622e36dbba8");
  });

  it("digests a structured value as it always has (hashStructure: the mixer's own number forms)", () => {
    expect(hashStructure({ a: -1, b: 2 ** 40, c: 0.1, d: [4294967296, -4294967297, "s"], e: { f: 7n, g: Uint8Array.of(9) } })).toBe(1807718076);
    expect(hashStructure(-7)).toBe(2223866713);
    expect(hashStructure(2 ** 53 + 2)).toBe(584728301);
  });
});
