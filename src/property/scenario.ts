/**
 * `scenarioArbitrary`: generated scenarios — a cluster (cluster.ts), a client workload
 * (workload.ts) and a fault schedule inside a fault window (fault-schedule.ts), combined into a
 * scenario document for the "zk" workload's "client-traffic" script and parsed by the same
 * `parseScenario` the CLI uses. So every generated value is a runnable, valid `Scenario`, and
 * its replay file embeds exactly that document.
 *
 * Run shape: faults land in [startMs, startMs + maxMs] and are undone by then; the clients'
 * traffic runs for at least the drawn window and until the last undo (`window.endMs`); then
 * heal-then-converge (CONVERGENCE_BUDGET_MS) and the final reads, with time left for the
 * liveness checker's budget. The simulation seed is part of the scenario (`seed`) and is not
 * shrunk: another seed is another run, not a smaller one.
 */
import fc from "fast-check";
import { parseScenario } from "../scenario/parse.js";
import type { Scenario } from "../scenario/types.js";
import { CONVERGENCE_BUDGET_MS, FINAL_READS_MS } from "../scenario/scripts/client-traffic.js";
import { clusterArbitrary, maxServerNodes, type ClusterOptions, type ClusterParams } from "./cluster.js";
import { disruptionsArbitrary, type FaultScheduleOptions, type FaultWindow } from "./fault-schedule.js";
import { faultsOf, healedAtMs, projectDisruption, type Disruption } from "./disruptions.js";
import { workloadArbitrary, workloadBounds, type WorkloadOptions, type WorkloadParams } from "./workload.js";

export interface ScenarioOptions {
  /** The generated scenarios' name (default "property"). */
  name?: string;
  cluster?: ClusterOptions;
  workload?: WorkloadOptions;
  /** Fault kinds and counts; `sessionTimeoutMs` (for long pauses) defaults to the workload's longest. */
  faults?: FaultScheduleOptions;
  /** Faults land in [startMs, startMs + maxMs] (default 1000, 15000); traffic runs at least `minMs` (default 3000) from startMs. */
  faultWindow?: { startMs?: number; minMs?: number; maxMs?: number };
  /** Scenario document `network` and `disk` settings (e.g. `{"maxDelayMs": 5}`), as in scenarios/*.json. */
  network?: Record<string, number>;
  disk?: Record<string, number>;
  /** Checkers to run (default: every checker the workload runs by default). */
  checkers?: readonly string[];
}

/** The generated parts of a scenario, before they become a document. */
export interface ScenarioParts {
  seed: number;
  cluster: ClusterParams;
  workload: WorkloadParams;
  window: FaultWindow;
  disruptions: Disruption[];
}

export function scenarioArbitrary(base: ScenarioOptions = {}): fc.Arbitrary<Scenario> {
  return scenarioPartsArbitrary(base).map((parts) => scenarioOf(parts, base));
}

export function scenarioPartsArbitrary(base: ScenarioOptions = {}): fc.Arbitrary<ScenarioParts> {
  const startMs = base.faultWindow?.startMs ?? 1000;
  const minMs = base.faultWindow?.minMs ?? 3000;
  const maxMs = base.faultWindow?.maxMs ?? 15_000;
  if (!(Number.isInteger(startMs) && Number.isInteger(minMs) && Number.isInteger(maxMs) && startMs >= 0 && 200 <= minMs && minMs <= maxMs)) {
    throw new RangeError(`scenarioArbitrary: faultWindow needs whole ms with startMs ≥ 0 and 200 ≤ minMs ≤ maxMs, got ${JSON.stringify(base.faultWindow)}`);
  }
  // No chain: the disruptions are drawn over the largest node set and the widest window, then
  // re-aimed at the nodes the case has (projectDisruption). A chain would regenerate them from
  // scratch whenever the cluster or workload shrinks, and the shrinker would lose the failure.
  const bounds = workloadBounds(base.workload);
  const largest = nodesOf({ servers: maxServerNodes(base.cluster), observers: 0 }, { clients: bounds.clients.max });
  // "Longer than the session timeout" is longer than the longest timeout a client may ask for.
  const faults = { sessionTimeoutMs: bounds.sessionTimeoutMs.max, ...base.faults };
  return fc
    .record({
      seed: fc.noShrink(fc.integer({ min: 0, max: 0x7fffffff })),
      cluster: clusterArbitrary(base.cluster),
      workload: workloadArbitrary(base.workload),
      windowMs: fc.integer({ min: minMs, max: maxMs }),
      disruptions: disruptionsArbitrary(largest, { startMs, endMs: startMs + maxMs }, faults),
    })
    .map(({ seed, cluster, workload, windowMs, disruptions }) => {
      const nodes = nodesOf(cluster, workload);
      const projected = disruptions.flatMap((d) => projectDisruption(d, nodes) ?? []);
      // The traffic phase lasts at least windowMs and until the last undo: then heal-then-converge.
      const window = { startMs, endMs: Math.max(startMs + windowMs, healedAtMs(projected)) };
      return { seed, cluster, workload, window, disruptions: projected };
    });
}

/** Server and client node names, as the zk workload names them. */
export function nodesOf(cluster: Pick<ClusterParams, "servers" | "observers">, workload: Pick<WorkloadParams, "clients">): { servers: string[]; clients: string[] } {
  const servers = Array.from({ length: cluster.servers + cluster.observers }, (_, i) => `s${i + 1}`);
  const clients = Array.from({ length: workload.clients }, (_, i) => `c${i + 1}`);
  return { servers, clients };
}

/** The parts as a scenario document (the JSON a scenarios/*.json file holds). */
export function scenarioDocumentOf(parts: ScenarioParts, base: ScenarioOptions = {}): Record<string, unknown> {
  const { cluster, workload, window, disruptions } = parts;
  const shape = cluster.servers === 1 ? "standalone" : `${cluster.servers} voters${cluster.observers > 0 ? ` + ${cluster.observers} observer(s)` : ""}`;
  return {
    name: base.name ?? "property",
    description: `generated: ${shape}, ${workload.clients} clients, ${disruptions.length} disruption(s) in [${window.startMs}, ${window.endMs}] ms`,
    tags: ["property"],
    seed: parts.seed,
    durationMs: window.endMs + CONVERGENCE_BUDGET_MS + FINAL_READS_MS,
    ...(base.network !== undefined ? { network: { ...base.network } } : {}),
    ...(base.disk !== undefined ? { disk: { ...base.disk } } : {}),
    workload: { kind: "zk", script: "client-traffic", ...cluster, clients: workload.clients, traffic: { ...workload.traffic, untilMs: window.endMs } },
    faults: faultsOf(disruptions),
    ...(base.checkers !== undefined ? { checkers: [...base.checkers] } : {}),
  };
}

/** The parts as a validated Scenario, through the CLI's parser (a mistake here is a bug: it throws). */
export function scenarioOf(parts: ScenarioParts, base: ScenarioOptions = {}): Scenario {
  return parseScenario(scenarioDocumentOf(parts, base), base.name ?? "property");
}
