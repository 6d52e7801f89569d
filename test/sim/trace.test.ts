import { describe, expect, it } from "vitest";
import { runCheckers, type Checker, type RunEnd, type Violation } from "../../src/check/checker.js";
import { Trace, hashString as h, type TraceEvent } from "../../src/sim/trace.js";

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
