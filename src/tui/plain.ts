/**
 * Plain mode: the same engine and the same frames as text, driven by commands (from
 * `--script "step 12; crash s3; run 2s"` or stdin lines), for pipes, CI, dumb terminals,
 * lessons' golden transcripts and docs. Every command is echoed (`> step 3`), followed by what
 * it did and the narration of the events it ran; when the lesson's goal is reached, the goal
 * box (what happened, the invariants, why it matters, the book). A bad command stops the run
 * with one `error:` line in the transcript, the same line for `fail` (the CLI's stderr: a caller
 * reading only the exit status and stderr learns what was wrong) and exit status 2; at the end the
 * whole frame is printed. Every line
 * is wrapped to the width (COLUMNS): nothing is cut.
 */
import { isUserInputError } from "../sim/errors.js";
import type { Session } from "../stepper/session.js";
import type { Frame } from "../stepper/types.js";
import type { Lesson } from "./lessons/lesson.js";
import { parseCommand } from "./commands.js";
import { execute } from "./execute.js";
import { frameText, newNarration } from "./frame-text.js";
import { goalBoxLines } from "./boxes.js";
import { wrap, wrapAll } from "./text.js";

export interface PlainOptions {
  session: Session;
  lesson: Lesson | undefined;
  commands: AsyncIterable<string> | Iterable<string>;
  write: (line: string) => void;
  /** Told the bad command's one-line error (stderr for the CLI); the run then returns 2. */
  fail?: (message: string) => void;
  width?: number;
}

/** Runs the commands; returns the exit status (0, or 2 after a bad command). */
export async function runPlain(o: PlainOptions): Promise<number> {
  const width = o.width ?? 100;
  const write = (lines: readonly string[]) => {
    for (const line of wrapAll(lines, width)) o.write(line);
  };
  const frame = (f: Frame, before: Frame | undefined) => write(frameText(f, width, { ...(before !== undefined ? { before } : {}), ...(o.lesson?.keyFields !== undefined ? { keyFields: o.lesson.keyFields } : {}) }));
  if (o.lesson !== undefined) write(lessonIntro(o.lesson, width));
  let before = o.session.frame();
  let beforeLast: Frame | undefined;
  frame(before, undefined);
  let reached = before.goal?.reached === true;
  for await (const raw of o.commands) {
    const text = raw.trim();
    if (text === "" || text.startsWith("#")) continue;
    write([`> ${text}`]);
    try {
      const outcome = await execute(o.session, parseCommand(text));
      write(outcome.lines);
      const f = o.session.frame();
      if (outcome.showFrame) frame(f, before);
      else write(newNarration(f, width));
      if (!reached && f.goal?.reached === true) write(goalBoxLines(o.lesson, f, { asked: 0, answered: 0, right: 0 }, width).slice(0, -1));
      reached = f.goal?.reached === true;
      beforeLast = before;
      before = f;
    } catch (err) {
      if (!isUserInputError(err)) throw err;
      write([`error: ${err.message}`]);
      o.fail?.(`"${text}": ${err.message}`);
      return 2;
    }
  }
  write(["--- end ---"]);
  frame(o.session.frame(), beforeLast);
  return 0;
}

export function lessonIntro(l: Lesson, width = 100): string[] {
  return [...wrap(`LESSON ${l.protocol}/${l.name}: ${l.title}`, width, "  "), ...wrap(`  ${l.idea}`, width, "  "), ...l.intro.flatMap((s) => wrap(`  • ${s}`, width, "    ")), ""];
}
