/**
 * recipe-election: four clients elect a leader without herd effect with a LeaderSelector, each
 * leading for a term (cut short if its leadership comes into doubt) and resigning, again and
 * again through the fault window and whatever the fault schedule does (a leader's session
 * expiring must be noticed, and must not leave two leaders). Then the check phase, with leader
 * latches: after the fault window every client stands again and exactly one must lead (a
 * leader again after heal).
 */
import { LeaderLatch, LeaderSelector } from "../../recipes/leader-election.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, hostOf, joinWorkers, settle, untilCheckPhase, withSessions, clientWorkers } from "./recipe-support.js";

export const ELECTION_DIR = "/app/election";
const TERM_MS = 700;

async function candidate(s: ScriptContext, node: string, index: number): Promise<void> {
  const host = hostOf(s, node);
  let terms = 0;
  await host.sleepMs(29 * index);
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
    // Terms go on through the fault window, so the faults hit leaders and candidates.
    while (terms === 0 || inFaultWindow(s)) {
      await new LeaderSelector(zk, host, ELECTION_DIR).lead(async (leadership) => {
        await Promise.race([host.sleepMs(TERM_MS), leadership.ended]);
      });
      terms++;
      await host.sleepMs(150 + 41 * index);
    }
  });
}

export const recipeElection: ScriptDef = {
  name: "recipe-election",
  description: "leader election without herd effect: one leader at a time through faults, and a leader again after they heal",
  recipeCheckers: ["recipe.election"],
  async run(s) {
    await settle(s);
    await joinWorkers(s, clientWorkers(s, (c, i) => candidate(s, c, i)), 120_000);
    await untilCheckPhase(s);
    s.note("check phase: every client stands again; exactly one must lead");
    const latches: LeaderLatch[] = [];
    const finals: Record<string, Promise<void>> = {};
    let stop = false;
    for (const c of s.clients) {
      const host = hostOf(s, c);
      finals[c] = withSessions(s, c, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
        const latch = new LeaderLatch(zk, host, ELECTION_DIR);
        latches.push(latch);
        await latch.start();
        while (!stop) await host.sleepMs(100);
        await latch.close();
      });
    }
    await s.waitFor(() => latches.some((l) => l.hasLeadership()), 30_000, "a leader is elected after the faults");
    await s.sleepMs(2000);
    s.expectEqual(latches.filter((l) => l.hasLeadership()).length, 1, "leaders after the faults healed");
    stop = true;
    await joinWorkers(s, finals, 30_000);
  },
};
