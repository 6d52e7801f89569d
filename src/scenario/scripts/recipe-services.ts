/**
 * recipe-services: the "out of the box" uses together, through the fault window — the parts of
 * recipe-config, recipe-group-membership and recipe-naming in one story. c1 publishes
 * configuration versions and watches the group; c2 and c3 watch the configuration; c2–c4 are
 * group members (rejoining after a session expiry); c4 also draws unique names. Check phase:
 * fresh reads see the last configuration and exactly the live members; names were unique.
 */
import type { ScriptDef } from "./script.js";
import { joinWorkers, settle, untilCheckPhase, type StopFlag } from "./recipe-support.js";
import { configWatcher, publisher, readConfigFresh, untilConfigJudged } from "./recipe-config.js";
import { checkGroup, groupViewer, member } from "./recipe-group-membership.js";
import { namer } from "./recipe-naming.js";

export const recipeServices: ScriptDef = {
  name: "recipe-services",
  description: "configuration watch loop, group membership and a naming service through faults; fresh reads see the last configuration and the live members",
  recipeCheckers: ["recipe.group", "recipe.group-announced", "recipe.config", "recipe.naming"],
  async run(s) {
    await settle(s);
    const [c1, c2, c3, c4] = s.clients as [string, string, string, string];
    const stop: StopFlag = { value: false };
    const members = [c2, c3, c4];
    const workers: Record<string, Promise<void>> = {
      publisher: publisher(s, c1),
      "watch-c2": configWatcher(s, c2, stop),
      "watch-c3": configWatcher(s, c3, stop),
      namer: namer(s, c4),
    };
    for (const m of members) workers[`member-${m}`] = member(s, m, stop);
    workers["group-watch"] = groupViewer(s, c1, stop);
    await untilCheckPhase(s);
    await readConfigFresh(s, [c2, c3]);
    await checkGroup(s, c1, members);
    await untilConfigJudged(s);
    stop.value = true;
    await joinWorkers(s, workers, 60_000);
  },
};
