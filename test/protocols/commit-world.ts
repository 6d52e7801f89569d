/** Builds a commit-protocol scenario's world on a bare simulator, to run it part-way and look inside. */
import { parseScenario } from "../../src/scenario/parse.js";
import { workloadDef } from "../../src/scenario/registry.js";
import { installFaults } from "../../src/sim/faults.js";
import { Simulator } from "../../src/sim/simulator.js";
import { isOfKind, type TraceEvent, type TraceKind } from "../../src/sim/trace.js";

export function commitWorld(doc: Record<string, unknown>, seed = 1): Simulator {
  const scenario = parseScenario({ name: "unit", durationMs: 10_000, ...doc }, "unit");
  const sim = new Simulator({ seed, network: scenario.network, retainTrace: true });
  const w = workloadDef(scenario.workload.kind).create({ sim, scenario, params: scenario.workload.params, report: () => undefined });
  w.setup();
  installFaults(sim, scenario.faults);
  return sim;
}

export function annotations<K extends TraceKind>(sim: Simulator, kind: K): TraceEvent<K>[] {
  return sim.trace.events.filter((e) => isOfKind(e, kind));
}

export function inspectOf(sim: Simulator, id: string): Record<string, unknown> {
  return (sim.node(id).process as unknown as { inspect(): Record<string, unknown> }).inspect();
}
