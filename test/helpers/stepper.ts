/** Helpers for the stepping-interface tests: comparing frames across re-executions, and refusals. */
import { isUserInputError } from "../../src/sim/errors.js";
import type { Frame } from "../../src/stepper/types.js";

/**
 * A frame without the fields that legitimately differ between a live run and its re-execution:
 * where the last step began, and how long the branch's recorded future is.
 */
export function comparable(f: Frame): unknown {
  return { ...f, stepFrom: undefined, steps: undefined, recent: f.recent.map((r) => [r.event.index, r.event.kind, r.narration]) };
}

/** The one-line message of the UserInputError `run` throws (any other outcome fails the test). */
export function refused(run: () => void): string {
  try {
    run();
  } catch (err) {
    if (isUserInputError(err)) return err.message;
    throw err;
  }
  throw new Error("expected a refusal");
}
