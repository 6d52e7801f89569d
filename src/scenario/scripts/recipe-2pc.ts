/**
 * recipe-2pc: c1 coordinates a series of transactions over the other clients as sites (the
 * last site, c4 in the scenario, votes abort on every third) through the fault window. A paused
 * or partitioned coordinator leaves the sites waiting: they time out and propose abort; the
 * decision node is created once, so whoever is first decides for all. Every transaction ends
 * decided, the same way everywhere.
 */
import { TwoPhaseCommit, type Vote } from "../../recipes/two-phase-commit.js";
import { retrying } from "../../recipes/recipe-support.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, joinWorkers, settle, withSessions, paced, startOffsetMs, startDelay } from "./recipe-support.js";

export const TX_ROOT = "/app/tx";
const VOTE_TIMEOUT_MS = 4000;
const DECISION_TIMEOUT_MS = 6000;

async function coordinator(s: ScriptContext, node: string, sites: readonly string[], progress: { begun: number; done: boolean }): Promise<void> {
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const tpc = new TwoPhaseCommit(zk, host, TX_ROOT);
    await tpc.init();
    while (progress.begun === 0 || inFaultWindow(s)) {
      const tx = `tx-${String(progress.begun).padStart(4, "0")}`;
      await tpc.begin(tx, sites);
      progress.begun++;
      await tpc.coordinate(tx, sites, VOTE_TIMEOUT_MS);
      await host.sleepMs(paced(s, 300));
    }
  });
  progress.done = true;
}

async function site(s: ScriptContext, node: string, index: number, naysayer: boolean, progress: { begun: number; done: boolean }): Promise<void> {
  const offsetMs = startOffsetMs(s, index, 0);
  if (offsetMs > 0) await startDelay(s, node, offsetMs);
  const handled = new Set<string>();
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const tpc = new TwoPhaseCommit(zk, host, TX_ROOT);
    await tpc.init();
    for (;;) {
      const txs = (await retrying(host, "2pc", () => zk.getChildren(TX_ROOT))).filter((t) => !handled.has(t)).sort();
      if (txs.length === 0) {
        if (progress.done && handled.size >= progress.begun) return;
        await host.sleepMs(200);
        continue;
      }
      for (const tx of txs) {
        const sites = await tpc.sitesOf(tx);
        if (sites.includes(node)) {
          const k = Number(tx.slice(3));
          const vote: Vote = naysayer && k % 3 === 2 ? "abort" : "commit";
          await tpc.vote(tx, node, vote);
          await tpc.awaitDecision(tx, DECISION_TIMEOUT_MS);
        }
        handled.add(tx);
      }
    }
  });
}

export const recipe2pc: ScriptDef = {
  name: "recipe-2pc",
  description: "two-phase commit on ZooKeeper: vote nodes per site, a decision node written once; sites that time out on a failed coordinator decide by it",
  recipeCheckers: ["recipe.2pc"],
  clientRange: [2, 8],
  workloadKnobs: ["pacePercent", "startOffsetsMs"],
  async run(s) {
    await settle(s);
    const [c1, ...sites] = s.clients as [string, ...string[]];
    const progress = { begun: 0, done: false };
    const workers: Record<string, Promise<void>> = { [c1]: coordinator(s, c1, sites, progress) };
    sites.forEach((c, i) => (workers[c] = site(s, c, i + 1, i === sites.length - 1, progress)));
    await joinWorkers(s, workers, 120_000);
    s.note(`${progress.begun} transactions, each decided once`);
  },
};
