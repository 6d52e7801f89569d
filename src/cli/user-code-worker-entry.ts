/**
 * The worker thread of src/cli/user-code-worker.ts: imports the task's module, runs its export
 * on the input, and posts back `{ ok }` or `{ error }` (a UserInputError marked as such). When
 * the task never settles, nothing is posted and the worker's exit tells the parent so.
 */
import { parentPort, workerData } from "node:worker_threads";
import { isUserInputError } from "../sim/errors.js";

const { entry, exportName, input } = workerData as { entry: string; exportName: string; input: unknown };
try {
  const mod = (await import(entry)) as Record<string, (input: unknown) => unknown>;
  const task = mod[exportName];
  if (typeof task !== "function") throw new Error(`user-code worker: ${entry} has no function export "${exportName}"`);
  parentPort!.postMessage({ ok: await task(input) });
} catch (err) {
  const e = err instanceof Error ? err : new Error(String(err));
  parentPort!.postMessage({ error: { name: e.name, message: e.message, ...(e.stack !== undefined ? { stack: e.stack } : {}), userInput: isUserInputError(err) } });
}
