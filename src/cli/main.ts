/**
 * The `zksim` command line: dispatches to the commands of the registry (cli/commands/index.ts).
 * The only layer (with the UI) that reads the real clock, picks seeds from entropy, or touches
 * files.
 *
 * Exit codes: 0 pass, 1 a checker found a violation (or a determinism divergence), 2 bad
 * input (one line on stderr, never a stack trace; `zksim` alone prints the usage on stderr), 3
 * internal error; `replay` and `shrink` add 4, "the recorded case did not reproduce" (see
 * replay.ts); `explore` interrupted by SIGINT exits 130 after its summary so far.
 * `zksim help`, `zksim help <command>` and `zksim <command> --help` print usage on stdout, exit 0.
 */
import { UserInputError, isUserInputError } from "../sim/errors.js";
import type { Command } from "./command.js";

/** The registry, loaded when needed: it imports every command's module (most of the program). */
const registry = async (): Promise<readonly Command[]> => (await import("./commands/index.js")).COMMANDS;

/**
 * Commands whose module is loaded alone when they are run: `learn` draws its first screen
 * within a second of CPU, which loading every other command first would not leave room for.
 * Each is in the registry too (help, usage).
 */
const STARTS_ALONE: Readonly<Record<string, () => Promise<Command>>> = {
  learn: async () => (await import("./commands/learn.js")).learn,
};

/** Where a command's explanation starts in the usage text. */
const HELP_COLUMN = 54;

function usageEntry(c: Command): string {
  const head = `  ${c.name} ${c.args}`;
  const [first, ...more] = c.help.split("\n");
  const indent = " ".repeat(HELP_COLUMN);
  const lines = head.length < HELP_COLUMN ? [`${head.padEnd(HELP_COLUMN)}${first}`] : [head, `${indent}${first}`];
  return [...lines, ...more.map((l) => `${indent}${l}`)].join("\n");
}

export async function usage(): Promise<string> {
  return `usage: zksim <command> [options]

commands:
${(await registry()).map(usageEntry).join("\n")}

A scenario is a name under scenarios/ or a path to a scenario JSON file.
\`zksim <command> --help\` explains one command.`;
}

function commandUsage(c: Command): string {
  return `usage: zksim ${c.name} ${c.args}\n\n${c.help}`;
}

async function commandNamed(name: string): Promise<Command> {
  const commands = await registry();
  const c = commands.find((x) => x.name === name);
  if (c === undefined) throw new UserInputError(`unknown command "${name}" (commands: ${commands.map((x) => x.name).join(", ")}; see \`zksim help\`)`);
  return c;
}

const HELP_FLAGS = ["--help", "-h"];

/**
 * A message as the one line bad input gets: a parser's message may quote the input (JSON.parse
 * quotes the text around a bad byte, line breaks and all), and a line break or a control
 * character from the input must not split the line or reach the terminal raw.
 */
export function oneLine(message: string): string {
  return message.replace(/\r?\n\s*/g, " ").replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined) {
      console.error(await usage());
      return 2;
    }
    if (name === "help" || HELP_FLAGS.includes(name)) {
      if (rest.length > 1) throw new UserInputError(`help: unexpected argument "${rest[1]}"`);
      console.log(rest[0] === undefined ? await usage() : commandUsage(await commandNamed(rest[0])));
      return 0;
    }
    const alone = Object.hasOwn(STARTS_ALONE, name) ? STARTS_ALONE[name] : undefined;
    const command = alone !== undefined ? await alone() : await commandNamed(name);
    if (rest.some((a) => HELP_FLAGS.includes(a))) {
      console.log(commandUsage(command));
      return 0;
    }
    return await command.run(rest);
  } catch (err) {
    if (isUserInputError(err)) {
      console.error(`zksim: ${oneLine(err.message)}`);
      return 2;
    }
    throw err;
  }
}
