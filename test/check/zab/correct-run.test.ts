import { describe, expect, it } from "vitest";
import { ZAB_CHECKERS, zabCheckers } from "../../../src/check/zab/index.js";
import { runChecker } from "./trace-builder.js";
import { correctRun } from "./scenarios.js";

describe("check: zab: correct run", () => {
  it("a run with elections, a restart + DIFF, a SNAP past an uncommitted txn and a TRUNC of one raises nothing", () => {
    const events = correctRun().events;
    for (const checker of zabCheckers()) {
      expect({ checker: checker.name, violations: runChecker(checker, events) }).toEqual({ checker: checker.name, violations: [] });
    }
  });

  it("zabCheckers() returns fresh instances of every checker, named as in ZAB_CHECKERS", () => {
    const a = zabCheckers();
    const b = zabCheckers();
    expect(a.map((c) => c.name)).toEqual([...ZAB_CHECKERS.keys()]);
    expect(a.map((c) => c.name)).toEqual([
      "zab.leadership",
      "zab.zxid-uniqueness",
      "zab.integrity",
      "zab.prefix-consistency",
      "zab.committed-durability",
      "zab.primary-integrity",
      "zab.identical-trees",
      "zab.flags",
      "zab.liveness",
      "zab.durable-ack",
      "zab.election-most-recent",
      "zab.election-round",
      "zab.newleader-quorum",
      "zab.learner-sync",
      "zab.sync-packet",
    ]);
    a.forEach((c, i) => expect(c).not.toBe(b[i]));
  });

  it("a malformed annotation is reported, not thrown", () => {
    const [prefix] = zabCheckers().filter((c) => c.name === "zab.prefix-consistency");
    prefix!.onEvent({ index: 0, atUs: 0, kind: "zab.deliver", node: "s1", fields: { sid: 1, zxid: "zz", txn: "x" } });
    const v = prefix!.finish();
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toContain('field "zxid"');
  });
});
