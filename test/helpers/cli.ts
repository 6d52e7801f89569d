/**
 * Runs the built CLI (`npm test` builds dist/ first).
 *
 * `zksim(...)` calls the built CLI's `main()` in this test process, the way bin/zksim.js does, and
 * returns what it printed and its exit code: a fresh Node process per call cost about a second of
 * CPU each (loading the whole program), which made the CLI tests the slowest of the suite.
 * `zksimProcess(...)` runs bin/zksim.js in a fresh process, for what only a process shows: the
 * same hash in two fresh processes, signals, the exit flush, a hang that a timeout must kill.
 */
import { spawnSync } from "node:child_process";
import { format } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));
const MAIN = pathToFileURL(fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url))).href;

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** The CLI in a fresh Node process (bin/zksim.js). */
export function zksimProcess(...args: string[]): CliResult {
  return zksimProcessWithin(undefined, ...args);
}

/**
 * The CLI in a fresh Node process killed after `timeoutMs` (then status is -1), for an edge whose
 * regression would be a hang this process could not time out: a FIFO or a device opened and read
 * synchronously blocks the thread that reads it. Generous bounds: on a loaded 2-core machine a
 * fresh process running a short sweep took over 30 s.
 */
export function zksimProcessWithin(timeoutMs: number | undefined, ...args: string[]): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" }, ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}) });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

type Main = (argv: string[]) => Promise<number>;
let mainPromise: Promise<Main> | undefined;
const loadMain = (): Promise<Main> => (mainPromise ??= import(/* @vite-ignore */ MAIN).then((m) => (m as { main: Main }).main));

/** One call at a time: the console and the standard streams are borrowed while it runs. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * The CLI's `main(args)` in this process, with what it prints to the console and the standard
 * streams captured, and the exit code bin/zksim.js would exit with (3 and an "internal error" line
 * for an exception, as the bin reports it).
 */
export function zksim(...args: string[]): Promise<CliResult> {
  const run = queue.then(() => runInProcess(args));
  queue = run.catch(() => undefined);
  return run;
}

async function runInProcess(args: string[]): Promise<CliResult> {
  const main = await loadMain();
  const out: string[] = [];
  const err: string[] = [];
  const saved = { log: console.log, info: console.info, debug: console.debug, error: console.error, warn: console.warn, trace: console.trace };
  const writes = { out: process.stdout.write, err: process.stderr.write };
  const tty = { out: Object.getOwnPropertyDescriptor(process.stdout, "isTTY"), err: Object.getOwnPropertyDescriptor(process.stderr, "isTTY") };
  const forceColor = process.env.FORCE_COLOR;
  const capture =
    (into: string[]) =>
    (...a: unknown[]) => {
      into.push(`${format(...a)}\n`);
    };
  const captureWrite = (into: string[]) =>
    function (chunk: string | Uint8Array, ...rest: unknown[]): boolean {
      into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      const callback = rest.find((x) => typeof x === "function") as (() => void) | undefined;
      if (callback !== undefined) queueMicrotask(callback);
      return true;
    } as typeof process.stdout.write;
  console.log = console.info = console.debug = capture(out);
  console.error = console.warn = console.trace = capture(err);
  process.stdout.write = captureWrite(out);
  process.stderr.write = captureWrite(err);
  // As in a spawned process whose output is a pipe: no progress bar, no colour.
  Object.defineProperty(process.stdout, "isTTY", { value: false, configurable: true, writable: true });
  Object.defineProperty(process.stderr, "isTTY", { value: false, configurable: true, writable: true });
  process.env.FORCE_COLOR = "0";
  let status: number;
  try {
    status = await main(args);
  } catch (e) {
    const error = e as Error;
    if (error?.name === "HeapLimitError") err.push(`zksim: ${error.message}\n`);
    else err.push(`zksim: internal error: ${error?.stack ?? String(e)}\n`);
    status = 3;
  } finally {
    Object.assign(console, saved);
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    restoreTty(process.stdout, tty.out);
    restoreTty(process.stderr, tty.err);
    if (forceColor === undefined) delete process.env.FORCE_COLOR;
    else process.env.FORCE_COLOR = forceColor;
  }
  return { status, stdout: out.join(""), stderr: err.join("") };
}

function restoreTty(stream: NodeJS.WriteStream, descriptor: PropertyDescriptor | undefined): void {
  if (descriptor === undefined) delete (stream as { isTTY?: boolean }).isTTY;
  else Object.defineProperty(stream, "isTTY", descriptor);
}

/** The last stdout line parsed as JSON (the `--json` contract). */
export function lastJson<T = Record<string, unknown>>(r: CliResult): T {
  const lines = r.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]!) as T;
}
