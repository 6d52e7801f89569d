/** `zksim bugs [--json]`: the bug zoo, historical ZooKeeper defects and the scenarios that trigger them. */
import { BUG_ZOO } from "../../scenario/bug-zoo.js";
import { boolFlag, maxPositionals, parseArgs } from "../args.js";
import type { Command } from "../command.js";

export const bugs: Command = {
  name: "bugs",
  args: "[--json]",
  help: "the bug zoo: historical ZooKeeper defects and the scenarios that trigger them",
  async run(argv) {
    const args = parseArgs(argv, { json: "bool" }, "bugs");
    maxPositionals(args, 0, "bugs");
    if (boolFlag(args, "json")) {
      console.log(JSON.stringify(BUG_ZOO.map(({ id, title, scenario, invariant }) => ({ id, title, scenario, invariant }))));
      return 0;
    }
    for (const b of BUG_ZOO) console.log(`${b.id.padEnd(9)} ${b.scenario.padEnd(12)} ${b.invariant.padEnd(26)} ${b.title} (fixed in ${b.fixedIn})`);
    console.log(`\nreplay one: zksim run <scenario> --bug <id>   (the same scenario passes without --bug)`);
    return 0;
  },
};
