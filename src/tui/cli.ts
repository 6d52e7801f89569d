/**
 * `zksim learn [zab|paxos|multipaxos|2pc|3pc] [--lesson NAME] [--seed N] [--variant V]
 * [--plain] [--script "step 3; crash s3"] [--open FILE] [--save FILE] [--lessons]`.
 *
 * With a terminal (and neither --plain nor --script) it starts the ink app; otherwise plain
 * mode reads commands from --script or stdin and prints text frames. A lesson reached in
 * either mode is recorded in the progress file (see progress.ts).
 */
import { createInterface } from "node:readline";
import { UserInputError } from "../sim/errors.js";
import { Session } from "../scenario/stepper/session.js";
import { readSessionFile, saveSession } from "./session-file.js";
import { adapterFor } from "../scenario/stepper/adapters.js";
import { boolFlag, intFlag, parseArgs, stringFlag } from "../cli/args.js";
import { lessonNamed, lessonsOf, type Lesson } from "./lessons/index.js";
import { runPlain } from "./plain.js";
import { splitScript } from "./commands.js";
import { completedLessons, markCompleted } from "./progress.js";

const SPEC = { lesson: "string", seed: "int", variant: "string", plain: "bool", script: "string", open: "string", save: "string", lessons: "bool" } as const;

export async function cmdLearn(argv: string[]): Promise<number> {
  const args = parseArgs(argv, SPEC, "learn");
  if (args.positionals.length > 1) throw new UserInputError(`learn: unexpected argument "${args.positionals[1]}"`);
  const protocol = args.positionals[0] ?? "zab";
  const adapter = adapterFor(protocol);
  if (boolFlag(args, "lessons")) {
    const done = completedLessons();
    for (const l of lessonsOf(protocol)) console.log(`${done.has(key(l)) ? "✓" : " "} ${l.name.padEnd(28)} ${l.title}`);
    return 0;
  }
  const lessonName = stringFlag(args, "lesson");
  const lesson = lessonName === undefined ? undefined : lessonNamed(protocol, lessonName);
  const seed = intFlag(args, "seed");
  const variant = stringFlag(args, "variant");
  const open = stringFlag(args, "open");
  const script = stringFlag(args, "script");
  const interactive = process.stdout.isTTY === true && process.stdin.isTTY === true && script === undefined && !boolFlag(args, "plain");
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
  const save = stringFlag(args, "save");
  if (save !== undefined && current !== undefined) saveSession(current, save);
  return status;
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
