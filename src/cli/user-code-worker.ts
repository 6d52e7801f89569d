/**
 * User code in a worker thread, under a wall-clock limit: a user's module (every command that
 * takes `--module`: replay, shrink, run) is imported and run in a `worker_threads` Worker, never
 * in the CLI's own thread, so that code which never finishes cannot hang zksim or fake a result:
 *
 * - a module whose top level loops forever, or a script whose `run` loops synchronously: the
 *   worker is terminated when the limit passes (termination stops even a busy loop);
 * - a top-level await (or a run) that never settles: the worker's event loop empties and it
 *   exits without an answer — before this guard, the CLI's own process then exited 0, as if the
 *   replay had reproduced a pass.
 *
 * Either way the caller gets a UserInputError naming the module and what to do (one line,
 * exit 2). The task itself is a function exported by one of zksim's own modules
 * (`runInUserCodeWorker(entry, exportName, input)`): the worker imports `entry`, calls the export
 * with `input` and a `progress()` callback, and posts back what it returns. Input and output
 * cross by structured clone (plain data). A UserInputError thrown by the task comes back as one;
 * any other error as an Error with the worker's message and stack.
 *
 * The limit is on each stretch of user code, not on the whole task: a task that runs the user's
 * script many times (shrink: up to hundreds of runs) calls `progress()` after each, and every
 * call starts the limit afresh. So `--user-code-limit-s N` means the same for every command:
 * loading the module, and each run of the script, must each finish within N seconds.
 */
import { Worker } from "node:worker_threads";
import { UserInputError } from "../sim/errors.js";

/** The default wall-clock limit on user code (a replay of a user's script takes seconds). */
export const DEFAULT_USER_CODE_LIMIT_MS = 120_000;

/** Node's exit code for a thread whose top-level await never settled (the worker's entry awaits the task at its top level). */
const UNSETTLED_AWAIT_EXIT = 13;

/** The flag that raises it (the messages name it). */
export const USER_CODE_LIMIT_FLAG = "--user-code-limit-s";

export interface UserCodeWorkerOptions {
  /** Wall-clock ms each stretch of the task may take between progress calls, module loading included (default DEFAULT_USER_CODE_LIMIT_MS). */
  limitMs?: number;
  /** What runs, for messages: "--module ./src/lock.js". */
  what: string;
}

/** The worker's one message back. */
export type Answer = { ok: unknown } | { error: { name: string; message: string; stack?: string; userInput: boolean } };

/** What the worker posts: progress marks, then its one answer. */
export type WorkerMessage = Answer | { progress: true };

/** What a task receives besides its input: call `progress()` when a stretch of user code has finished (it restarts the limit). */
export type UserCodeTask<I, O> = (input: I, progress: () => void) => Promise<O>;

/**
 * Runs `entry`'s export `exportName` on `input` in a worker thread; resolves with its result.
 * A task that outlives `limitMs`, or whose worker stops without answering, rejects with a
 * UserInputError that says which and how to raise the limit.
 */
export function runInUserCodeWorker<T>(entry: URL, exportName: string, input: unknown, options: UserCodeWorkerOptions): Promise<T> {
  const limitMs = options.limitMs ?? DEFAULT_USER_CODE_LIMIT_MS;
  const worker = new Worker(new URL("./user-code-worker-entry.js", import.meta.url), { workerData: { entry: entry.href, exportName, input } });
  return new Promise<T>((resolve, reject) => {
    let answer: Answer | undefined;
    const overrun = (): void => {
      settle(() => reject(new UserInputError(`${options.what}: the user code did not finish within ${seconds(limitMs)} of wall-clock time (a loop that never ends?); stopped it. A longer run: ${USER_CODE_LIMIT_FLAG} N`)));
      void worker.terminate();
    };
    let timer = setTimeout(overrun, limitMs);
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    worker.on("message", (m: WorkerMessage) => {
      if (!("progress" in m)) return void (answer = m);
      if (settled) return;
      clearTimeout(timer);
      timer = setTimeout(overrun, limitMs);
    });
    // An error the task did not catch (thrown from a timer of the user's, say): the user's code failed.
    worker.on("error", (err) => settle(() => reject(new UserInputError(`${options.what}: the user code threw: ${err.message.split("\n")[0]}`))));
    worker.on("exit", (code) => {
      settle(() => {
        if (answer === undefined) return reject(new UserInputError(`${options.what}: the user code stopped without finishing (exit ${code}): ${code === UNSETTLED_AWAIT_EXIT ? "an await that never settles (a top-level await, or a promise the script waits for that nothing resolves)" : "it called process.exit(), or left an await that never settles"}`));
        if ("ok" in answer) return resolve(answer.ok as T);
        const e = answer.error;
        if (e.userInput) return reject(new UserInputError(e.message));
        const err = new Error(e.message);
        err.name = e.name;
        if (e.stack !== undefined) err.stack = e.stack;
        reject(err);
      });
    });
  });
}

/** A limit in seconds from the command line (`--user-code-limit-s 600`). */
export function userCodeLimitMs(seconds: number | undefined): number | undefined {
  if (seconds === undefined) return undefined;
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > 86_400) throw new UserInputError(`${USER_CODE_LIMIT_FLAG} must be a whole number of seconds from 1 to 86400, got ${seconds}`);
  return seconds * 1000;
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}
