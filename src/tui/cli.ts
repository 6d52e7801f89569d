/**
 * `zksim learn [zab|paxos|multipaxos|2pc|3pc] [--lesson NAME] [--seed N] [--variant V]
 * [--plain] [--script "step 3; crash s3"] [--open FILE] [--save FILE] [--lessons]`, and
 * `zksim learn compare 2pc 3pc [--seed N] [--plain] [--script …]` (see compare/).
 *
 * With a terminal that can draw (and neither --plain nor --script) it starts the ink app:
 * without a protocol the menu offers every protocol's lessons, with one that protocol's;
 * `--lesson` or `--open` go straight to the session. Otherwise — a pipe, CI, `TERM=dumb` —
 * plain mode reads commands from --script or stdin and prints text frames as wide as COLUMNS
 * says (else the terminal, else 100). A lesson reached in either mode is recorded in the
 * progress file (see progress.ts).
 *
 * Starting fast: the first frame is drawn before ink and React are loaded (first-frame.ts);
 * keys typed meanwhile were held since the process began (typeahead.ts) and reach the app.
 */
import { createInterface } from "node:readline";
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Session } from "../stepper/session.js";
import { readSessionFile, saveSession } from "./session-file.js";
import { adapterFor, ADAPTERS } from "../stepper/adapters.js";
import { lessonNamed, lessonsOf, type Lesson } from "./lessons/index.js";
import { runPlain } from "./plain.js";
import { splitScript } from "./commands.js";
import { completedLessons, markCompleted } from "./progress.js";
import { openCompare, runComparePlain } from "./compare/compare-cli.js";
import { UserInputError } from "../sim/errors.js";
import type { TraceListener } from "../sim/trace.js";
import { controllerFor, type ControllerOptions } from "./app-controller.js";
import { lessonKey, menuLines, type MenuEntry, type MenuGroup } from "./menu-lines.js";
import { screenLines } from "./screen-lines.js";
import { colourWanted, drawFirstFrame, rewindFirstFrame } from "./first-frame.js";
import { dropTypeahead, releaseTypeahead } from "./typeahead.js";
import { wrap } from "./text.js";
import { loadTerminalUi } from "./terminal-ui.js";
import { onStopSignals, SIGNAL_EXIT } from "../base/stop-signals.js";

