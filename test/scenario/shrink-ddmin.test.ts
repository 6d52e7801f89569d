import { describe, expect, it } from "vitest";
import { RunBudget, ddmin } from "../../src/scenario/shrink.js";

describe("scenario: shrink: ddmin", () => {
  it("finds the one needed element, and pairs that are needed together", async () => {
    const items = Array.from({ length: 24 }, (_, i) => i);
    const one = await ddmin(items, async (s) => s.includes(13), new RunBudget(200));
    expect(one).toEqual([13]);
    const two = await ddmin(items, async (s) => s.includes(3) && s.includes(20), new RunBudget(200));
    expect(two).toEqual([3, 20]);
  });

  it("stops at its budget with a subset that still fails", async () => {
    const budget = new RunBudget(3);
    const out = await ddmin(Array.from({ length: 24 }, (_, i) => i), async (s) => s.includes(13), budget);
    expect(budget.used).toBe(3);
    expect(out).toContain(13);
  });
});
