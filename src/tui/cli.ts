/**
 * `zksim learn [zab|paxos|multipaxos|2pc|3pc] [--lesson NAME] [--seed N] [--variant V]
 * [--plain] [--script "step 3; crash s3"] [--open FILE] [--save FILE] [--lessons]`, and
 * `zksim learn compare 2pc 3pc [--seed N] [--plain] [--script …]` (see compare/).
 *
 * With a terminal (and neither --plain nor --script) it starts the ink app; otherwise plain
 * mode reads commands from --script or stdin and prints text frames. A lesson reached in
 * either mode is recorded in the progress file (see progress.ts).
 */
import { createInterface } from "node:readline";
import { Session } from "../stepper/session.js";
import { readSessionFile, saveSession } from "./session-file.js";
import { adapterFor } from "../stepper/adapters.js";
import { lessonNamed, lessonsOf, type Lesson } from "./lessons/index.js";
import { runPlain } from "./plain.js";
import { splitScript } from "./commands.js";
import { completedLessons, markCompleted } from "./progress.js";
import { openCompare, runComparePlain } from "./compare/compare-cli.js";
import { UserInputError } from "../sim/errors.js";

/** `zksim learn`'s options, as cli/commands/learn.ts parsed them. */
export interface LearnOptions {
  protocol: string;
  /** `learn compare 2pc 3pc`: the protocols to run side by side (protocol is then "compare"). */
  compare?: string[];
  /** List the lessons with what was completed, and stop. */
  lessons: boolean;
  lesson?: string;
  seed?: number;
  variant?: string;
  plain: boolean;
  script?: string;
  open?: string;
  save?: string;
}

export async function runLearn(o: LearnOptions): Promise<number> {
  const { protocol, seed, variant, open, script } = o;
  if (o.compare !== undefined) return runCompare(o, o.compare);
  const adapter = adapterFor(protocol);
  if (o.lessons) {
    const done = completedLessons();
    for (const l of lessonsOf(protocol)) console.log(`${done.has(key(l)) ? "✓" : " "} ${l.name.padEnd(28)} ${l.title}`);
    return 0;
  }
  const lesson = o.lesson === undefined ? undefined : lessonNamed(protocol, o.lesson);
  const interactive = process.stdout.isTTY === true && process.stdin.isTTY === true && script === undefined && !o.plain;
  // Interactive without a lesson or a file: the lessons menu comes first.
  const session = interactive && lesson === undefined && open === undefined ? undefined : await openSession(protocol, lesson, seed, variant, open);
  let current = session;
  let status: number;
  if (interactive) {
    const { runApp } = await import("./app.js");
    status = await runApp({
      session,
      lesson,
      lessons: lessonsOf(protocol),
      adapterTitle: adapter.title,
      completed: completedLessons(),
      onGoal: (l) => markCompleted(key(l)),
      save: (file) => current !== undefined && saveSession(current, file),
      start: async (l) => (current = await openSession(protocol, l, seed, variant, undefined)),
    });
  } else {
    const plain = (current = session ?? (await openSession(protocol, lesson, seed, variant, open)));
    const commands = script !== undefined ? splitScript(script) : stdinLines();
    status = await runPlain({ session: plain, lesson, commands, write: (line) => process.stdout.write(`${line}\n`), width: process.stdout.columns ?? 100 });
    if (lesson !== undefined && plain.frame().goal?.reached === true) markCompleted(key(lesson));
  }
  if (o.save !== undefined && current !== undefined) saveSession(current, o.save);
  return status;
}

async function runCompare(o: LearnOptions, protocols: string[]): Promise<number> {
  for (const flag of ["lesson", "variant", "open", "save"] as const) if (o[flag] !== undefined) throw new UserInputError(`learn compare: --${flag} is not available when comparing`);
  if (o.lessons) throw new UserInputError("learn compare: --lessons is not available when comparing");
  const c = await openCompare(protocols, o.seed);
  if (process.stdout.isTTY === true && process.stdin.isTTY === true && o.script === undefined && !o.plain) {
    const { runCompareApp } = await import("./compare/compare-app.js");
    return runCompareApp(c);
  }
  const commands = o.script !== undefined ? splitScript(o.script) : stdinLines();
  return runComparePlain(c, commands, (line) => process.stdout.write(`${line}\n`), process.stdout.columns ?? 100);
}

function key(l: Lesson): string {
  return `${l.protocol}/${l.name}`;
}

/** A new session (of a lesson, if given) or a saved one re-opened. */
export async function openSession(protocol: string, lesson: Lesson | undefined, seed: number | undefined, variant: string | undefined, file: string | undefined): Promise<Session> {
  const adapter = adapterFor(protocol);
  if (file !== undefined) {
    const saved = readSessionFile(file);
    const l = saved.lesson !== undefined ? lessonNamed(saved.protocol, saved.lesson) : lesson;
    const s = await Session.open(adapter, saved, l?.goal);
    s.lesson = l?.name;
    return s;
  }
  const s = await Session.begin(adapter, {
    seed: seed ?? lesson?.seed ?? 1,
    ...(variant !== undefined ? { variant } : lesson?.variant !== undefined ? { variant: lesson.variant } : {}),
    setup: lesson?.setup ?? [],
    ...(lesson !== undefined ? { goal: lesson.goal } : {}),
  });
  s.lesson = lesson?.name;
  return s;
}

async function* stdinLines(): AsyncIterable<string> {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) yield* splitScript(line);
}
