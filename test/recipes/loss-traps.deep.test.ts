import { describe, expect, it } from "vitest";
import { failures, traced } from "./loss-trap-support.js";

/**
 * The 2PC recipe's scenarios of writes that land while their reply is lost, and of a session that
 * expires while the coordinator thinks (`npm run test:deep`: 2–4 s a run): each passes, and reaches
 * the path it is named for — a state no generated run reached (docs/bug-power.md, "Sixth session").
 */
describe("loss traps aimed at any write: 2PC", () => {
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

  it("recipe-2pc-coordinator-expires: the coordinator's begin multi meets SESSIONEXPIRED, and it starts over with a new session", async () => {
    const r = await traced("recipe-2pc-coordinator-expires");
    expect(r.violations).toEqual([]);
    expect(failures(r.events, "c1", "SESSIONEXPIRED").map((f) => f.op)).toContain("multi");
  });
});
