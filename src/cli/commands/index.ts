/**
 * The command registry: `main` dispatches, lists and explains exactly these, in this order.
 * Adding a command is one file exporting a `Command` (cli/command.ts) and one line here.
 */
import type { Command } from "../command.js";
import { explore } from "../explore/command.js";
import { bench } from "./bench.js";
import { bugs } from "./bugs.js";
import { check } from "./check.js";
import { ctl } from "./ctl.js";
import { demo } from "./demo.js";
import { determinism } from "./determinism.js";
import { learn } from "./learn.js";
import { list } from "./list.js";
import { replay } from "./replay.js";
import { run } from "./run.js";
import { serve } from "./serve.js";
import { shrink } from "./shrink.js";

export const COMMANDS: readonly Command[] = [
  run,
  explore,
  replay,
  shrink,
  check,
  bugs,
  list,
  determinism,
  bench,
  demo,
  learn,
  serve,
  ctl,
];
