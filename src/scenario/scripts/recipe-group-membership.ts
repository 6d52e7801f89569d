/**
 * recipe-group-membership: group membership through the fault window. c1 keeps a view of the
 * group with a children watch; the other clients are members (EPHEMERAL nodes), and a member
 * whose session expires rejoins with a new one. Check phase: a fresh view (sync first) lists
 * exactly the live members; no view ever listed a member that never joined (`recipe.group`).
 */
import { GroupMember, GroupWatcher } from "../../recipes/group-membership.js";
import { SessionLostError } from "../../recipes/recipe-support.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { RECIPE_SESSION_TIMEOUT_MS, connectClient, hostOf, joinWorkers, settle, startOffsetMs, stopped, untilCheckPhase, untilStopped, withSessions, type StopFlag, startDelay, recipeHostOf } from "./recipe-support.js";

export const GROUP = "/app/members";

/** A member on `node` until `stop`; a lost membership (session expired) joins again with a new session. */
export async function member(s: ScriptContext, node: string, stop: StopFlag, index = 0): Promise<void> {
  const offsetMs = startOffsetMs(s, index, 0);
  if (offsetMs > 0) await startDelay(s, node, offsetMs);
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const m = new GroupMember(zk, recipeHostOf(s, host), GROUP, node);
    await m.join();
    const why = await Promise.race([m.lost.then(() => "lost"), stopped(host, stop).then(() => "stop")]);
    if (why === "lost") throw new SessionLostError("group", "membership lost");
  });
}

/** A view of the group kept on `node` until `stop`. */
export function groupViewer(s: ScriptContext, node: string, stop: StopFlag): Promise<void> {
  return withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const view = new GroupWatcher(zk, recipeHostOf(s, host), GROUP);
    await untilStopped(host, stop, view.run(), () => view.stop());
  });
}

/** Check phase: a fresh view from `node` lists every one of `members` (all live by now). */
export async function checkGroup(s: ScriptContext, node: string, members: readonly string[]): Promise<void> {
  const zk = await connectClient(s, node, RECIPE_SESSION_TIMEOUT_MS);
  s.expectEqual(await new GroupWatcher(zk, recipeHostOf(s, hostOf(s, node)), GROUP).refresh(), [...members].sort(), "the group lists every live member");
  await zk.close();
}

export const recipeGroupMembership: ScriptDef = {
  name: "recipe-group-membership",
  description: "group membership through faults: ephemeral members vanish with their sessions and rejoin; a fresh view lists exactly the live members",
  recipeCheckers: ["recipe.group", "recipe.group-announced"],
  clientRange: [2, 8],
  workloadKnobs: ["startOffsetsMs"],
  async run(s) {
    await settle(s);
    const [c1, ...members] = s.clients as [string, ...string[]];
    const stop: StopFlag = { value: false };
    const workers: Record<string, Promise<void>> = { "group-watch": groupViewer(s, c1, stop) };
    members.forEach((m, i) => (workers[`member-${m}`] = member(s, m, stop, i + 1)));
    await untilCheckPhase(s);
    await checkGroup(s, c1, members);
    stop.value = true;
    await joinWorkers(s, workers, 60_000);
  },
};
