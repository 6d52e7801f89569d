/**
 * The side-by-side comparison as text and as commands: the two runs' panes (header, nodes,
 * recent narration, invariants, where the participants stand), and the commands that drive
 * both runs together (a subset of the learner's language: step, back, run, faults, txn, show,
 * help). Plain mode prints these lines; the ink compare screen draws the same panes.
 */
import { UserInputError } from "../../sim/errors.js";
import type { Frame } from "../../stepper/types.js";
import { fit, headerLine, ms, narrationView, nodeRows, verdictLines } from "../frame-text.js";
import type { Command } from "../commands.js";
import { CompareSession, standing } from "./compare-session.js";

export const COMPARE_HELP: readonly string[] = [
  "Both runs take the same commands, at the same virtual time:",
  "step [N] | back [N] | run DURATION      step together / back / run on",
  "faults: crash NODE, cut A <-> B, partition A B | C, heal … (docs/faults.md)",
  "txn C KEY VALUE [no P,..]                a transaction in both runs",
  "show | help",
  "(deliver, drop, dup, delay and fire name one run's message: use faults instead)",
];

/**
 * One run's pane: header, nodes, the last `narration` lines, up to `verdicts` invariant lines
 * (the first is the tally; the standing line names what broke anyway), and where its
 * participants stand.
 */
export function paneLines(f: Frame, width: number, narration: number, verdicts = 2): string[] {
  const nodes = nodeRows(f, width, { wrap: false }).map((r) => r.text);
  return [headerLine(f, width), ...nodes, ...narrationView(f, width, narration).lines, ...verdictLines(f, width).slice(0, verdicts), fit(`⇒ ${standing(f)}`, width)];
}

export function compareFrameText(c: CompareSession, width: number): string[] {
  const [a, b] = c.frames();
  return [`COMPARE ${a.protocol.toUpperCase()} │ ${b.protocol.toUpperCase()} · joint step ${c.step}`, ...paneLines(a, width, 6), "", ...paneLines(b, width, 6)];
}

/** Runs one command on both runs; returns what to print. */
export async function executeCompare(c: CompareSession, command: Command, width: number): Promise<string[]> {
  switch (command.kind) {
    case "step": {
      let n = 0;
      while (n < command.count && (await c.forward())) n++;
      return [n < command.count ? `nothing left to run after ${n} joint step(s)` : `joint step ${c.step}`, ...narrationOfBoth(c, width)];
    }
    case "back": {
      let n = 0;
      while (n < command.count && (await c.back())) n++;
      return [n < command.count ? `at the start (went back ${n} joint step(s))` : `back at joint step ${c.step}`];
    }
    case "run": {
      const steps = await c.runFor(command.ms);
      return [`ran ${steps} joint step(s), now joint step ${c.step}`, ...c.frames().map((f) => fit(`${f.protocol.toUpperCase()} ⇒ ${standing(f)}`, width))];
    }
    case "fault":
      c.act({ kind: "fault", fault: command.fault });
      return ["done (both runs)", ...narrationOfBoth(c, width)];
    case "client":
      c.act({ kind: "client", client: command.client, ...command.op });
      return ["done (both runs)"];
    case "show":
      return compareFrameText(c, width);
    case "help":
      return [...COMPARE_HELP];
    case "deliver":
    case "drop":
    case "duplicate":
    case "fire":
    case "delay":
    case "branch":
    case "goal":
      throw new UserInputError(`compare: ${command.kind} is not available when comparing (${command.kind === "branch" || command.kind === "goal" ? "each run keeps its own branches and has no lesson goal" : "the two runs have different messages and timers"}); see help`);
  }
}

/** The narration since the last joint step or action began, each line marked with its run. */
function narrationOfBoth(c: CompareSession, width: number): string[] {
  return c.frames().flatMap((f, i) =>
    f.recent.filter((r) => r.narration !== undefined && r.event.index >= c.since[i]!).map((r) => fit(`${f.protocol.toUpperCase()}│ ${ms(r.event.atUs).padStart(9)} ${r.narration}`, width)),
  );
}
