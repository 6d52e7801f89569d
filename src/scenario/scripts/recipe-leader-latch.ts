/**
 * recipe-leader-latch: the leader latch through the fault window. Each client starts a latch,
 * awaits leadership, leads for a term (cut short when its leadership is suspended or lost) and
 * closes the latch, again and again; a client whose session expires stands again with a new
 * one. Then recipe-election's check phase: every client stands again and exactly one must lead.
 * One leader at a time, and a leader again after heal (`recipe.election`).
 */
import { LeaderLatch } from "../../recipes/leader-election.js";
import type { ScriptDef } from "./script.js";
import { joinWorkers, settle, clientWorkers } from "./recipe-support.js";
import { oneLeaderAfterFaults, termsThroughFaults, type Term } from "./recipe-election.js";

export const LATCH_DIR = "/app/latch";

const latchTerm: Term = async (zk, host, termMs, options) => {
  const latch = new LeaderLatch(zk, host, LATCH_DIR, options);
  await latch.start();
  await latch.await();
  await Promise.race([host.sleepMs(termMs), latch.leadershipEnded()]);
  await latch.close();
};

export const recipeLeaderLatch: ScriptDef = {
  name: "recipe-leader-latch",
  description: "leader latch without herd effect: start, await, lead, close — one leader at a time through faults, and a leader again after they heal",
  recipeCheckers: ["recipe.election"],
  clientRange: [2, 8],
  workloadKnobs: ["pacePercent", "startOffsetsMs"],
  async run(s) {
    await settle(s);
    await joinWorkers(s, clientWorkers(s, (c, i) => termsThroughFaults(s, c, i, latchTerm)), 120_000);
    await oneLeaderAfterFaults(s, LATCH_DIR);
  },
};
