/**
 * A sweep's coverage: how many of its seeds reached each fault kind and protocol state
 * (scenario/coverage.ts), per 1,000 seeds, with the declared features no seed reached shown as 0
 * — the corners a swarm does not visit — and the faults its nemesis declares it leaves out.
 */
import { declaredFeatures } from "../../scenario/coverage.js";
import { nemesisDef } from "../../scenario/nemesis/index.js";
import { RECIPE_FAULTS_LEFT_OUT } from "../../scenario/scripts/recipe-run.js";
import { workloadDef } from "../../scenario/registry.js";
import type { Scenario } from "../../scenario/types.js";

export interface CoverageSummary {
  /** The seeds that reported coverage (every seed that ran to the end). */
  seeds: number;
  /** Seeds that reached each feature: every declared one (0 if none did), then any other reached. */
  reached: Record<string, number>;
}

/** Counts, over the seeds' reached lists, the seeds that reached each feature. */
export function summarizeCoverage(scenario: Scenario, perSeed: readonly (readonly string[] | undefined)[]): CoverageSummary {
  const reached = new Map<string, number>(declaredFeatures(workloadDef(scenario.workload.kind).coverage).map((f) => [f, 0]));
  let seeds = 0;
  for (const list of perSeed) {
    if (list === undefined) continue;
    seeds++;
    for (const f of list) reached.set(f, (reached.get(f) ?? 0) + 1);
  }
  return { seeds, reached: Object.fromEntries(reached) };
}

/** Adds summaries of disjoint seed sets (the shards of one sweep). */
export function addCoverage(a: CoverageSummary, b: CoverageSummary): CoverageSummary {
  const reached = { ...a.reached };
  for (const [f, n] of Object.entries(b.reached)) reached[f] = (reached[f] ?? 0) + n;
  return { seeds: a.seeds + b.seeds, reached };
}

/** Seeds per 1,000 that reached each feature (rounded; a feature reached at all shows at least 1). */
export function perThousand(c: CoverageSummary): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [f, n] of Object.entries(c.reached)) out[f] = c.seeds === 0 ? 0 : n === 0 ? 0 : Math.max(1, Math.round((n * 1000) / c.seeds));
  return out;
}

/** The faults the scenario's nemesis declares it leaves out (under `--generate`, the recipe plans' declaration). */
export function leftOutOf(scenario: Scenario, generate = false): readonly { fault: string; why: string }[] {
  if (generate) return RECIPE_FAULTS_LEFT_OUT;
  if (scenario.nemesis === undefined) return [];
  const def = nemesisDef(scenario.nemesis.kind);
  return def.leftOutOf?.(scenario.nemesis.params) ?? def.leftOut ?? [];
}

/** The human lines: faults, crashes after a message, protocol states; unreached ones named apart. */
export function coverageLines(scenario: Scenario, c: CoverageSummary, generate = false): string[] {
  const rates = Object.entries(perThousand(c));
  const group = (title: string, pick: (f: string) => boolean, label: (f: string) => string = (f) => f) => {
    const entries = rates.filter(([f]) => pick(f));
    if (entries.length === 0) return [];
    const reached = entries.filter(([, n]) => n > 0).map(([f, n]) => `${label(f)} ${n}`);
    const never = entries.filter(([, n]) => n === 0).map(([f]) => label(f));
    return [`  ${title}: ${reached.join(", ") || "none"}`, ...(never.length > 0 ? [`    never reached: ${never.join(", ")}`] : [])];
  };
  const afterMessage = (f: string) => f.startsWith("crash right after ");
  const faults = new Set<string>(declaredFeatures(undefined));
  const isFault = (f: string) => !afterMessage(f) && (faults.has(f) || faults.has(f.replace(/ \([^)]*\)$/, "")));
  return [
    `coverage (of ${c.seeds} seeds, per 1,000 that reached each):`,
    ...group("faults", isFault),
    ...group("crashes right after a message", afterMessage, (f) => f.slice("crash right after ".length)),
    ...group("protocol states", (f) => !afterMessage(f) && !isFault(f)),
    ...leftOutOf(scenario, generate).map((l) => `  left out: ${l.fault} (${l.why})`),
  ];
}
