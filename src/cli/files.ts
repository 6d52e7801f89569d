/**
 * The command line's file I/O guards: every file the CLI reads or writes goes through here, so
 * that a bad path is one UserInputError line (exit 2), never a hang or a stack trace.
 *
 * Reading (`readInputFile`): only regular files, at most `MAX_INPUT_BYTES`. The check comes
 * before the open: `open` of a FIFO blocks until a writer appears, and a device like /dev/zero
 * reads without end.
 *
 * Creating directories (`ensureDir`): one level at a time from the nearest existing ancestor,
 * never Node's `mkdirSync(…, { recursive: true })`, which retries forever (100% CPU) when a
 * parent exists but refuses children with ENOENT, as procfs does (`--save /proc/x/case.json`).
 *
 * Write failures (a full disk, EIO) surface as `OutputError`: the callers decide what a lost
 * output costs (a failed `--save` keeps a failing run's verdict and exit 1; see docs/commands.md,
 * "Limits and bad input").
 */
import { mkdirSync, readFileSync, statSync, writeFileSync, type Stats } from "node:fs";
import { dirname, resolve } from "node:path";
import { UserInputError } from "../sim/errors.js";

/** The largest scenario or replay file read (a replay file of a long swarm run is well under 1 MiB). */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** An output file or directory that could not be written: a one-line message for stderr. */
export class OutputError extends UserInputError {}

/** A Node system error (it has an errno code such as ENOENT, ENOSPC, EIO). */
export function isSystemError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === "string";
}

/** "ENOSPC: no space left on device" (Node's message without its trailing syscall and path). */
export function describeSystemError(err: NodeJS.ErrnoException): string {
  const text = err.message.replace(/, \w+(?: '[^']*')?(?: -> '[^']*')?$/, "");
  return text.startsWith(`${err.code}:`) ? text : `${err.code}: ${text}`;
}

/** `stat`, or undefined when nothing is there; other failures (EACCES, ELOOP) are bad input. */
function statOrUndefined(path: string, what: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (err) {
    if (!isSystemError(err)) throw err;
    if (err.code === "ENOENT" || err.code === "ENOTDIR") return undefined;
    throw new UserInputError(`${what} ${path}: ${describeSystemError(err)}`);
  }
}

/**
 * Checks, before anything opens it, that `path` is a regular file of at most MAX_INPUT_BYTES
 * (`what` names it in messages: "scenario file", "--module").
 */
export function checkInputFile(path: string, what: string): void {
  const st = statOrUndefined(path, `cannot read ${what}`);
  if (st === undefined) throw new UserInputError(`${what} not found: ${path}`);
  if (!st.isFile()) throw new UserInputError(`${what} ${path} is not a regular file (${st.isDirectory() ? "a directory" : st.isFIFO() ? "a FIFO" : "a device or socket"}); give a file`);
  if (st.size > MAX_INPUT_BYTES) throw new UserInputError(`${what} ${path} is ${st.size} bytes, more than the ${MAX_INPUT_BYTES} read at most`);
}

/** Reads a regular file of at most MAX_INPUT_BYTES as UTF-8; `what` names it in messages ("scenario file"). */
export function readInputFile(path: string, what: string): string {
  checkInputFile(path, what);
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if (!isSystemError(err)) throw err;
    throw new UserInputError(`cannot read ${what} ${path}: ${describeSystemError(err)}`);
  }
}

/** Creates `dir` and its missing parents, one level at a time; a failure is an OutputError naming the level. */
export function ensureDir(dir: string, what: string): void {
  const st = statOrUndefined(dir, `cannot create ${what}`);
  if (st !== undefined) {
    if (!st.isDirectory()) throw new OutputError(`cannot create ${what}: ${dir} exists and is not a directory`);
    return;
  }
  const parent = dirname(resolve(dir));
  if (parent !== resolve(dir)) ensureDir(parent, what);
  try {
    mkdirSync(dir);
  } catch (err) {
    if (!isSystemError(err)) throw err;
    if (err.code === "EEXIST" && statOrUndefined(dir, `cannot create ${what}`)?.isDirectory() === true) return;
    throw new OutputError(`cannot create ${what}: mkdir ${dir}: ${describeSystemError(err)}`);
  }
}

/**
 * Checks, without creating anything, that `path` could be an output file: it is not a
 * directory, and its nearest existing ancestor is a directory. Run before spending a run on it.
 */
export function checkOutputPath(path: string, what: string): void {
  const st = statOrUndefined(path, `cannot write ${what}`);
  if (st?.isDirectory() === true) throw new OutputError(`cannot write ${what} ${path}: it is a directory`);
  let dir = dirname(resolve(path));
  for (;;) {
    const d = statOrUndefined(dir, `cannot write ${what}`);
    if (d !== undefined) {
      if (!d.isDirectory()) throw new OutputError(`cannot write ${what} ${path}: ${dir} is not a directory`);
      return;
    }
    const parent = dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

/** Writes `text` to `path`, creating its directory first; any failure is an OutputError. */
export function writeOutputFile(path: string, text: string, what: string): void {
  ensureDir(dirname(path), `the directory of ${what} ${path}`);
  try {
    writeFileSync(path, text);
  } catch (err) {
    if (!isSystemError(err)) throw err;
    throw new OutputError(`cannot write ${what} ${path}: ${describeSystemError(err)}`);
  }
}
