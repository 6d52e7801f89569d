/**
 * `zksim replay FILE --module PATH` for a user's script, as the task the user-code worker runs
 * (src/cli/user-code-worker.ts): it imports the user's module and runs the recorded case there,
 * and answers with plain data (the case, the run's verdict, hash and violations, the comparison).
 */
import { replayUserCase } from "../api/run-user-script.js";
import type { ReplayCase } from "../scenario/replay-file.js";
import type { ReplayComparison } from "../scenario/replay.js";
import type { RunResult } from "../scenario/types.js";

export interface ReplayUserInput {
  path: string;
  module?: string;
}

export interface ReplayedUserCase {
  c: ReplayCase;
  result: { traceHash: string; verdict: RunResult["verdict"]; violations: { checker: string; message: string }[] };
  cmp: ReplayComparison;
}

export async function replayUserTask(input: ReplayUserInput): Promise<ReplayedUserCase> {
  // The worker bounds the user's code (and tells an await that never settles from a slow load).
  const r = await replayUserCase(input.path, { moduleTimeoutMs: false, ...(input.module !== undefined ? { module: input.module } : {}) });
  const { traceHash, verdict, violations } = r.result;
  return { c: r.replayCase, result: { traceHash, verdict, violations: violations.map(({ checker, message }) => ({ checker, message })) }, cmp: r.comparison };
}
