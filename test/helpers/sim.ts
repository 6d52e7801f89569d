/** Small builders for kernel tests: nodes whose behaviour is given inline. */
import { Simulator, type SimulatorOptions } from "../../src/sim/simulator.js";
import type { NodeContext, Process } from "../../src/sim/node-context.js";
import type { TraceEvent } from "../../src/sim/trace.js";

export function makeSim(options: Partial<SimulatorOptions> = {}): Simulator {
  return new Simulator({ seed: 1, retainTrace: true, ...options });
}

/** Adds a node whose process is built by `setup` (which may return an onDatagram handler). */
export function addNode(sim: Simulator, id: string, setup: (ctx: NodeContext) => Process | void = () => undefined): void {
  sim.addNode(id, (ctx) => setup(ctx) ?? {});
}

export function eventsOf(sim: Simulator, kind: string): TraceEvent[] {
  return sim.trace.events.filter((e) => e.kind === kind);
}
