/**
 * The public API's real I/O, all of it in this one file (the determinism lint exempts it, like
 * property/assert-simulation.ts): writing a replay file, naming a script's module relative to
 * the working directory for the replay command, and importing a user's module to find its
 * script again (TypeScript through tsx), with a wall-clock limit on its loading. Nothing here
 * runs during a simulated run.
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

/** Extensions loaded through tsx (TypeScript as it is, no build step): `.ts`, `.mts`, `.cts`. */
const TYPESCRIPT = /\.[mc]?ts$/;

/** How long a user's module may take to load (its top-level code, a top-level await) by default. */
export const MODULE_LOAD_TIMEOUT_MS = 30_000;

/**
 * `promise`, or a rejection with `onTimeout()` once `ms` wall-clock ms pass without it settling.
 * The timer holds the process open meanwhile (a promise nothing will ever settle — a top-level
 * await on nothing — would otherwise let Node exit 0 as if all went well) and is cleared as soon
 * as the promise settles. The one wall-clock limit on user code here; reusable for any other.
 */
export function settleWithin<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** Options of importing a user's module. */
export interface LoadModuleOptions {
  /**
   * Wall-clock ms its loading may take (default MODULE_LOAD_TIMEOUT_MS); `false` when the caller
   * bounds the user's code itself (the user-code worker, which also tells an await that never
   * settles from a slow load, src/cli/user-code-worker.ts).
   */
  timeoutMs?: number | false;
}

/**
 * Imports a user's module by path (relative to the working directory) or file URL: JavaScript
 * natively, TypeScript (`.ts`, `.mts`, `.cts`) through tsx's `tsImport`, scoped to this one
 * import (nothing is registered for the rest of the process). A module that cannot be loaded
 * or does not finish loading in time is a UserInputError naming the file and the reason.
 */
export async function importUserModule(modulePath: string, options: LoadModuleOptions = {}): Promise<Record<string, unknown>> {
  const timeoutMs = options.timeoutMs ?? MODULE_LOAD_TIMEOUT_MS;
  const url = modulePath.startsWith("file:") ? modulePath : pathToFileURL(resolve(modulePath)).href;
  const load = async (): Promise<Record<string, unknown>> => {
    if (!TYPESCRIPT.test(fileURLToPath(url))) return (await import(url)) as Record<string, unknown>;
    const { tsImport } = await import("tsx/esm/api");
    return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  };
  try {
    if (timeoutMs === false) return await load();
    return await settleWithin(load(), timeoutMs, () => new UserInputError(`module ${modulePath}: did not finish loading within ${timeoutMs} ms (a top-level await that never settles?)`));
  } catch (err) {
    if (err instanceof UserInputError) throw err;
    throw new UserInputError(`module ${modulePath}: cannot load it (${firstLine(err)})`);
  }
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  // esbuild's "Transform failed with 1 error:" is followed by the line that says where and what.
  return lines[0]?.startsWith("Transform failed") && lines[1] !== undefined ? lines[1] : (lines[0] ?? "unknown error");
}

/**
 * Imports `modulePath` and returns its export `name`, which must be a user script. The mistakes
 * a definition cannot see (the module has not finished loading when `defineUserScript` runs) are
 * named here, in one line: no such export, an export that is not a script, and a script exported
 * under another name than its `export` says (copied from another script and not renamed).
 */
export async function importUserScript(modulePath: string, name: string, options: LoadModuleOptions = {}): Promise<UserScript> {
  const mod = await importUserModule(modulePath, options);
  const script = mod[name];
  if (isUserScript(script)) return script;
  const at = `module ${modulePath}`;
  const scripts = Object.keys(mod).filter((k) => isUserScript(mod[k]));
  if (script !== undefined) throw new UserInputError(`${at}: export "${name}" is ${describeValue(script)}, not a defineUserScript(…) value`);
  const misnamed = scripts.find((k) => (mod[k] as UserScript).export === name);
  if (misnamed !== undefined) throw new UserInputError(`${at}: no export "${name}"; the script exported as "${misnamed}" says export: "${name}" (export it as "${name}", or make its export "${misnamed}")`);
  throw new UserInputError(`${at}: no export "${name}" made by defineUserScript (its user scripts: ${scripts.length > 0 ? scripts.join(", ") : "none"})`);
}

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "function") return "a function";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}
