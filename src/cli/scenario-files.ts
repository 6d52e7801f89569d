/**
 * Finding and reading scenario files (real I/O lives in cli/ only). A name resolves to
 * `scenarios/<name>.json` in the package; anything that looks like a path is read as a path.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { basename, join } from "node:path";
import { UserInputError } from "../sim/errors.js";
import { parseScenario } from "../scenario/parse.js";
import { registerBuiltins } from "../scenario/builtins.js";
import type { Scenario } from "../scenario/types.js";

export const SCENARIO_DIR = fileURLToPath(new URL("../../scenarios/", import.meta.url));

export function scenarioNames(): string[] {
  return readdirSync(SCENARIO_DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => basename(f, ".json"))
    .sort();
}

export function loadScenario(nameOrPath: string): Scenario {
  registerBuiltins();
  const looksLikePath = nameOrPath.includes("/") || nameOrPath.endsWith(".json");
  const file = looksLikePath ? nameOrPath : join(SCENARIO_DIR, `${nameOrPath}.json`);
  if (!existsSync(file)) {
    if (looksLikePath) throw new UserInputError(`scenario file not found: ${nameOrPath}`);
    throw new UserInputError(`unknown scenario "${nameOrPath}" (try \`zksim list\`; known: ${scenarioNames().join(", ")})`);
  }
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new UserInputError(`cannot read scenario ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UserInputError(`${nameOrPath}: not valid JSON (${(err as Error).message})`);
  }
  return parseScenario(raw, looksLikePath ? nameOrPath : `scenarios/${nameOrPath}.json`);
}
