/**
 * Plain mode: the same engine and the same frames as text, driven by commands (from
 * `--script "step 12; crash s3; run 2s"` or stdin lines), for pipes, CI, lessons' golden
 * transcripts and docs. Every command is echoed (`> step 3`), followed by what it did and the
 * narration of the events it ran. A bad command stops the run with one `error:` line and exit
 * status 2; at the end the whole frame and the lesson's goal are printed.
 */
import { isUserInputError } from "../sim/errors.js";
import type { Session } from "../stepper/session.js";
import type { Lesson } from "./lessons/lesson.js";
import { parseCommand } from "./commands.js";
import { execute } from "./execute.js";
import { frameText, newNarration } from "./frame-text.js";

export interface PlainOptions {
  session: Session;
  lesson: Lesson | undefined;
  commands: AsyncIterable<string> | Iterable<string>;
  write: (line: string) => void;
  width?: number;
}

/** Runs the commands; returns the exit status (0, or 2 after a bad command). */
export async function runPlain(o: PlainOptions): Promise<number> {
  const width = o.width ?? 100;
  if (o.lesson !== undefined) for (const line of lessonIntro(o.lesson)) o.write(line);
  for (const line of frameText(o.session.frame(), width)) o.write(line);
  for await (const raw of o.commands) {
    const text = raw.trim();
    if (text === "" || text.startsWith("#")) continue;
    o.write(`> ${text}`);
    try {
      const outcome = await execute(o.session, parseCommand(text));
      for (const line of outcome.lines) o.write(line);
      const f = o.session.frame();
      if (outcome.showFrame) for (const line of frameText(f, width)) o.write(line);
      else for (const line of newNarration(f, width)) o.write(line);
    } catch (err) {
      if (!isUserInputError(err)) throw err;
      o.write(`error: ${err.message}`);
      return 2;
    }
  }
  o.write("--- end ---");
  for (const line of frameText(o.session.frame(), width)) o.write(line);
  return 0;
}

export function lessonIntro(l: Lesson): string[] {
  return [`LESSON ${l.protocol}/${l.name}: ${l.title}`, `  ${l.idea}`, ...l.intro.map((s) => `  • ${s}`), ""];
}
