/**
 * Finding and reading scenario files (real I/O lives in cli/ only). A name resolves to
 * `scenarios/<name>.json` in the package; anything that looks like a path is read as a path
 * (a regular file of bounded size: files.ts).
 */
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { basename, join } from "node:path";
import { UserInputError } from "../sim/errors.js";
import { parseScenario } from "../scenario/parse.js";
import { SCENARIO_REGISTRY, workloadDef, type Registry } from "../scenario/registry.js";
import { scriptVariant } from "../scenario/scripts/index.js";
import type { Scenario } from "../scenario/types.js";
import { readInputFile } from "./files.js";

export const SCENARIO_DIR = fileURLToPath(new URL("../../scenarios/", import.meta.url));

export function scenarioNames(): string[] {
  return readdirSync(SCENARIO_DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => basename(f, ".json"))
    .sort();
}

/**
 * Loads a scenario; with `variant`, its workload script is replaced by that variant of it
 * before the scenario is parsed (so its default checkers are the variant's). A variant is a
 * broken twin: it loses the scenario's `expectedViolations`, which describe the correct
 * protocol's flaws, so that a twin caught by a declared checker still fails (scenario/verdict.ts).
 */
export function loadScenario(nameOrPath: string, variant?: string, registry: Registry = SCENARIO_REGISTRY): Scenario {
  const looksLikePath = nameOrPath.includes("/") || nameOrPath.endsWith(".json");
  const file = looksLikePath ? nameOrPath : join(SCENARIO_DIR, `${nameOrPath}.json`);
  if (!existsSync(file)) {
    if (looksLikePath) throw new UserInputError(`scenario file not found: ${nameOrPath}`);
    throw new UserInputError(`unknown scenario "${nameOrPath}" (try \`zksim list\`; known: ${scenarioNames().join(", ")})`);
  }
  const text = readInputFile(file, "scenario file");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UserInputError(`${nameOrPath}: not valid JSON (${(err as Error).message})`);
  }
  const source = looksLikePath ? nameOrPath : `scenarios/${nameOrPath}.json`;
  return parseScenario(variant === undefined ? raw : withVariant(raw, variant, source), source, registry);
}

function withVariant(rawAsGiven: unknown, variant: string, source: string): unknown {
  const raw = withoutExpectedViolations(rawAsGiven);
  const workload = typeof raw === "object" && raw !== null ? (raw as { workload?: unknown }).workload : undefined;
  const script = typeof workload === "object" && workload !== null ? (workload as { script?: unknown }).script : undefined;
  // A workload with variants of its own (the teaching protocols) takes it as a parameter and validates it.
  const kind = typeof workload === "object" && workload !== null ? (workload as { kind?: unknown }).kind : undefined;
  if (typeof script !== "string" && typeof kind === "string" && workloadDef(kind).variants !== undefined) return { ...(raw as object), workload: { ...(workload as object), variant } };
  if (typeof script !== "string") throw new UserInputError(`${source}: --variant needs a scenario whose workload names a script (this one names none)`);
  return { ...(raw as object), workload: { ...(workload as object), script: scriptVariant(script, variant) } };
}

function withoutExpectedViolations(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const { expectedViolations: _declared, ...rest } = raw as Record<string, unknown>;
  return rest;
}

/** The one scenario a command names (`run <scenario>`): none or more than one is bad input. */
export function oneScenario(positionals: readonly string[], command: string, variant?: string, registry?: Registry): Scenario {
  if (positionals.length === 0) throw new UserInputError(`${command}: which scenario? (try \`zksim list\`)`);
  if (positionals.length > 1) throw new UserInputError(`${command}: unexpected argument "${positionals[1]}"`);
  return loadScenario(positionals[0]!, variant, registry);
}
