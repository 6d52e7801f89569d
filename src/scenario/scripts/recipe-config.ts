/**
 * recipe-config: the configuration service through the fault window. c1 publishes
 * configuration versions; the other clients run the watch loop (a watcher whose session
 * expires starts again with a new one). Check phase: fresh reads (sync first) see the last
 * version, and the watch loops, stopped once recipe.config's quiet period has passed, must have
 * converged on it (`recipe.config`).
 */
import { ConfigUpdater, ConfigWatcher } from "../../recipes/config-service.js";
import { CONFIG_CONVERGE_MS } from "../../check/recipes/services.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, connectClient, hostOf, joinWorkers, settle, timingOf, untilCheckPhase, untilStopped, withSessions, paced, type StopFlag } from "./recipe-support.js";

export const CONFIG = "/app/config";
const PUBLISH_EVERY_MS = 700;

/** Writes v1, v2, … while the fault window lasts (at least once). */
export async function publisher(s: ScriptContext, node: string): Promise<void> {
  let version = 0;
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const updater = new ConfigUpdater(zk, host, CONFIG);
    while (version === 0 || inFaultWindow(s)) {
      await updater.write(`v${++version}`);
      await host.sleepMs(paced(s, PUBLISH_EVERY_MS));
    }
  });
}

/** A watch loop on `node` until `stop`. */
export async function configWatcher(s: ScriptContext, node: string, stop: StopFlag): Promise<void> {
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const w = new ConfigWatcher(zk, host, CONFIG);
    await untilStopped(host, stop, w.run(), () => w.stop());
  });
}

/** Check phase: a fresh read (sync first) on each of `nodes`; recipe.config compares it with the last write. */
export async function readConfigFresh(s: ScriptContext, nodes: readonly string[]): Promise<void> {
  for (const node of nodes) {
    const zk = await connectClient(s, node, RECIPE_SESSION_TIMEOUT_MS);
    const v = await new ConfigWatcher(zk, hostOf(s, node), CONFIG).readFresh();
    s.note(`${node} reads configuration ${v ?? "(none)"}`);
    await zk.close();
  }
}

/**
 * Lets the watch loops run on until the quiet period recipe.config needs to judge convergence
 * has passed since the check phase began (no later: the run must still end in time).
 */
export async function untilConfigJudged(s: ScriptContext): Promise<void> {
  const stopAtMs = timingOf(s).checkPhaseAtMs + CONFIG_CONVERGE_MS;
  if (s.sim.nowUs / 1000 < stopAtMs) await s.sleepMs(stopAtMs - s.sim.nowUs / 1000);
}

export const recipeConfig: ScriptDef = {
  name: "recipe-config",
  description: "configuration watch loop through faults: watchers never go back, fresh reads see the last write, and the watch loops converge on it",
  recipeCheckers: ["recipe.config"],
  clientRange: [2, 8],
  workloadKnobs: ["pacePercent"],
  async run(s) {
    await settle(s);
    const [c1, ...watchers] = s.clients as [string, ...string[]];
    const stop: StopFlag = { value: false };
    const workers: Record<string, Promise<void>> = { publisher: publisher(s, c1) };
    for (const w of watchers) workers[`watch-${w}`] = configWatcher(s, w, stop);
    await untilCheckPhase(s);
    await readConfigFresh(s, watchers);
    await untilConfigJudged(s);
    stop.value = true;
    await joinWorkers(s, workers, 60_000);
  },
};
