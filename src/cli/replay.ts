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
import { readInputFile, writeOutputFile } from "./files.js";
import { registerServedWorkload } from "../serve/served-workload.js";

export const REPLAY_EXIT = { reproducedPass: 0, reproducedFail: 1, badInput: 2, internal: 3, notReproduced: 4 } as const;

export function readReplayFile(path: string): ReplayCase {
  registerServedWorkload(); // a recorded serve session (src/serve/served-workload.ts)
  return parseReplayFile(readInputFile(path, "replay file"), path);
}

/** Writes a case, creating its directory; a failure is an OutputError (files.ts). */
export function writeReplayFile(path: string, c: ReplayCase): void {
  writeOutputFile(path, serializeReplayCase(c), "replay file");
}
