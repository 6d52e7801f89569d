import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { checkRecipeParams } from "../../src/scenario/scripts/recipe-support.js";
import { UserInputError } from "../../src/sim/errors.js";
import type { TraceEvent } from "../../src/sim/trace.js";

/**
 * The scenarios built on loss traps aimed at a write other than a member's first create
 * (`createLossTraps` with `op` and `path`): each passes, and reaches the retry path it is named
 * for — the state no generated run reached (docs/bug-power.md, "Sixth session").
 */

/** Runs `name` at seed 1 and returns its trace (the events a predicate needs) and result. */
async function traced(name: string): Promise<{ events: TraceEvent[]; violations: unknown[]; traceHash: string }> {
  const events: TraceEvent[] = [];
  const r = await runScenario(loadScenario(name), { seed: 1, onTraceEvent: (e) => void ((e.kind === "client.complete" || e.kind === "client.invoke" || e.kind === "recipe.2pc") && events.push(e)) });
  return { events, violations: r.violations, traceHash: r.traceHash };
}

/** The failed completions of `node` with error `err`, joined to their invocation's op and path. */
function failures(events: readonly TraceEvent[], node: string, err: string): { op: string; path: string }[] {
  const invoked = new Map<number, { op: string; path: string }>();
  const out: { op: string; path: string }[] = [];
  for (const e of events) {
    if (e.node !== node) continue;
    const f = e.fields as { opId: number; op?: string; path?: string; err?: string };
    if (e.kind === "client.invoke") invoked.set(f.opId, { op: String(f.op), path: String(f.path) });
    if (e.kind === "client.complete" && f.err === err) out.push(invoked.get(f.opId) ?? { op: "?", path: "?" });
  }
  return out;
}

describe("loss traps aimed at any write", () => {
  it("recipe-2pc-vote-loss: a site's vote lands with its reply lost; the retry meets BADVERSION and reads its own vote back", async () => {
    const r = await traced("recipe-2pc-vote-loss");
    expect(r.violations).toEqual([]);
    for (const site of ["c2", "c3"]) {
      expect(failures(r.events, site, "CONNECTIONLOSS").some((f) => f.op === "setData"), site).toBe(true);
      expect(failures(r.events, site, "BADVERSION").some((f) => f.op === "setData" && f.path.endsWith(`/${site}`)), site).toBe(true);
    }
  });

  it("recipe-2pc-coordinator-lost: the coordinator's begin lands unanswered; the sites time out and one of them decides abort", async () => {
    const r = await traced("recipe-2pc-coordinator-lost");
    expect(r.violations).toEqual([]);
    expect(failures(r.events, "c1", "CONNECTIONLOSS").some((f) => f.op === "multi")).toBe(true);
    const proposedBySite = r.events.filter((e) => e.kind === "recipe.2pc" && e.node !== "c1" && (e.fields as { event: string }).event === "proposed");
    expect(proposedBySite.map((e) => (e.fields as { decision: string }).decision)).toContain("abort");
  });

  it("recipe-group-join-loss: a member's create lands unanswered; the retry meets NODEEXISTS and finds its own node; same seed twice, same trace", async () => {
    const r = await traced("recipe-group-join-loss");
    expect(r.violations).toEqual([]);
    expect(failures(r.events, "c2", "CONNECTIONLOSS")).toContainEqual({ op: "create", path: "/app/members/c2" });
    expect(failures(r.events, "c2", "NODEEXISTS")).toContainEqual({ op: "create", path: "/app/members/c2" });
    expect((await traced("recipe-group-join-loss")).traceHash).toBe(r.traceHash);
  });

  it("recipe-double-barrier-entry-loss: the first member's entry lands unanswered; back, it sees every member and its create of ready meets NODEEXISTS", async () => {
    const r = await traced("recipe-double-barrier-entry-loss");
    expect(r.violations).toEqual([]);
    expect(failures(r.events, "c1", "CONNECTIONLOSS").some((f) => f.op === "create" && f.path.startsWith("/app/double-barrier/round-0/0x"))).toBe(true);
    expect(failures(r.events, "c1", "NODEEXISTS")).toContainEqual({ op: "create", path: "/app/double-barrier/round-0/ready" });
  });

  it("a trap names a write the recipes send and an absolute path, else one clear UserInputError", () => {
    const trap = { node: "c1", atMs: 0, forMs: 1000 };
    expect(() => checkRecipeParams({ createLossTraps: [{ ...trap, op: "setData", path: "/app" }] })).not.toThrow();
    expect(() => checkRecipeParams({ createLossTraps: [{ ...trap, op: "getData" }] })).toThrow(UserInputError);
    expect(() => checkRecipeParams({ createLossTraps: [{ ...trap, path: "app" }] })).toThrow(/"op" optional: one of create, setData, delete, multi/);
  });
});
