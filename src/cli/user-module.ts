/**
 * The flags of the commands that run a user's script (`replay`, `shrink`, `run` with
 * `--module PATH`): where the script's module is and how long it may take to load, and the
 * run options a user case needs (its workload and its own checkers, api/run-user-script.ts).
 */
import { UserInputError } from "../sim/errors.js";
import type { RunOptions, Scenario } from "../scenario/types.js";
import { isUserScenario, userRunOptions } from "../api/run-user-script.js";
import { importUserScript } from "../api/files.js";
import { intFlag, stringFlag, type ParsedArgs } from "./args.js";

/** `--module PATH` and `--module-timeout-ms N`, as replayUserCase takes them. */
export interface UserModuleFlags {
  module?: string;
  moduleTimeoutMs?: number;
}

export function userModuleFlags(args: ParsedArgs, command: string): UserModuleFlags {
  const module = stringFlag(args, "module");
  const timeout = intFlag(args, "module-timeout-ms");
  if (timeout !== undefined && timeout < 1) throw new UserInputError(`${command}: --module-timeout-ms must be at least 1, got ${timeout}`);
  if (timeout !== undefined && module === undefined) throw new UserInputError(`${command}: --module-timeout-ms goes with --module PATH`);
  return { ...(module !== undefined ? { module } : {}), ...(timeout !== undefined ? { moduleTimeoutMs: timeout } : {}) };
}

/** The run options of `scenario`: a user's script's (imported from the module) or none for a built-in workload. */
export async function userCaseOptions(scenario: Scenario, source: string, flags: UserModuleFlags, command: string): Promise<{ options: Pick<RunOptions, "registry" | "extraCheckers">; module?: string }> {
  if (!isUserScenario(scenario)) {
    if (flags.module !== undefined) throw new UserInputError(`${command}: ${source} does not run a user's script (workload "${scenario.workload.kind}"): leave out --module`);
    return { options: {} };
  }
  const module = flags.module ?? String(scenario.workload.params.module);
  const script = await importUserScript(module, String(scenario.workload.params.export), flags.moduleTimeoutMs !== undefined ? { timeoutMs: flags.moduleTimeoutMs } : {});
  const { registry, extraCheckers } = userRunOptions(script, scenario.defaultSeed);
  return { options: { ...(registry !== undefined ? { registry } : {}), ...(extraCheckers !== undefined ? { extraCheckers } : {}) }, module };
}
