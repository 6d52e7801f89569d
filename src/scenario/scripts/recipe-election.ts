/**
 * recipe-election: four clients elect a leader without herd effect with a LeaderSelector, each
 * leading for a term (cut short if its leadership comes into doubt) and resigning, again and
 * again through the fault window and whatever the fault schedule does (a leader's session
 * expiring must be noticed, and must not leave two leaders). Then the check phase, with leader
 * latches: after the fault window every client stands again and exactly one must lead (a
 * leader again after heal). recipe-leader-latch runs the same story with latches throughout.
 */
import type { ZooKeeper } from "../../zk/client/index.js";
import type { NodeContext } from "../../sim/node-context.js";
import { LeaderLatch, LeaderSelector, type LatchOptions } from "../../recipes/leader-election.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, joinWorkers, settle, untilCheckPhase, withSessions, clientWorkers, paced, startOffsetMs, latchVariantOf, startDelay } from "./recipe-support.js";

export const ELECTION_DIR = "/app/election";
/** How long a leader leads before it resigns (unless its leadership ends first). */
export const TERM_MS = 700;

/** Stands for one term of `termMs` on a handle: returns once it has led and resigned (or lost the lead). */
export type Term = (zk: ZooKeeper, host: NodeContext, termMs: number, options: LatchOptions) => Promise<void>;

/** Terms on `node`, one after another through the fault window (at least one), so the faults hit leaders and candidates. */
export async function termsThroughFaults(s: ScriptContext, node: string, index: number, term: Term): Promise<void> {
  let terms = 0;
  await startDelay(s, node, startOffsetMs(s, index, 29 * index));
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    while (terms === 0 || inFaultWindow(s)) {
      await term(zk, host, paced(s, TERM_MS), { variant: latchVariantOf(s) });
      terms++;
      await host.sleepMs(paced(s, 150 + 41 * index));
    }
  });
}

const selectorTerm: Term = (zk, host, termMs, options) =>
  new LeaderSelector(zk, host, ELECTION_DIR, options).lead(async (leadership) => {
    await Promise.race([host.sleepMs(termMs), leadership.ended]);
  });

/** Check phase: after the fault window every client stands again with a leader latch on `dir`; exactly one must lead. */
export async function oneLeaderAfterFaults(s: ScriptContext, dir: string): Promise<void> {
  await untilCheckPhase(s);
  s.note("check phase: every client stands again; exactly one must lead");
  const latches: LeaderLatch[] = [];
  const finals: Record<string, Promise<void>> = {};
  let stop = false;
  for (const c of s.clients) {
    finals[c] = withSessions(s, c, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
      const latch = new LeaderLatch(zk, host, dir, { variant: latchVariantOf(s) });
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
}

export const recipeElection: ScriptDef = {
  name: "recipe-election",
  description: "leader election without herd effect: one leader at a time through faults, and a leader again after they heal",
  recipeCheckers: ["recipe.election"],
  clientRange: [2, 8],
  workloadKnobs: ["pacePercent", "startOffsetsMs"],
  async run(s) {
    await settle(s);
    await joinWorkers(s, clientWorkers(s, (c, i) => termsThroughFaults(s, c, i, selectorTerm)), 120_000);
    await oneLeaderAfterFaults(s, ELECTION_DIR);
  },
};
