import { describe, expect, it } from "vitest";
import { IntegrityChecker } from "../../../src/check/zab/integrity.js";
import { runChecker, TraceBuilder, z } from "./trace-builder.js";

describe("check: zab: integrity", () => {
  it("a delivery of what a leader proposed, in this epoch or through a later sync, passes", () => {
    const t = new TraceBuilder().boot(1, 2, 3);
    t.elect(1, [2, 3], 1, z(0, 0));
    t.broadcast(1, z(1, 1), "create /a", [1, 2, 3]);
    t.deliver(3, z(1, 1), "create /a"); // again, e.g. after a restart and a DIFF
    expect(runChecker(new IntegrityChecker(), t.events)).toEqual([]);
  });

  it("a delivery nobody proposed is named, once per txn however many servers deliver it", () => {
    const t = new TraceBuilder().boot(1, 2, 3);
    t.elect(1, [2, 3], 1, z(0, 0));
    t.broadcast(1, z(1, 1), "create /a", [1, 2, 3]);
    t.deliver(2, z(1, 2), "create /ghost").deliver(3, z(1, 2), "create /ghost");
    t.deliver(3, z(1, 1), "create /other"); // the right zxid with another txn
    const v = runChecker(new IntegrityChecker(), t.events);
    expect(v.map((x) => x.message)).toEqual([
      expect.stringContaining("Integrity violated: s2 (sid 2) delivered 0x100000002 (1,2) (txn create /ghost), which no leader proposed"),
      expect.stringContaining("Integrity violated: s3 (sid 3) delivered 0x100000001 (1,1) (txn create /other), which no leader proposed"),
    ]);
  });
});
