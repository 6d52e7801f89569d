import { describe, expect, it } from "vitest";
import { totalOrderPredicate } from "../../../../src/zk/server/quorum/vote.js";
import { makeZxid } from "../../../../src/zk/proto/records.js";

describe("vote order: ZOOKEEPER-1419 re-injected", () => {
  const zxid = makeZxid(1, 7);

  it("the pre-3.4.4 predicate lets two votes beat each other (equal zxids, different epochs)", () => {
    // s1 at epoch 2 and s3 at epoch 1, same zxid: epoch wins one way, the sid clause the other.
    expect(totalOrderPredicate(1, zxid, 2, 3, zxid, 1, undefined, true)).toBe(true);
    expect(totalOrderPredicate(3, zxid, 1, 1, zxid, 2, undefined, true)).toBe(true);
  });

  it("the fixed predicate is antisymmetric on the same pair", () => {
    expect(totalOrderPredicate(1, zxid, 2, 3, zxid, 1)).toBe(true);
    expect(totalOrderPredicate(3, zxid, 1, 1, zxid, 2)).toBe(false);
  });

  it("both agree whenever the epochs are equal", () => {
    for (const [a, b] of [[1, 3], [3, 1], [2, 2]] as const) {
      for (const [za, zb] of [[zxid, zxid], [makeZxid(1, 8), zxid], [zxid, makeZxid(1, 8)]] as const) {
        expect(totalOrderPredicate(a, za, 4, b, zb, 4, undefined, true)).toBe(totalOrderPredicate(a, za, 4, b, zb, 4));
      }
    }
  });
});
