/**
 * The long canary hunt (`npm run test:deep`, which CI runs after `npm test`): the search finds the
 * 2PC coordinator that announces its decision before it is durable, at the 2PC target's bounds,
 * judged by the canary's own checker (the correct 2PC blocks too). About 30 s of CPU on CI's
 * machine; the cheap canaries are in canaries.test.ts.
 */
import { describe, expect, it } from "vitest";
import { huntCanary } from "./hunt-canary.js";

describe("search: canaries (deep)", () => {
  it("search: canaries: 2pc's canary is found by its checker", async () => {
    const { r, checker } = await huntCanary("2pc");
    expect(r.outcome).toBe("found");
    expect(r.found.map((f) => f.checker)).toEqual([checker]);
  }, 600_000);
});
