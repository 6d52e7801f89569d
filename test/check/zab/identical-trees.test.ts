import { describe, expect, it } from "vitest";
import { IdenticalTreesChecker } from "../../../src/check/zab/identical-trees.js";
import { runChecker, TraceBuilder, z } from "./trace-builder.js";

describe("check: zab: identical trees", () => {
  it("two servers with different digests at the same applied zxid → IdenticalTrees, naming both", () => {
    const t = new TraceBuilder().digest(1, z(1, 5), "abc").digest(2, z(1, 5), "abc").digest(3, z(1, 5), "abd").digest(1, z(1, 6), "x");
    const v = runChecker(new IdenticalTreesChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.checker).toBe("zab.identical-trees");
    expect(v[0]!.message).toContain("IdenticalTrees violated: at applied zxid 0x100000005 (1,5) s3 (sid 3) has tree digest abd but s1 (sid 1) had abc");
    expect(v[0]!.eventIndex).toBe(2);
  });
});
