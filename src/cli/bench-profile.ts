/**
 * `zksim bench recipes --profile`: where a warm recipe seed's CPU time goes. V8's sampling
 * profiler (through `node:inspector`, in this process) runs over a batch of seeds after the
 * JIT warm-up; each sample's time is charged to the function on top of the stack (self time),
 * and the functions are summed by area — each checker's file, the trace and its hash, the
 * kernel, the ZooKeeper server and client, the recipes, the scenario — and listed alone.
 *
 * Areas are read from the function's source file (`src/check/zab/leadership.ts` is the
 * checker zab.leadership's), so a checker's helper in a shared file (event-reader.ts,
 * replica-log.ts) counts under that file's own area, "check: shared".
 */
import { Session } from "node:inspector/promises";
import { runScenario } from "../scenario/run.js";
import type { RunOptions, Scenario } from "../scenario/types.js";

/** V8's CPU profile, as `Profiler.stop` returns it (the fields read here). */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileRow {
  name: string;
  selfMs: number;
  share: number;
}

export interface SeedProfile {
  seeds: number;
  totalMs: number;
  areas: ProfileRow[];
  functions: ProfileRow[];
}

/** Sampling interval, µs: fine enough for a batch of a few seconds. */
const SAMPLING_INTERVAL_US = 200;
/**
 * The most one sample is charged, µs. A sample's time is the wall-clock gap to the next one, and
 * on a loaded machine the process can be off the CPU for a second between two samples: one
 * sample of a seldom function (a snapshot walk) then took a third of a 3-second profile.
 */
export const MAX_SAMPLE_US = 2 * SAMPLING_INTERVAL_US;

/**
 * Runs `seeds` seeds of `scenario` (from `firstSeed`) under the profiler, each with `options`
 * (explore's `{ coverage: true }`, to profile what a sweep runs); returns the self time by area
 * and by function.
 */
export async function profileSeeds(scenario: Scenario, firstSeed: number, seeds: number, top: number, options: RunOptions = {}): Promise<SeedProfile> {
  const session = new Session();
  session.connect();
  try {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
    await session.post("Profiler.start");
    for (let seed = firstSeed; seed < firstSeed + seeds; seed++) await runScenario(scenario, { ...options, seed });
    const { profile } = (await session.post("Profiler.stop")) as { profile: CpuProfile };
    return summarizeProfile(profile, seeds, top);
  } finally {
    session.disconnect();
  }
}

/** The self time by area and by function of a V8 CPU profile (each sample charged at most MAX_SAMPLE_US). */
export function summarizeProfile(profile: CpuProfile, seeds: number, top: number): SeedProfile {
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // A sample's time is the gap to the next one (V8's own convention for self time), capped.
  for (let i = 0; i < samples.length; i++) selfUs.set(samples[i]!, (selfUs.get(samples[i]!) ?? 0) + Math.min(deltas[i + 1] ?? 0, MAX_SAMPLE_US));
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let totalUs = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (us === 0) continue;
    totalUs += us;
    const file = sourceFile(node.callFrame.url);
    const area = areaOf(file, node.callFrame.functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
    // A line number is the source's only under vitest (src/); compiled code's lines are dist/'s, so left out.
    const where = file === undefined ? node.callFrame.url : node.callFrame.url.includes("/src/") ? `${file}:${node.callFrame.lineNumber + 1}` : file;
    const fn = `${node.callFrame.functionName || "(anonymous)"} ${where}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  }
  const rows = (m: Map<string, number>, n: number): ProfileRow[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, selfMs: Math.round(us / 100) / 10, share: Math.round((1000 * us) / Math.max(1, totalUs)) / 10 }));
  return { seeds, totalMs: Math.round(totalUs / 1000), areas: rows(byArea, byArea.size), functions: rows(byFunction, top) };
}

/**
 * `check/zab/leadership.ts` from a URL of this project's code: compiled (`…/dist/check/zab/leadership.js`)
 * or source (`…/src/check/zab/leadership.ts`, under vitest); undefined for Node's own code.
 */
export function sourceFile(url: string): string | undefined {
  const m = /.*\/(?:dist|src)\/(.+)\.[jt]s$/.exec(url);
  return m === null ? undefined : `${m[1]}.ts`;
}

/** The area a function's self time is charged to. */
export function areaOf(file: string | undefined, functionName: string): string {
  if (file === undefined) return functionName.startsWith("(") ? functionName : "node and V8 built-ins";
  if (file === "sim/trace.ts" || file === "base/structure-hash.ts") return "trace: record, hash, dispatch";
  if (file.startsWith("check/")) {
    const name = file.slice("check/".length, -".ts".length);
    const shared = ["checker", "event-reader", "define-checker", "zxid-text", "zab/zab-event", "zab/replica-log", "zab/durable-floor", "zab/txn-fields", "check-run", "client/run-ops", "cut-links", "node-clocks"];
    return shared.includes(name) ? "check: shared (readers, replica log, floors)" : `check: ${name}`;
  }
  const top = file.split("/")[0]!;
  if (top === "zk") return file.startsWith("zk/client/") ? "zk: client" : file.startsWith("zk/proto/") ? "zk: proto (Jute codec)" : "zk: server";
  if (top === "sim") return "kernel (sim/)";
  return top;
}

/** The profile as text: areas, then the top functions. */
export function formatProfile(p: SeedProfile): string[] {
  const line = (r: ProfileRow) => `  ${String(r.selfMs).padStart(9)} ms ${String(r.share).padStart(5)} %  ${r.name}`;
  return [
    `profile: ${p.seeds} warm seeds, ${p.totalMs} ms sampled (self time: the function on top of the stack)`,
    "by area:",
    ...p.areas.map(line),
    `top ${p.functions.length} functions:`,
    ...p.functions.map(line),
  ];
}
