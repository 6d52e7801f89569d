/**
 * Errors and assertions, at the base of every layer (this module imports nothing).
 * A `UserInputError` is a user's mistake (a malformed scenario, a bad CLI argument, an unknown
 * node in a fault schedule): the CLI prints its one-line message and exits 2 — never a stack
 * trace. Anything else thrown is an internal bug; `invariant` throws one for an impossible
 * state (an assertion).
 */
export class UserInputError extends Error {
  override readonly name = "UserInputError";
}

export function isUserInputError(err: unknown): err is UserInputError {
  return err instanceof UserInputError;
}

/** A user's document may hold only `allowed` fields: any other is a UserInputError naming it and the allowed ones. */
export function checkKnownFields(doc: Record<string, unknown>, allowed: readonly string[], at: string): void {
  for (const key of Object.keys(doc)) {
    if (!allowed.includes(key)) throw new UserInputError(`${at}: unknown field "${key}" (allowed: ${allowed.join(", ")})`);
  }
}

/**
 * An impossible state: the run fails with it (and its seed). `message` may be a function, so a
 * check on a hot path builds its text only when it fails.
 */
export function invariant(condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) throw new Error(`invariant violated: ${typeof message === "function" ? message() : message}`);
}

export function unreachable(x: never): never {
  throw new Error(`unreachable: ${JSON.stringify(x)}`);
}