/** `zksim learn`'s options, as cli/commands/learn.ts parsed them. */
export interface LearnOptions {
  /** The protocol named on the command line (undefined: none; ZAB where one is needed). */
  protocol: string | undefined;
  /** `learn compare 2pc 3pc`: the protocols to run side by side. */
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

/** Set (to a file) by `zksim bench tui`: the app writes its start-up figures there once drawn, and quits. */
export const FIRST_FRAME_ENV = "ZKSIM_BENCH_FIRST_FRAME";

export async function runLearn(o: LearnOptions): Promise<number> {
  try {
    return await learn(o);
  } finally {
    await dropTypeahead();
  }
}

async function learn(o: LearnOptions): Promise<number> {
  if (o.compare !== undefined) return runCompare(o, o.compare);
  // Without a protocol: a saved session's own, else ZAB.
  const protocol = o.protocol ?? (o.open !== undefined ? readSessionFile(o.open).protocol : "zab");
  adapterFor(protocol); // an unknown protocol is refused before anything runs
  if (o.lessons) return listLessons(o.protocol);
  const lesson = o.lesson === undefined ? undefined : lessonNamed(protocol, o.lesson);
  if (interactive(o)) return runInteractive(o, protocol, lesson);
  await dropTypeahead();
  if (process.env.TERM === "dumb" && process.stdout.isTTY === true && o.script === undefined && !o.plain) {
    process.stdout.write("TERM=dumb: plain mode — type commands, one a line (help lists them); ctrl-d ends\n");
  }
  const session = await openSession(protocol, lesson, o.seed, o.variant, o.open);
  const commands = o.script !== undefined ? splitScript(o.script) : stdinLines();
  quietOnClosedPipe();
  const release = saveOnSignal(() => session, o.save);
  try {
    const status = await runPlain({ session, lesson, commands, write: (line) => process.stdout.write(`${line}\n`), fail: scriptFailed, width: plainWidth() });
    if (lesson !== undefined && session.frame().goal?.reached === true) markCompleted(lessonKey(lesson));
    if (o.save !== undefined) saveSession(session, o.save);
    return status;
  } finally {
    release();
  }
}

function interactive(o: Pick<LearnOptions, "script" | "plain">): boolean {
  return process.stdout.isTTY === true && process.stdin.isTTY === true && o.script === undefined && !o.plain && process.env.TERM !== "dumb";
}

/** Plain mode's width: COLUMNS when set, else the terminal's, else 100. */
export function plainWidth(env: NodeJS.ProcessEnv = process.env): number {
  const columns = Number(env.COLUMNS);
  if (Number.isInteger(columns) && columns >= 40) return columns;
  return process.stdout.columns ?? 100;
}

/** `--lessons`: every protocol's lessons (or the one named), ✓ for the completed ones, and how to start each. */
function listLessons(only: string | undefined): number {
  const done = completedLessons();
  const protocols = only !== undefined ? [only] : [...ADAPTERS.keys()];
  const width = plainWidth();
  const print = (line: string, indent: string) => {
    for (const l of wrap(line, width, indent)) console.log(l);
  };
  const name = 28;
  for (const p of protocols) {
    print(`${p} — ${adapterFor(p).title}`, "  ");
    for (const l of lessonsOf(p)) print(`  ${done.has(lessonKey(l)) ? "✓" : " "} ${l.name.padEnd(name)} ${l.title}`, " ".repeat(name + 5));
    print(`    start one: zksim learn ${p} --lesson NAME${p === "zab" ? "   (or zksim learn: the menu of every lesson)" : ""}`, "      ");
  }
  return 0;
}

function menuGroups(only: string | undefined): MenuGroup[] {
  return (only !== undefined ? [only] : [...ADAPTERS.keys()]).map((p) => ({ protocol: p, title: adapterFor(p).title, lessons: lessonsOf(p) }));
}

async function runInteractive(o: LearnOptions, protocol: string, lesson: Lesson | undefined): Promise<number> {
  const t0 = performance.now();
  // Colour: chalk (under ink) honours FORCE_COLOR, not NO_COLOR; React's production build draws faster.
  if (!colourWanted()) process.env.FORCE_COLOR = "0";
  process.env.NODE_ENV ??= "production";
  const completed = completedLessons();
  let current: Session | undefined;
  // From the start: a signal while ink loads still saves the session once one is open.
  const release = saveOnSignal(() => current, o.save);
  try {
    const controllers = (p: string): ControllerOptions => ({ title: adapterFor(p).title, completed, onGoal: (l) => markCompleted(lessonKey(l)), save: (file) => current !== undefined && saveSession(current, file) });
    const size = { rows: process.stdout.rows ?? 24, columns: process.stdout.columns ?? 80 };
    const groups = menuGroups(o.protocol);
    // A lesson or a saved session opens at once; otherwise the lessons menu comes first.
    const direct = lesson !== undefined || o.open !== undefined;
    if (direct) current = await openSession(protocol, lesson, o.seed, o.variant, o.open);
    const first = current !== undefined ? controllerFor(controllers(protocol), current, lessonOf(current, lesson)) : undefined;
    const drawn = drawFirstFrame(first !== undefined ? screenLines(first.state, size, first.lesson) : menuLines(groups, 0, completed, size.rows, size.columns));
    const firstFrame = figures(t0);
    const { runApp } = await loadTerminalUi("zksim learn", () => import("./app.js"));
    await releaseTypeahead();
    rewindFirstFrame(drawn);
    const app = runApp({
      controller: first,
      groups,
      controllers,
      start: async (entry: MenuEntry) => (current = await openSession(entry.protocol, entry.lesson, o.seed, o.variant, undefined)),
    });
    const report = process.env[FIRST_FRAME_ENV];
    if (report !== undefined && report !== "") {
      writeFileSync(report, JSON.stringify({ firstFrame, interactive: figures(t0) }));
      process.exit(0);
    }
    const status = await app;
    if (o.save !== undefined && current !== undefined) saveSession(current, o.save);
    return status;
  } finally {
    release();
  }
}

/**
 * `--save FILE` survives SIGINT and SIGTERM (Ctrl-C in plain mode, `kill`, a closed terminal's
 * job control): the session as it stands is written, one line on stderr says so, and learn exits
 * 130 or 143. (In the ink app Ctrl-C is a key that quits the app, which saves as any quit does.)
 * Without --save a signal ends learn as it would any program. Returns the handlers' removal.
 */
function saveOnSignal(session: () => Session | undefined, file: string | undefined): () => void {
  if (file === undefined) return () => {};
  return onStopSignals((signal) => {
    const s = session();
    try {
      if (s !== undefined) saveSession(s, file);
      process.stderr.write(`zksim: learn: ${signal}: ${s !== undefined ? `session saved to ${file} (zksim learn --open ${file})` : "no session was open; nothing saved"}\n`);
    } catch (err) {
      process.stderr.write(`zksim: learn: ${signal}: ${err instanceof Error ? err.message : String(err)}\n`);
    }
    process.exit(SIGNAL_EXIT[signal]);
  });
}

/** CPU and wall time (ms) since the process began; `t0`: when learn itself began. */
function figures(t0: number): { cpuMs: number; wallMs: number; learnWallMs: number } {
  const u = process.cpuUsage();
  return { cpuMs: Math.round((u.user + u.system) / 1000), wallMs: Math.round(performance.now()), learnWallMs: Math.round(performance.now() - t0) };
}

function lessonOf(session: Session, fallback: Lesson | undefined): Lesson | undefined {
  return session.lesson !== undefined ? lessonNamed(session.adapter.protocol, session.lesson) : fallback;
}

async function runCompare(o: LearnOptions, protocols: string[]): Promise<number> {
  for (const flag of ["lesson", "variant", "open", "save"] as const) if (o[flag] !== undefined) throw new UserInputError(`learn compare: --${flag} is not available when comparing`);
  if (o.lessons) throw new UserInputError("learn compare: --lessons is not available when comparing");
  const c = await openCompare(protocols, o.seed);
  if (interactive(o)) {
    if (!colourWanted()) process.env.FORCE_COLOR = "0";
    process.env.NODE_ENV ??= "production";
    const { runCompareApp } = await loadTerminalUi("zksim learn compare", () => import("./compare/compare-app.js"));
    await releaseTypeahead();
    return runCompareApp(c);
  }
  await dropTypeahead();
  const commands = o.script !== undefined ? splitScript(o.script) : stdinLines();
  quietOnClosedPipe();
  return runComparePlain(c, commands, (line) => process.stdout.write(`${line}\n`), plainWidth(), scriptFailed);
}

/** A bad command of plain mode: one line on stderr, as every other bad input (exit 2 follows). */
function scriptFailed(message: string): void {
  process.stderr.write(`zksim: learn: ${message.replace(/\s*\n\s*/g, " ")}\n`);
}

/** A reader that closed the pipe (`| head`) ends plain mode quietly: nothing more can be read. */
function quietOnClosedPipe(): void {
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    process.exit(0);
  });
}

/** A new session (of a lesson, if given) or a saved one re-opened. */
export async function openSession(protocol: string, lesson: Lesson | undefined, seed: number | undefined, variant: string | undefined, file: string | undefined, onTrace?: TraceListener): Promise<Session> {
  const adapter = adapterFor(protocol);
  if (file !== undefined) {
    const saved = readSessionFile(file);
    const l = saved.lesson !== undefined ? lessonNamed(saved.protocol, saved.lesson) : lesson;
    const s = await Session.open(adapter, saved, l?.goal, onTrace);
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
