/**
 * Replay files on disk (real I/O: cli only; the format is scenario/replay-file.ts, running and
 * comparing a case is scenario/replay.ts), and the exit codes of `zksim replay` and `zksim shrink`.
 *
 * REPLAY_EXIT: 1 reproduced a failing case (it still fails, exactly as recorded); 0 reproduced a
 * recorded pass; 4 did not reproduce (hash, verdict or checkers differ — the code or the
 * simulator changed what this seed does, or the file was edited); 2 bad file (one line on
 * stderr); 3 internal error. 4 and not 3 because 3 already means "internal error" for every
 * command.
 */
import { parseReplayFile, serializeReplayCase, type ReplayCase } from "../scenario/replay-file.js";
import { SCENARIO_REGISTRY, withWorkloads, type Registry } from "../scenario/registry.js";
import { readInputFile, writeOutputFile } from "./files.js";
import { servedWorkload } from "../serve/served-workload.js";
import { userWorkloadDef } from "../api/user-workload.js";

export const REPLAY_EXIT = { reproducedPass: 0, reproducedFail: 1, badInput: 2, internal: 3, notReproduced: 4 } as const;

/**
 * What a replay file may name: the built-ins, a recorded serve session (src/serve/served-workload.ts)
 * and a user's script (src/api/user-workload.ts: it parses, but runs only with --module).
 */
export const REPLAY_REGISTRY: Registry = withWorkloads(SCENARIO_REGISTRY, [servedWorkload, userWorkloadDef()]);

export function readReplayFile(path: string): ReplayCase {
  return parseReplayFile(readInputFile(path, "replay file"), path, REPLAY_REGISTRY);
}

/** Writes a case, creating its directory; a failure is an OutputError (files.ts). */
export function writeReplayFile(path: string, c: ReplayCase): void {
  writeOutputFile(path, serializeReplayCase(c), "replay file");
}
