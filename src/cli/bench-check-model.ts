/**
 * `zksim bench check-model`: the model checker's speed (docs/model-checking.md) on the 2PC and
 * ZAB targets at fixed bounds — distinct states per second, wall and CPU, the transitions and
 * re-executions behind them — and what the reductions save on 2PC (states and transitions with
 * sleep sets and symmetry off). Wall time on a shared machine also counts other processes' work:
 * the CPU figures are this process's own.
 */
import { performance } from "node:perf_hooks";
import type { Figure } from "./bench.js";
import { search, type SearchOptions, type SearchResult } from "../search/engine.js";
import { targetFor } from "../search/targets.js";
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

function figures(bench: string, m: Measured): Figure[] {
  const r = m.result;
  const f = (metric: string, value: number, unit: string): Figure => ({ bench, metric, value: Math.round(value * 10) / 10, unit });
  return [
    f("states", r.unique, "states"),
    f("transitions", r.transitions, "transitions"),
    f("depth", r.depth, "steps"),
    f("states_per_sec", r.unique / Math.max(r.wallMs / 1000, 1e-3), "states/s"),
    f("states_per_cpu_sec", r.unique / Math.max(m.cpuMs / 1000, 1e-3), "states/s"),
    f("wall", r.wallMs, "ms"),
    f("cpu", m.cpuMs, "ms"),
    f("reexecutions", r.worldsBuilt, "worlds"),
    f("cpu_per_transition", m.cpuMs / Math.max(r.transitions, 1), "ms"),
  ];
}

export async function checkModelBench(): Promise<Figure[]> {
  const twoPc = targetFor("2pc");
  const zab = targetFor("zab");
  const small = { depth: 12 };
  const out: Figure[] = [];
  out.push(...figures("check-model-2pc", await measured(twoPc, small)));
  const plain = await measured(twoPc, small, { sleepSets: false, symmetry: false });
  out.push({ bench: "check-model-2pc-unreduced", metric: "states", value: plain.result.unique, unit: "states" });
  out.push({ bench: "check-model-2pc-unreduced", metric: "transitions", value: plain.result.transitions, unit: "transitions" });
  out.push(...figures("check-model-zab", await measured(zab, { depth: 4 })));
  return out;
}
