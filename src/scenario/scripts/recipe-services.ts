/**
 * recipe-services: the "out of the box" uses together, through the fault window. c1 publishes
 * configuration versions and watches the group; c2 and c3 watch the configuration; c2–c4 are
 * group members (rejoining after a session expiry); c4 also draws unique names. Check phase:
 * fresh reads see the last configuration and exactly the live members; names were unique.
 */
import { ConfigUpdater, ConfigWatcher } from "../../recipes/config-service.js";
import { GroupMember, GroupWatcher } from "../../recipes/group-membership.js";
import { NamingService } from "../../recipes/naming-service.js";
import type { NodeContext } from "../../sim/node-context.js";
import { SessionLostError } from "../../recipes/recipe-support.js";
import { CONFIG_CONVERGE_MS } from "../../check/recipes/services.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, connectClient, hostOf, joinWorkers, settle, timingOf, untilCheckPhase, withSessions } from "./recipe-support.js";

const CONFIG = "/app/config";
const GROUP = "/app/members";
const NAMES = "/app/names";


async function publisher(s: ScriptContext, node: string): Promise<void> {
  const host = hostOf(s, node);
  let version = 0;
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
    const updater = new ConfigUpdater(zk, host, CONFIG);
    while (version === 0 || inFaultWindow(s)) {
      await updater.write(`v${++version}`);
      await host.sleepMs(700);
    }
  });
}

/** Resolves once `stop.value` is set (polled on the node's clock). */
async function stopped(host: NodeContext, stop: { value: boolean }): Promise<void> {
  while (!stop.value) await host.sleepMs(100);
}

/** Runs a watch loop until `stop`; a loop that ends early (its session lost) ends the body with its error. */
async function untilStopped(host: NodeContext, stop: { value: boolean }, loop: Promise<void>, halt: () => void): Promise<void> {
  const early = await Promise.race([loop.then(() => "ended"), stopped(host, stop).then(() => "stop")]);
  if (early === "stop") halt();
  await loop;
}

async function configWatcher(s: ScriptContext, node: string, stop: { value: boolean }): Promise<void> {
  const host = hostOf(s, node);
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
    const w = new ConfigWatcher(zk, host, CONFIG);
    await untilStopped(host, stop, w.run(), () => w.stop());
  });
}

async function member(s: ScriptContext, node: string, stop: { value: boolean }): Promise<void> {
  const host = hostOf(s, node);
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
    const m = new GroupMember(zk, host, GROUP, node);
    await m.join();
    const why = await Promise.race([m.lost.then(() => "lost"), stopped(host, stop).then(() => "stop")]);
    if (why === "lost") throw new SessionLostError("group", "membership lost");
  });
}

async function namer(s: ScriptContext, node: string): Promise<void> {
  const host = hostOf(s, node);
  let assigned = 0;
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
    const naming = new NamingService(zk, host, NAMES);
    while (assigned === 0 || inFaultWindow(s)) {
      await naming.assign("job");
      assigned++;
      await host.sleepMs(900);
    }
  });
}

export const recipeServices: ScriptDef = {
  name: "recipe-services",
  description: "configuration watch loop, group membership and a naming service through faults; fresh reads see the last configuration and the live members",
  recipeCheckers: ["recipe.group", "recipe.config", "recipe.naming"],
  async run(s) {
    await settle(s);
    const [c1, c2, c3, c4] = s.clients as [string, string, string, string];
    const stop = { value: false };
    const members = [c2, c3, c4];
    const workers: Record<string, Promise<void>> = {
      publisher: publisher(s, c1),
      "watch-c2": configWatcher(s, c2, stop),
      "watch-c3": configWatcher(s, c3, stop),
      namer: namer(s, c4),
    };
    for (const m of members) workers[`member-${m}`] = member(s, m, stop);
    workers["group-watch"] = withSessions(s, c1, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
      const view = new GroupWatcher(zk, hostOf(s, c1), GROUP);
      await untilStopped(hostOf(s, c1), stop, view.run(), () => view.stop());
    });
    await untilCheckPhase(s);
    for (const node of [c2, c3]) {
      const zk = await connectClient(s, node, RECIPE_SESSION_TIMEOUT_MS);
      const v = await new ConfigWatcher(zk, hostOf(s, node), CONFIG).readFresh();
      s.note(`${node} reads configuration ${v ?? "(none)"}`);
      await zk.close();
    }
    const zk = await connectClient(s, c1, RECIPE_SESSION_TIMEOUT_MS);
    s.expectEqual(await new GroupWatcher(zk, hostOf(s, c1), GROUP).refresh(), [...members].sort(), "the group lists every live member");
    await zk.close();
    // The watch loops run on until the quiet period recipe.config needs to judge convergence
    // has passed since the check phase began (no later: the run must still end in time).
    const stopAtMs = timingOf(s).checkPhaseAtMs + CONFIG_CONVERGE_MS;
    if (s.sim.nowUs / 1000 < stopAtMs) await s.sleepMs(stopAtMs - s.sim.nowUs / 1000);
    stop.value = true;
    await joinWorkers(s, workers, 60_000);
  },
};
