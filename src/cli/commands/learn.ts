/**
 * `zksim learn [zab|paxos|multipaxos|2pc|3pc] …` and `zksim learn compare 2pc 3pc`: the interactive teaching UI (src/tui/): the ink app on a terminal,
 * plain text frames without one (or with --plain / --script). docs/learn.md has the keys.
 */
import { UserInputError } from "../../sim/errors.js";
import { runLearn } from "../../tui/cli.js";
import { boolFlag, intFlag, parseArgs, stringFlag } from "../args.js";
import type { Command } from "../command.js";
import { checkInputFile } from "../files.js";

const SPEC = { lesson: "string", seed: "int", variant: "string", plain: "bool", script: "string", open: "string", save: "string", lessons: "bool" } as const;

export const learn: Command = {
  name: "learn",
  args: `[zab|paxos|multipaxos|2pc|3pc | compare 2pc 3pc] [--lesson NAME] [--seed N] [--variant V] [--plain] [--script "step 3; crash s3"] [--open FILE] [--save FILE] [--lessons]`,
  help: "step through a protocol in a terminal UI (plain text without a TTY); see docs/learn.md",
  run(argv) {
    const args = parseArgs(argv, SPEC, "learn");
    const compare = args.positionals[0] === "compare";
    if (!compare && args.positionals.length > 1) throw new UserInputError(`learn: unexpected argument "${args.positionals[1]}"`);
    // A session file is read only if it is a regular file of a sane size (a FIFO or /dev/zero would hang the read).
    const open = stringFlag(args, "open");
    if (open !== undefined) checkInputFile(open, "session file");
    return runLearn({
      protocol: compare ? "compare" : args.positionals[0],
      ...(compare ? { compare: args.positionals.slice(1) } : {}),
      lessons: boolFlag(args, "lessons"),
      plain: boolFlag(args, "plain"),
      lesson: stringFlag(args, "lesson"),
      seed: intFlag(args, "seed"),
      variant: stringFlag(args, "variant"),
      script: stringFlag(args, "script"),
      open,
      save: stringFlag(args, "save"),
    });
  },
};
