import { describe, expect, it } from "vitest";
import { ClientLinearizabilityChecker } from "../../../src/check/client/index.js";
import { ClientTrace, S1, S2, runChecker, stat, z } from "./trace-builder.js";

/**
 * A standalone server's long history: c1 creates /k, then sets it `rounds` times and c2 reads
 * each value back. `staleAt` makes c2's read of that round see the value before (a violation).
 */
function rounds(n: number, staleAt?: number): ClientTrace {
  const t = new ClientTrace().standalone().connected("c1", S1).connected("c2", S2);
  t.call("c1", S1, "create", "/k", { mode: 0, data: "v0" }, z(1), { path: "/k" });
  for (let i = 1; i <= n; i++) {
    t.call("c1", S1, "setData", "/k", { version: -1, data: `v${i}` }, z(i + 1), { stat: stat({ czxid: z(1), mzxid: z(i + 1), version: i }) });
    const seen = i === staleAt ? i - 1 : i;
    t.call("c2", S2, "getData", "/k", {}, z(i + 1), { data: `v${seen}`, stat: stat({ czxid: z(1), mzxid: z(seen + 1), version: seen }) });
  }
  return t;
}

describe("check: client: linearizability: windows", () => {
  it("a long history is judged in windows that pass, keeping only the current window", () => {
    const c = new ClientLinearizabilityChecker({ windowOps: 10 });
    expect(runChecker(c, rounds(60).events)).toEqual([]);
    expect(c.summary).toMatchObject({ outcome: "linearizable", checkedReads: true });
    expect(c.summary!.windows).toBeGreaterThanOrEqual(10);
    expect(c.unknowns()).toEqual([]);
    // The whole history would be 121 ops; a window holds about ten of them (two events each).
    expect(c.retained()).toBeLessThan(40);
  });

  it("canary: a stale read in a late window is a violation that names the window", () => {
    const c = new ClientLinearizabilityChecker({ windowOps: 10 });
    const v = runChecker(c, rounds(60, 45).events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/not linearizable \(writes and reads\), window \d+ /);
    expect(c.summary?.outcome).toBe("violation");
  });

  it("an indeterminate write nobody settles is carried across cuts, and its late effect is allowed", () => {
    const t = new ClientTrace().standalone().connected("c1", S1).connected("c2", S2);
    t.call("c1", S1, "create", "/k", { mode: 0, data: "v0" }, z(1), { path: "/k" });
    t.call("c1", S1, "create", "/u", { mode: 0, data: "u0" }, z(2), { path: "/u" });
    const lost = t.invoke("c1", S1, "setData", "/u", { version: -1, data: "u1" });
    t.complete("c1", S1, lost, "fail", { err: "CONNECTIONLOSS" });
    // c2 alone works on /k for many windows; c1's session never writes again.
    for (let i = 1; i <= 50; i++) t.call("c2", S2, "setData", "/k", { version: -1, data: `v${i}` }, z(i + 2), { stat: stat({ czxid: z(1), mzxid: z(i + 2), version: i }) });
    // The lost write lands at last (zxid 53), and c2 sees it.
    t.call("c2", S2, "getData", "/u", {}, z(53), { data: "u1", stat: stat({ czxid: z(2), mzxid: z(53), version: 1 }) });
    const c = new ClientLinearizabilityChecker({ windowOps: 5 });
    expect(runChecker(c, t.events)).toEqual([]);
    expect(c.summary!.windows).toBeGreaterThan(1);
    // …but it can take effect once only: a second version 2 is refuted.
    t.call("c2", S2, "getData", "/u", {}, z(53), { data: "u1", stat: stat({ czxid: z(2), mzxid: z(53), version: 2 }) });
    expect(runChecker(new ClientLinearizabilityChecker({ windowOps: 5 }), t.events)).toHaveLength(1);
  });

  /**
   * A run cut once (c2's rounds on /k), then c1's write to /u is lost and its session S1 expires
   * (closeSession applied at z(10)); after the close c2 reads /u: `reads` says what it sees, in order.
   */
  function lostThenClosed(reads: string[]): ClientTrace {
    const t = new ClientTrace().standalone().connected("c1", S1).connected("c2", S2);
    t.call("c2", S2, "create", "/k", { mode: 0, data: "v0" }, z(1), { path: "/k" });
    for (let i = 1; i <= 6; i++) t.call("c2", S2, "setData", "/k", { version: -1, data: `v${i}` }, z(i + 1), { stat: stat({ czxid: z(1), mzxid: z(i + 1), version: i }) });
    t.call("c1", S1, "create", "/u", { mode: 0, data: "u0" }, z(8), { path: "/u" });
    const lost = t.invoke("c1", S1, "setData", "/u", { version: -1, data: "u1" });
    t.complete("c1", S1, lost, "fail", { err: "CONNECTIONLOSS" });
    t.expire("s1", S1).apply("s1", z(10), "closeSession", S1);
    for (const data of reads) {
      const version = data === "u0" ? 0 : 1;
      t.call("c2", S2, "getData", "/u", {}, z(10), { data, stat: stat({ czxid: z(8), mzxid: version === 0 ? z(8) : z(9), version }) });
    }
    return t;
  }

  it("an indeterminate write of a session closed in the window may have landed before the close", () => {
    const c = new ClientLinearizabilityChecker({ windowOps: 5 });
    expect(runChecker(c, lostThenClosed(["u1", "u1"]).events)).toEqual([]);
    expect(c.summary!.windows).toBeGreaterThan(1);
    expect(runChecker(new ClientLinearizabilityChecker({ windowOps: 5 }), lostThenClosed(["u0", "u0"]).events)).toEqual([]);
  });

  it("canary: an indeterminate write seen to land after its session's close is a violation", () => {
    // Not applied by the close (c2 reads u0 after it), so never: the later u1 cannot be.
    const c = new ClientLinearizabilityChecker({ windowOps: 5 });
    const v = runChecker(c, lostThenClosed(["u0", "u1"]).events);
    expect(c.summary!.windows).toBeGreaterThan(1);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/not linearizable \(writes and reads\), window \d+ /);
  });

  it("canary: a window beyond a small search budget is unknown, reported with its span and reason, not a crash", () => {
    const c = new ClientLinearizabilityChecker({ windowOps: 10, maxSteps: 5 });
    expect(runChecker(c, rounds(60).events)).toEqual([]);
    const unknown = c.unknowns();
    expect(unknown.length).toBeGreaterThan(0);
    expect(unknown[0]).toMatchObject({ checker: "client.linearizability" });
    expect(unknown[0]!.reason).toMatch(/^the search budget of 5 model steps ran out on window \d+ \[[\d.]+ ms, [\d.]+ ms\) \(\d+ operations, \d+ of them indeterminate, from 1 start state\(s\)\)$/);
    expect(unknown[0]!.toMs).toBeGreaterThan(unknown[0]!.fromMs);
    expect(c.summary?.outcome).toBe("inconclusive");
  });

  /**
   * 40 nodes, then 60 rounds on /k: a tree's exact text is about 4,000 characters, so ten states
   * of a window (40,000) overflow a memo of 20,000; numbered nodes take ~100 a state.
   * `staleAt`: c2's read of that round sees the value before (a violation).
   */
  function wide(staleAt?: number): ClientTrace {
    const t = new ClientTrace().standalone().connected("c1", S1).connected("c2", S2);
    for (let i = 0; i < 40; i++) t.call("c1", S1, "create", `/wide-${i}`, { mode: 0, data: `w${i}` }, z(i + 1), { path: `/wide-${i}` });
    t.call("c1", S1, "create", "/k", { mode: 0, data: "v0" }, z(41), { path: "/k" });
    for (let i = 1; i <= 60; i++) {
      t.call("c1", S1, "setData", "/k", { version: -1, data: `v${i}` }, z(41 + i), { stat: stat({ czxid: z(41), mzxid: z(41 + i), version: i }) });
      const seen = i === staleAt ? i - 1 : i;
      t.call("c2", S2, "getData", "/k", {}, z(41 + i), { data: `v${seen}`, stat: stat({ czxid: z(41), mzxid: z(41 + seen), version: seen }) });
    }
    return t;
  }

  it("a window's memo holds short exact keys: a wide tree's windows fit a memo its whole-tree texts overflow", () => {
    const c = new ClientLinearizabilityChecker({ windowOps: 10, maxMemoChars: 20_000 });
    expect(runChecker(c, wide().events)).toEqual([]);
    expect(c.summary).toMatchObject({ outcome: "linearizable" });
    expect(c.summary!.windows).toBeGreaterThanOrEqual(10);
    expect(c.unknowns()).toEqual([]);
  });

  it("canary: with short keys, a stale read in a late window of the wide tree is still a violation", () => {
    const c = new ClientLinearizabilityChecker({ windowOps: 10, maxMemoChars: 20_000 });
    const v = runChecker(c, wide(45).events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/not linearizable \(writes and reads\), window \d+ /);
    expect(c.unknowns()).toEqual([]);
  });

  it("canary: a search over the memo limit is unknown (memory), on a history checked whole", () => {
    const c = new ClientLinearizabilityChecker({ maxMemoChars: 20 });
    expect(runChecker(c, rounds(10).events)).toEqual([]);
    expect(c.unknowns()).toHaveLength(1);
    expect(c.unknowns()[0]!.reason).toMatch(/memo limit of 20 key characters ran out/);
  });
});
