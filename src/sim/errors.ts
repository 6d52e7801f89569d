/**
 * The kernel's errors are the base module's (`src/base/errors.ts`): `UserInputError` for a
 * user's mistake, `invariant` / `unreachable` for impossible states. Re-exported here so code
 * on the kernel imports them beside the rest of `sim/`.
 */
export { UserInputError, checkKnownFields, isUserInputError, invariant, unreachable } from "../base/errors.js";
