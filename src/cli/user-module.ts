/**
 * The flags of the commands that run a user's script (`replay`, `shrink`, `run` with
 * `--module PATH`), and how they run it: every one of them imports the user's module and runs
 * the script in the user-code worker (cli/user-code-worker.ts), under the one wall-clock limit
 * `--user-code-limit-s N`, never in the CLI's own thread. The tasks the worker runs are in
 * cli/user-case-tasks.ts.
 */
import { fileURLToPath } from "node:url";
import { UserInputError } from "../sim/errors.js";
import type { Scenario } from "../scenario/types.js";
import { isUserScenario } from "../api/run-user-script.js";
import { checkInputFile } from "./files.js";
import { intFlag, stringFlag, type ParsedArgs } from "./args.js";
import { runInUserCodeWorker, userCodeLimitMs, USER_CODE_LIMIT_FLAG } from "./user-code-worker.js";
import type { UserCaseTasks } from "./user-case-tasks.js";

/** The flags every command taking `--module` shares (declare them in its parseArgs spec). */
export const USER_MODULE_FLAGS = { module: "string", "user-code-limit-s": "int" } as const;

/** Their usage, for a command's `args` line. */
export const USER_MODULE_USAGE = `[--module PATH] [${USER_CODE_LIMIT_FLAG} N]`;

/** `--module PATH` and `--user-code-limit-s N`, read and checked. */
export interface UserModuleFlags {
  module?: string;
  limitMs?: number;
}

export function userModuleFlags(args: ParsedArgs): UserModuleFlags {
  const module = stringFlag(args, "module");
  const limitMs = userCodeLimitMs(intFlag(args, "user-code-limit-s"));
  return { ...(module !== undefined ? { module } : {}), ...(limitMs !== undefined ? { limitMs } : {}) };
}

/**
 * The module a case of `scenario` runs: `--module` or the one it records; undefined for a
 * built-in workload (where `--module` is a mistake).
 */
export function userModuleOf(scenario: Scenario, source: string, flags: UserModuleFlags, command: string): string | undefined {
  if (isUserScenario(scenario)) return flags.module ?? String(scenario.workload.params.module);
  if (flags.module !== undefined) throw new UserInputError(`${command}: ${source} does not run a user's script (workload "${scenario.workload.kind}"): leave out --module`);
  return undefined;
}

/**
 * Runs the task `name` of cli/user-case-tasks.ts in the user-code worker for `module` (checked
 * to be a regular file first); resolves with its plain-data answer.
 */
export function inUserCodeWorker<K extends keyof UserCaseTasks>(name: K, input: Parameters<UserCaseTasks[K]>[0], module: string, flags: UserModuleFlags): ReturnType<UserCaseTasks[K]> {
  checkInputFile(module.startsWith("file:") ? fileURLToPath(module) : module, "--module");
  const entry = new URL("./user-case-tasks.js", import.meta.url);
  return runInUserCodeWorker(entry, name, input, { what: `--module ${module}`, ...(flags.limitMs !== undefined ? { limitMs: flags.limitMs } : {}) }) as ReturnType<UserCaseTasks[K]>;
}
