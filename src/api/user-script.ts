/**
 * `defineUserScript`: a user's async code, named so that a replay can find it again. A script
 * is the function that drives one run (`run(world)`), the checkers of its own that judge the
 * run beside the built-in ones, and where it lives: the module (`import.meta.url`) and the name
 * it is exported under. A replay file records those two, and `zksim replay FILE --module PATH`
 * imports the module and runs the export again — so the module must export the script under
 * that name.
 *
 * Invariant: a user script is recognised by a registered symbol, not by `instanceof`, so a
 * script defined against one copy of the package (a test's node_modules) still replays under
 * another (the CLI's).
 */
import { UserInputError } from "../sim/errors.js";
import type { CheckerDef } from "../check/define-checker.js";
import type { World } from "./world.js";

const BRAND = Symbol.for("zksim.user-script");

/** What `defineUserScript` takes. */
export interface UserScriptSpec {
  /** The module that exports the script: pass `import.meta.url`. */
  module: string;
  /** The name the module exports the script under (`export const buggyLock = defineUserScript({ export: "buggyLock", … })`). */
  export: string;
  /** The user's code for one run; a throw (or not finishing by the run's end) is a violation. */
  run(world: World): Promise<void>;
  /** The script's own checkers (`defineChecker`), run beside the built-in ones. */
  checkers?: readonly CheckerDef[];
  /** The labels the script can reach (`world.label`): a property's coverage report names those no case reached. */
  labels?: readonly string[];
}

/** A defined user script (see `defineUserScript`). */
export interface UserScript {
  readonly module: string;
  readonly export: string;
  readonly checkers: readonly CheckerDef[];
  readonly labels: readonly string[];
  run(world: World): Promise<void>;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Defines a user script; throws UserInputError naming the bad field. */
export function defineUserScript(spec: UserScriptSpec): UserScript {
  const at = "defineUserScript";
  if (typeof spec !== "object" || spec === null) throw new UserInputError(`${at}: expected { module: import.meta.url, export: "name", run }`);
  if (typeof spec.module !== "string" || spec.module === "") throw new UserInputError(`${at}: module must be the defining module's URL (import.meta.url)`);
  if (typeof spec.export !== "string" || !IDENTIFIER.test(spec.export)) throw new UserInputError(`${at}: export must be the name the module exports the script under, got ${JSON.stringify(spec.export)}`);
  if (typeof spec.run !== "function") throw new UserInputError(`${at}(${spec.export}): run must be an async function (world) => …`);
  const checkers = spec.checkers ?? [];
  if (!Array.isArray(checkers)) throw new UserInputError(`${at}(${spec.export}): checkers must be a list of defineChecker(…) values`);
  const names = new Set<string>();
  checkers.forEach((c, i) => {
    if (typeof c !== "object" || c === null || typeof c.name !== "string" || typeof c.make !== "function") throw new UserInputError(`${at}(${spec.export}): checkers[${i}] is not a defineChecker(…) value`);
    if (names.has(c.name)) throw new UserInputError(`${at}(${spec.export}): checkers[${i}]: two checkers are named "${c.name}"`);
    names.add(c.name);
  });
  const labels = spec.labels ?? [];
  if (!Array.isArray(labels) || !labels.every((l) => typeof l === "string" && l !== "")) throw new UserInputError(`${at}(${spec.export}): labels must be a list of non-empty strings`);
  const script = { module: spec.module, export: spec.export, checkers: [...checkers], labels: [...labels], run: spec.run };
  Object.defineProperty(script, BRAND, { value: true });
  return Object.freeze(script);
}

/** Whether `v` is a value `defineUserScript` returned (from any copy of the package). */
export function isUserScript(v: unknown): v is UserScript {
  return typeof v === "object" && v !== null && (v as Record<symbol, unknown>)[BRAND] === true;
}
