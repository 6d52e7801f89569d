import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import type { TraceEvent } from "../../src/sim/trace.js";

// The trace reading of the loss-trap scenarios' tests (loss-traps.test.ts, loss-traps.deep.test.ts).

/** Runs `name` at seed 1 and returns its trace (the events a predicate needs) and result. */
export async function traced(name: string): Promise<{ events: TraceEvent[]; violations: unknown[]; traceHash: string }> {
  const events: TraceEvent[] = [];
  const r = await runScenario(loadScenario(name), { seed: 1, onTraceEvent: (e) => void ((e.kind === "client.complete" || e.kind === "client.invoke" || e.kind === "recipe.2pc") && events.push(e)) });
  return { events, violations: r.violations, traceHash: r.traceHash };
}

/** The failed completions of `node` with error `err`, joined to their invocation's op and path. */
export function failures(events: readonly TraceEvent[], node: string, err: string): { op: string; path: string }[] {
  const invoked = new Map<number, { op: string; path: string }>();
  const out: { op: string; path: string }[] = [];
  for (const e of events) {
    if (e.node !== node) continue;
    const f = e.fields as { opId: number; op?: string; path?: string; err?: string };
    if (e.kind === "client.invoke") invoked.set(f.opId, { op: String(f.op), path: String(f.path) });
    if (e.kind === "client.complete" && f.err === err) out.push(invoked.get(f.opId) ?? { op: "?", path: "?" });
  }
  return out;
}
