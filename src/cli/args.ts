/**
 * A small, strict argument parser: known flags only, values checked, every mistake a one-line
 * UserInputError (exit 2).
 */
import { UserInputError } from "../sim/errors.js";

export interface FlagSpec {
  /**
   * "bool" takes no value; "string" and "int" take the next argument (or `--flag=value`);
   * "list" is a string flag that may be given again, each value kept in order (`listFlag`).
   */
  [name: string]: "bool" | "string" | "int" | "list";
}

export interface ParsedArgs {
  positionals: string[];
  /** Each flag given, with its (last) value. */
  flags: Map<string, string | boolean>;
  /** Every value of each "list" flag given, in order. */
  lists: Map<string, string[]>;
}

export function parseArgs(argv: readonly string[], spec: FlagSpec, command: string): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | boolean>();
  const lists = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--") || arg === "--") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const type = spec[name];
    if (type === undefined) {
      const known = Object.keys(spec).map((k) => `--${k}`).join(", ") || "none";
      throw new UserInputError(`${command}: unknown option --${name} (options: ${known})`);
    }
    if (type === "bool") {
      if (eq >= 0) throw new UserInputError(`${command}: --${name} takes no value`);
      flags.set(name, true);
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith("--"))) throw new UserInputError(`${command}: --${name} needs a value`);
    if (type === "int" && !/^\d+$/.test(value)) throw new UserInputError(`${command}: --${name} must be a whole number ≥ 0, got "${value}"`);
    flags.set(name, value);
    if (type === "list") lists.set(name, [...(lists.get(name) ?? []), value]);
  }
  return { positionals, flags, lists };
}

/** Every value a "list" flag was given, in order (none: empty). */
export function listFlag(args: ParsedArgs, name: string): string[] {
  return args.lists.get(name) ?? [];
}

export function intFlag(args: ParsedArgs, name: string): number | undefined {
  const v = args.flags.get(name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new UserInputError(`--${name} is too large: ${v}`);
  return n;
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === "string" ? v : undefined;
}

export function boolFlag(args: ParsedArgs, name: string): boolean {
  return args.flags.get(name) === true;
}

/** Bad input unless the command got at most `max` positional arguments (`zksim demo extra`). */
export function maxPositionals(args: ParsedArgs, max: number, command: string): void {
  if (args.positionals.length > max) throw new UserInputError(`${command}: unexpected argument "${args.positionals[max]}"`);
}
