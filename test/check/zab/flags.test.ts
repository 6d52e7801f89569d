import { describe, expect, it } from "vitest";
import { FlagsChecker } from "../../../src/check/zab/flags.js";
import { runChecker, TraceBuilder } from "./trace-builder.js";

describe("check: zab: flags", () => {
  it("ZOOKEEPER-4394: a COMMIT between NEWLEADER and UPTODATE finds no pending proposal → commitInconsistent", () => {
    const t = new TraceBuilder().tick().flag(2, "commitInconsistent", "COMMIT 0x100000003 with an empty packetsNotCommitted");
    const v = runChecker(new FlagsChecker(), t.events);
    expect(v).toEqual([
      {
        checker: "zab.flags",
        message: "ShouldNotBeTriggered violated: s2 (sid 2) raised commitInconsistent: COMMIT 0x100000003 with an empty packetsNotCommitted",
        eventIndex: 1,
        atMs: 2,
      },
    ]);
  });

  it("an unknown flag name is still a violation, and says so", () => {
    const v = runChecker(new FlagsChecker(), new TraceBuilder().flag(1, "oops", "x").events);
    expect(v[0]!.message).toContain("oops (not one of the specification's flags): x");
  });
});
