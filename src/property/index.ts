/**
 * Property testing of the simulated ZooKeeper (issue 5): fast-check arbitraries for cluster
 * configurations, fault schedules and client workloads; `scenarioArbitrary` combining them into
 * valid scenarios; `simulationProperty` (run with every checker, fail on any violation); and
 * `assertSimulation`, which on failure shrinks to a minimal schedule + workload, writes it as a
 * replay file and prints the seed and a one-line `zksim replay <file>` command.
 *
 * Layering: above scenario/ (it generates scenario documents and runs them), below cli/.
 *
 * ```ts
 * await assertSimulation(scenarioArbitrary({ cluster: { sizes: [3] } }), { numRuns: 20, seed: 42, outDir: "replay" });
 * ```
 */
export { clusterArbitrary, type ClusterOptions, type ClusterParams } from "./cluster.js";
export { workloadArbitrary, type WorkloadOptions, type WorkloadParams } from "./workload.js";
export { disruptionsArbitrary, faultScheduleArbitrary, type ClusterNodes, type FaultScheduleOptions, type FaultWindow } from "./fault-schedule.js";
export { DISRUPTION_KINDS, disruptionAction, disruptionFaults, faultsOf, healedAtMs, type Disruption, type DisruptionKind } from "./disruptions.js";
export { nodesOf, scenarioArbitrary, scenarioDocumentOf, scenarioOf, scenarioPartsArbitrary, type ScenarioOptions, type ScenarioParts } from "./scenario.js";
export { describeViolations, simulationProperty, simulationRunOptions, SimulationViolationError, type SimulationOptions } from "./simulation-property.js";
export { assertSimulation, SimulationFailure, type AssertSimulationOptions } from "./assert-simulation.js";
export { DEFAULT_OP_MIX, OP_KINDS, type OpKind, type OpMix, type TrafficParams } from "../scenario/scripts/traffic.js";
