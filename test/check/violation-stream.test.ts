/** A checker's violations as a stream: an online reader hears each as it is found, and `finish` still returns them all. */
import { describe, expect, it } from "vitest";
import type { Violation } from "../../src/check/checker.js";
import { LeadershipChecker } from "../../src/check/zab/leadership.js";
import type { TraceEvent } from "../../src/sim/trace.js";

const established = (index: number, node: string, epoch: number): TraceEvent<"zab.leader.established"> => ({ index, atUs: index * 1000, kind: "zab.leader.established", node, fields: { sid: Number(node.slice(1)), epoch, lastZxid: "0x0" } });

describe("check: violation stream", () => {
  it("check: violation stream: two leaders of one epoch are heard when the second is established, before finish", () => {
    const checker = new LeadershipChecker();
    const heard: Violation[] = [];
    checker.log.onViolation((v) => heard.push(v));
    checker.onEvent(established(0, "s1", 7));
    expect(heard).toEqual([]);
    checker.onEvent(established(1, "s2", 7));
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ checker: checker.name, eventIndex: 1 });
    expect(checker.finish()).toEqual(heard);
  });
});
