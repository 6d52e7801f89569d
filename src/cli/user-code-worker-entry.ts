/**
 * The worker thread of src/cli/user-code-worker.ts: imports the task's module, runs its export
 * on the input (with a `progress()` that posts `{ progress: true }`: the parent restarts its
 * limit), and posts back `{ ok }` or `{ error }` (a UserInputError marked as such). When the
 * task never settles, nothing is posted and the worker's exit tells the parent so.
 */
import { parentPort, workerData } from "node:worker_threads";
import { isUserInputError } from "../sim/errors.js";
import type { UserCodeTask, WorkerMessage } from "./user-code-worker.js";

const { entry, exportName, input } = workerData as { entry: string; exportName: string; input: unknown };
try {
  const post = (m: WorkerMessage): void => parentPort!.postMessage(m);
  const mod = (await import(entry)) as Record<string, UserCodeTask<unknown, unknown> | undefined>;
  const task = mod[exportName];
  if (typeof task !== "function") throw new Error(`user-code worker: ${entry} has no function export "${exportName}"`);
  post({ ok: await task(input, () => post({ progress: true })) });
} catch (err) {
  const e = err instanceof Error ? err : new Error(String(err));
  parentPort!.postMessage({ error: { name: e.name, message: e.message, ...(e.stack !== undefined ? { stack: e.stack } : {}), userInput: isUserInputError(err) } });
}
