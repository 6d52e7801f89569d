/** Shared by zab-random-faults.test.ts and its deep sweep (zab-random-faults.deep.test.ts). */
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import type { TraceEvent } from "../../src/sim/trace.js";

/**
 * Runs one seed; returns its violations, every txn a server announced as logged while LOOKING,
 * and the most txn-log fsyncs any server had in flight at once.
 */
export async function runWatched(seed: number): Promise<{ violations: string[]; loggedWhileLooking: string[]; maxLogFsyncsInFlight: number }> {
  const looking = new Set<string>();
  const loggedWhileLooking: string[] = [];
  const inFlight = new Map<string, number>();
  let maxLogFsyncsInFlight = 0;
  const onTraceEvent = (e: TraceEvent): void => {
    if (e.kind === "zab.state") {
      if (e.fields?.state === "LOOKING") looking.add(e.node);
      else looking.delete(e.node);
    } else if (e.kind === "crash") {
      looking.delete(e.node);
      inFlight.set(e.node, 0);
    } else if (e.kind === "zab.log" && looking.has(e.node)) loggedWhileLooking.push(`${e.node} ${String(e.fields?.zxid)} at ${e.atUs / 1000} ms`);
    else if ((e.kind === "disk.fsync" || e.kind === "disk.fsync.done") && e.detail?.startsWith("version-2/log.")) {
      const n = (inFlight.get(e.node) ?? 0) + (e.kind === "disk.fsync" ? 1 : -1);
      inFlight.set(e.node, n);
      maxLogFsyncsInFlight = Math.max(maxLogFsyncsInFlight, n);
    }
  };
  const r = await runScenario(loadScenario("zab-random-faults"), { seed, onTraceEvent });
  return { violations: r.violations.map((v) => `[${v.checker}] ${v.message}`), loggedWhileLooking, maxLogFsyncsInFlight };
}
