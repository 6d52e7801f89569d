/**
 * The interactive terminal UI's own dependencies, ink and react, are optional dependencies of
 * the package: a library user (`import … from "zksim"`) and every command but the interactive
 * `learn` screens (and `bench tui`) run without them (`npm install zksim --omit=optional`).
 * Everything that needs them loads them here, lazily; when they are absent the user gets one
 * line saying what to install, not a stack trace from the module loader.
 */
import { UserInputError } from "../sim/errors.js";

/** The packages the terminal UI needs (the one line names them). */
export const TERMINAL_UI_PACKAGES = ["ink", "react"] as const;

/**
 * Runs `load` (a dynamic import of something that imports ink or react); when one of them is not
 * installed, a UserInputError: `what needs ink and react (optional dependencies of zksim, not
 * installed): npm install ink react`.
 */
export async function loadTerminalUi<T>(what: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const missing = missingPackage(err);
    if (missing === undefined) throw err;
    throw new UserInputError(`${what} needs ${TERMINAL_UI_PACKAGES.join(" and ")} (optional dependencies of zksim; ${missing} is not installed): npm install ${TERMINAL_UI_PACKAGES.join(" ")}`);
  }
}

/** The terminal UI package a failed import did not find, if that is why it failed. */
export function missingPackage(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || (err as { code?: unknown }).code !== "ERR_MODULE_NOT_FOUND") return undefined;
  const name = /Cannot find package '([^']+)'/.exec(String((err as { message?: unknown }).message))?.[1];
  return TERMINAL_UI_PACKAGES.find((p) => p === name);
}
