/**
 * `zksim bench check-model`: the model checker's figures (docs/model-checking.md) — every
 * target of `zksim check` at its default bounds (distinct states, transitions, depth reached,
 * states per second of wall and of CPU, time, and what it found), each target's canary (the
 * broken variant, searched until its checker's first violation: states to find it), the ZAB bug-zoo
 * defects the ZAB target's bounds reach (`--bug`), and what the reductions save on 2PC (states
 * and transitions with sleep sets and symmetry off). Wall time on a shared machine also counts
 * other processes' work: the CPU figures are this process's own.
 */
import { performance } from "node:perf_hooks";
import type { Figure } from "./bench.js";
import { search, type SearchOptions, type SearchResult } from "../search/engine.js";
import { TARGETS, targetFor, ZAB_BUGS_IN_BOUND } from "../search/targets.js";
import type { SearchBounds } from "../search/bounds.js";
import type { CheckTarget } from "../search/target.js";

interface Measured {
  result: SearchResult;
  cpuMs: number;
}

async function measured(target: CheckTarget, bounds: Partial<SearchBounds>, more: Partial<SearchOptions> = {}): Promise<Measured> {
  const cpu = process.cpuUsage();
  const result = await search(target, { bounds: { ...target.bounds, ...bounds }, from: "setup", stopAtFirst: false, now: () => performance.now(), ...more });
  const used = process.cpuUsage(cpu);
  return { result, cpuMs: (used.user + used.system) / 1000 };
}

const OUTCOMES = ["complete", "states", "time", "interrupted", "found"] as const;

function figure(bench: string, metric: string, value: number, unit: string): Figure {
  return { bench, metric, value: Math.round(value * 10) / 10, unit };
}

function figures(bench: string, m: Measured): Figure[] {
  const r = m.result;
  const f = (metric: string, value: number, unit: string) => figure(bench, metric, value, unit);
  return [
    f("states", r.unique, "states"),
    f("transitions", r.transitions, "transitions"),
    f("depth", r.depth, "steps"),
    f("ends", r.ends, "paths"),
    f("states_per_sec", r.unique / Math.max(r.wallMs / 1000, 1e-3), "states/s"),
    f("states_per_cpu_sec", r.unique / Math.max(m.cpuMs / 1000, 1e-3), "states/s"),
    f("wall", r.wallMs, "ms"),
    f("cpu", m.cpuMs, "ms"),
    f("reexecutions", r.worldsBuilt, "worlds"),
    // 0 complete (the bound explored), 1 the states bound, 2 the time bound, 3 interrupted, 4 stopped at a violation.
    f("outcome", OUTCOMES.indexOf(r.outcome), "code"),
    f("violations", r.found.length, "checkers"),
  ];
}

/** States explored when the first violation of `checker` was found (-1: not found within the bounds). */
function toFind(bench: string, m: Measured, checker: string): Figure[] {
  const hit = m.result.found.find((f) => f.checker === checker);
  return [
    figure(bench, "states_to_find", hit?.atUnique ?? -1, "states"),
    figure(bench, "path_length", hit?.path.length ?? -1, "steps"),
    figure(bench, "cpu", m.cpuMs, "ms"),
  ];
}

/** Every target, or the named ones (`--targets`; an unknown name is one line and exit 2). */
export async function checkModelBench(names?: readonly string[]): Promise<Figure[]> {
  const chosen = names === undefined ? TARGETS : names.map(targetFor);
  const out: Figure[] = [];
  for (const t of chosen) {
    out.push(...figures(`check-model-${t.name}`, await measured(t, {})));
    if (t.canary !== undefined) {
      const canary = { ...t, variant: t.canary.variant };
      out.push(...toFind(`check-model-${t.name}-canary-${t.canary.variant}`, await measured(canary, t.canary.bounds ?? {}, { stopAtFirst: true, checkers: [t.canary.checker] }), t.canary.checker));
    }
  }
  const zab = targetFor("zab");
  for (const { bug, checker } of chosen.includes(zab) ? ZAB_BUGS_IN_BOUND : []) {
    out.push(...toFind(`check-model-zab-bug-${bug}`, await measured({ ...zab, variant: `bug-${bug}` }, {}, { stopAtFirst: true, checkers: [checker] }), checker));
  }
  const twoPc = targetFor("2pc");
  if (!chosen.includes(twoPc)) return out;
  const plain = await measured(twoPc, { depth: 12 }, { sleepSets: false, symmetry: false });
  const reduced = await measured(twoPc, { depth: 12 });
  for (const [bench, m] of [["check-model-2pc-depth12-unreduced", plain], ["check-model-2pc-depth12-reduced", reduced]] as const) {
    out.push(figure(bench, "states", m.result.unique, "states"), figure(bench, "transitions", m.result.transitions, "transitions"), figure(bench, "cpu", m.cpuMs, "ms"));
  }
  return out;
}
