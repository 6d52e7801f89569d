import { describe, expect, it } from "vitest";
import { Rng } from "../../src/sim/rng.js";
import { DecisionTape, mergeRanges, normalizeSimplify } from "../../src/sim/decision-tape.js";

/** One draw of every kind, in a fixed order (8 draws: shuffle of 3 items draws twice). */
const everyKind = (r: Rng) => [r.next(), r.int(5, 9), r.chance(0.5), r.chance(0.999), r.pick(["a", "b", "c"]), r.shuffle([1, 2, 3]), r.uint32()];

describe("sim: decision tape", () => {
  it("no tape and a counting tape give the PRNG's values, draw for draw", () => {
    for (const seed of [1, 2, 77]) {
      const bare = Rng.root(seed).fork("net");
      const taped = Rng.root(seed, new DecisionTape()).fork("net");
      for (let i = 0; i < 200; i++) expect(everyKind(taped)).toEqual(everyKind(bare));
    }
  });

  it("a simplified draw takes its kind's simplest value", () => {
    const path = "zksim:5/s";
    const r = Rng.root(5, new DecisionTape([{ stream: path, from: 0, to: 1000 }])).fork("s");
    for (let i = 0; i < 20; i++) {
      expect(r.next()).toBe(0);
      expect(r.int(5, 9)).toBe(5);
      expect(r.chance(0.999)).toBe(false);
      expect(r.pick(["a", "b", "c"])).toBe("a");
      expect(r.shuffle([1, 2, 3, 4, 5, 6, 7])).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(r.uint32()).toBe(0);
    }
  });

  it("draws outside the ranges keep their values: the PRNG advances on a simplified draw", () => {
    const bare = Rng.root(9).fork("net");
    const tape = new DecisionTape([
      { stream: "zksim:9/net", from: 2, to: 4 },
      { stream: "zksim:9/net", from: 6, to: 7 },
    ]);
    const taped = Rng.root(9, tape).fork("net");
    const want = Array.from({ length: 10 }, () => bare.next());
    const got = Array.from({ length: 10 }, () => taped.next());
    expect(got).toEqual(want.map((v, i) => ((i >= 2 && i < 4) || i === 6 ? 0 : v)));
    expect(tape.report()).toEqual([{ stream: "zksim:9/net", draws: 10, simplified: 3 }]);
  });

  it("forks share the tape: every stream is counted under its seed path", () => {
    const tape = new DecisionTape([{ stream: "zksim:3/swarm/plan", from: 0, to: 1 }]);
    const root = Rng.root(3, tape);
    root.next();
    const plan = root.fork("swarm").fork("plan");
    const bare = Rng.root(3).fork("swarm").fork("plan");
    expect(plan.int(10, 20)).toBe(10);
    bare.next();
    expect(plan.next()).toBe(bare.next());
    root.fork("net").next(); // a second object for the same path shares its counter
    root.fork("net").next();
    expect(tape.report()).toEqual([
      { stream: "zksim:3", draws: 1, simplified: 0 },
      { stream: "zksim:3/swarm/plan", draws: 2, simplified: 1 },
      { stream: "zksim:3/net", draws: 2, simplified: 0 },
    ]);
  });

  it("chance(0) and chance(1) draw nothing, with a tape too", () => {
    const tape = new DecisionTape();
    const r = Rng.root(3, tape);
    r.chance(0);
    r.chance(1);
    expect(tape.report()).toEqual([]);
  });

  it("ranges are merged and sorted; a bad range is refused", () => {
    expect(mergeRanges([[5, 8], [0, 2], [2, 3], [7, 9]])).toEqual([[0, 3], [5, 9]]);
    expect(normalizeSimplify([
      { stream: "b", from: 4, to: 6 },
      { stream: "a", from: 0, to: 1 },
      { stream: "b", from: 0, to: 4 },
    ])).toEqual([
      { stream: "a", from: 0, to: 1 },
      { stream: "b", from: 0, to: 6 },
    ]);
    expect(() => new DecisionTape([{ stream: "s", from: 2, to: 2 }])).toThrow(/0 ≤ from < to/);
  });
});
