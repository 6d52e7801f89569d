/**
 * `zksim list [--json]`: the scenarios, and which of them fail on purpose: a scenario tagged
 * `expect-fail` (a recipe's naive twin, `recipe-lock-pause-unfenced`) exists to show a checker
 * catching a flawed recipe, so its failing verdict is the expected one. `--json` gives each
 * entry `expect: "pass" | "fail"`.
 */
import { boolFlag, maxPositionals, parseArgs } from "../args.js";
import type { Command } from "../command.js";
import { loadScenario, scenarioNames } from "../scenario-files.js";

/** The tag of a scenario whose run is meant to fail (a checker catching a deliberate flaw). */
export const EXPECT_FAIL_TAG = "expect-fail";

export const list: Command = {
  name: "list",
  args: "[--json]",
  help: `list the scenarios ("fails on purpose": a deliberately flawed recipe that a checker catches)`,
  async run(argv) {
    const args = parseArgs(argv, { json: "bool" }, "list");
    maxPositionals(args, 0, "list");
    const entries = scenarioNames().map((name) => {
      const s = loadScenario(name);
      return { name, description: s.description, tags: s.tags, expect: s.tags.includes(EXPECT_FAIL_TAG) ? ("fail" as const) : ("pass" as const) };
    });
    if (boolFlag(args, "json")) {
      console.log(JSON.stringify(entries));
    } else {
      const width = Math.max(...entries.map((e) => e.name.length), 4);
      for (const e of entries) console.log(`${e.name.padEnd(width)}  ${e.expect === "fail" ? "[fails on purpose] " : ""}${e.description}`);
    }
    return 0;
  },
};
