/**
 * The public API's real I/O, all of it in this one file (the determinism lint exempts it, like
 * property/assert-simulation.ts): writing a replay file, naming a script's module relative to
 * the working directory for the replay command, and importing a user's module to find its
 * script again. Nothing here runs during a simulated run.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { UserInputError } from "../sim/errors.js";
import { serializeReplayCase, type ReplayCase } from "../scenario/replay-file.js";
import { isUserScript, type UserScript } from "./user-script.js";

/** The script's module as a path relative to the working directory ("./src/lock.js"), as a replay command names it. */
export function moduleArgOf(module: string): string {
  const path = module.startsWith("file:") ? fileURLToPath(module) : module;
  const rel = isAbsolute(path) ? relative(process.cwd(), path) : path;
  return rel.startsWith(".") || isAbsolute(rel) ? rel : `./${rel}`;
}

/** Writes `c` as `dir/name.json` (creating `dir`); returns the file's path. */
export function writeReplayCase(dir: string, name: string, c: ReplayCase): string {
  const file = join(dir, `${name}.json`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, serializeReplayCase(c));
  return file;
}

/** A replay file's text (a missing or unreadable file is a UserInputError naming it). */
export function readReplayText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new UserInputError(`cannot read replay file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Imports `modulePath` (relative to the working directory) and returns its export `name`, which must be a user script. */
export async function importUserScript(modulePath: string, name: string): Promise<UserScript> {
  const url = modulePath.startsWith("file:") ? modulePath : pathToFileURL(resolve(modulePath)).href;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (err) {
    throw new UserInputError(`--module ${modulePath}: cannot import it (${(err as Error).message.split("\n")[0]})`);
  }
  const script = mod[name];
  if (!isUserScript(script)) {
    const scripts = Object.keys(mod).filter((k) => isUserScript(mod[k]));
    throw new UserInputError(`--module ${modulePath}: no export "${name}" made by defineUserScript (its user scripts: ${scripts.length > 0 ? scripts.join(", ") : "none"})`);
  }
  return script;
}
