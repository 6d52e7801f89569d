// The mutant list (mutants/list.json): one-line defects kept in the repository, and the probes
// (`zksim run` scenarios and bounded `zksim explore` sweeps) that must kill them.
//
// Invariants this module enforces before anything runs:
// - every defect names a file under src/, an `original` snippet that occurs in that file exactly
//   once, a different `replacement`, an area (server, quorum, client, recipes) and a description;
//   ids are unique. A snippet that no longer matches is a defect that rotted as the code changed:
//   it is reported by id, file and reason, never silently skipped.
// - every probe is a `run` of one scenario (with an optional seed) or an `explore` of a seed range,
//   and names the areas it is aimed at (probes of a defect's area run first).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const AREAS = ["server", "quorum", "client", "recipes"];

/** Reads and validates the list; returns { defects, probes, problems } (problems: one line each). */
export function loadList(listPath, root) {
  let raw;
  try {
    raw = JSON.parse(readFileSync(listPath, "utf8"));
  } catch (err) {
    return { defects: [], probes: [], problems: [`${listPath}: cannot read the mutant list: ${err.message}`] };
  }
  const problems = [];
  const defects = Array.isArray(raw.defects) ? raw.defects : [];
  const probes = Array.isArray(raw.probes) ? raw.probes : [];
  if (!Array.isArray(raw.defects)) problems.push(`${listPath}: "defects" must be an array`);
  if (!Array.isArray(raw.probes)) problems.push(`${listPath}: "probes" must be an array`);
  const seen = new Set();
  for (const [i, d] of defects.entries()) {
    const where = `defect ${typeof d?.id === "string" ? d.id : `#${i}`}`;
    for (const field of ["id", "file", "original", "replacement", "area", "description"]) {
      if (typeof d?.[field] !== "string" || d[field] === "") problems.push(`${where}: "${field}" must be a non-empty string`);
    }
    if (typeof d?.id !== "string" || typeof d.file !== "string" || typeof d.original !== "string") continue;
    if (seen.has(d.id)) problems.push(`${where}: duplicate id`);
    seen.add(d.id);
    if (!AREAS.includes(d.area)) problems.push(`${where}: area "${d.area}" is not one of ${AREAS.join(", ")}`);
    if (d.replacement === d.original) problems.push(`${where}: the replacement equals the original`);
    if (d.equivalent !== undefined && (typeof d.equivalent !== "string" || d.equivalent === "")) {
      problems.push(`${where}: "equivalent", when given, must be the reason (a non-empty string)`);
    }
    problems.push(...snippetProblems(d, root));
  }
  for (const [i, p] of probes.entries()) {
    const where = `probe #${i}`;
    if (p?.kind !== "run" && p?.kind !== "explore") problems.push(`${where}: "kind" must be "run" or "explore"`);
    if (typeof p?.scenario !== "string" || !existsSync(join(root, "scenarios", `${p.scenario}.json`))) {
      problems.push(`${where}: no scenario "${p?.scenario}" under scenarios/`);
    }
    if (p?.kind === "explore" && !(Number.isInteger(p.seeds) && p.seeds > 0)) problems.push(`${where}: explore needs "seeds" (a positive integer)`);
    if (!Array.isArray(p?.areas) || p.areas.some((a) => !AREAS.includes(a))) problems.push(`${where}: "areas" must list some of ${AREAS.join(", ")}`);
  }
  return { defects, probes, problems };
}

/** Why a defect's snippet cannot be applied to the sources under root (empty when it can). */
export function snippetProblems(defect, root) {
  const where = `defect ${defect.id} (${defect.file})`;
  if (!defect.file.startsWith("src/") || !/\.tsx?$/.test(defect.file)) return [`${where}: "file" must be a .ts/.tsx file under src/`];
  const path = join(root, defect.file);
  if (!existsSync(path)) return [`${where}: the file does not exist`];
  const count = occurrences(readFileSync(path, "utf8"), defect.original);
  if (count === 0) return [`${where}: the original snippet no longer matches the source (the code changed; update or drop this defect): ${JSON.stringify(defect.original)}`];
  if (count > 1) return [`${where}: the original snippet occurs ${count} times; make it unique: ${JSON.stringify(defect.original)}`];
  return [];
}

/** The source text with the defect applied (its snippet must occur exactly once). */
export function applyDefect(text, defect) {
  if (occurrences(text, defect.original) !== 1) throw new Error(`defect ${defect.id}: snippet does not occur exactly once in ${defect.file}`);
  const at = text.indexOf(defect.original);
  return text.slice(0, at) + defect.replacement + text.slice(at + defect.original.length);
}

function occurrences(text, snippet) {
  let count = 0;
  for (let at = text.indexOf(snippet); at !== -1; at = text.indexOf(snippet, at + 1)) count++;
  return count;
}

/** The probes in the order a defect meets them: those aimed at its area first, list order otherwise. */
export function probesFor(defect, probes) {
  const aimed = probes.filter((p) => p.areas.includes(defect.area));
  return [...aimed, ...probes.filter((p) => !p.areas.includes(defect.area))];
}

/** The command-line arguments of the zksim CLI for one probe. */
export function probeArgs(probe) {
  const extra = [...(probe.generate ? ["--generate"] : []), ...(probe.variant ? ["--variant", probe.variant] : [])];
  if (probe.kind === "run") return ["run", probe.scenario, "--seed", String(probe.seed ?? 1), "--json", ...extra];
  return ["explore", probe.scenario, "--seeds", String(probe.seeds), "--from", String(probe.from ?? 1), "--workers", "1", "--json", ...extra];
}

/** A probe's short name for reports: `run watch-semantics`, `explore zab-random-faults ×200`. */
export function probeName(probe) {
  const flags = `${probe.generate ? " --generate" : ""}${probe.variant ? ` --variant ${probe.variant}` : ""}`;
  return probe.kind === "run" ? `run ${probe.scenario}${probe.seed !== undefined ? ` --seed ${probe.seed}` : ""}${flags}` : `explore ${probe.scenario}${flags} ×${probe.seeds}`;
}
