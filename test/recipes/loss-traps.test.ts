import { describe, expect, it } from "vitest";
import { checkRecipeParams } from "../../src/scenario/scripts/recipe-support.js";
import { UserInputError } from "../../src/sim/errors.js";
import { failures, traced } from "./loss-trap-support.js";

/**
 * The scenarios built on loss traps aimed at a write other than a member's first create
 * (`createLossTraps` with `op` and `path`): each passes, and reaches the retry path it is named
 * for — a state no generated run reached (docs/bug-power.md, "Sixth session"). The 2PC ones, the
 * slower runs, are in loss-traps.deep.test.ts.
 */

describe("loss traps aimed at any write", () => {
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

  it("recipe-barrier-lower-loss: the controller's delete of round 0's barrier lands unanswered; the retry meets NONODE and the barrier counts as down", async () => {
    const r = await traced("recipe-barrier-lower-loss");
    expect(r.violations).toEqual([]);
    expect(failures(r.events, "c1", "CONNECTIONLOSS")).toContainEqual({ op: "delete", path: "/app/barrier/round-0" });
    expect(failures(r.events, "c1", "NONODE")).toContainEqual({ op: "delete", path: "/app/barrier/round-0" });
  });

  it("a trap names a write the recipes send and an absolute path, else one clear UserInputError", () => {
    const trap = { node: "c1", atMs: 0, forMs: 1000 };
    expect(() => checkRecipeParams({ createLossTraps: [{ ...trap, op: "setData", path: "/app" }] })).not.toThrow();
    expect(() => checkRecipeParams({ createLossTraps: [{ ...trap, op: "getData" }] })).toThrow(UserInputError);
    expect(() => checkRecipeParams({ createLossTraps: [{ ...trap, path: "app" }] })).toThrow(/"op" optional: one of create, setData, delete, multi/);
  });
});
