/**
 * zksim's public API (`import { … } from "zksim"`): test your own ZooKeeper code — a lock, a
 * leader election, a service's ZooKeeper layer — inside a simulated ZooKeeper 3.8 ensemble in
 * virtual time, under faults, with the built-in checkers (ZAB, sessions, watches,
 * ZooKeeper's consistency guarantees for every client op: writes linearizable, reads possibly stale) and your own. docs/api.md lists every name here; the
 * names are stable.
 *
 * ```ts
 * import { CreateMode, Ids, defineUserScript, runUserScript } from "zksim";
 * export const hello = defineUserScript({
 *   module: import.meta.url,
 *   export: "hello",
 *   async run(world) {
 *     const zk = await world.client("c1").connect();
 *     await zk.create("/hello", "world", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
 *   },
 * });
 * const result = await runUserScript(hello, { servers: 3, seed: 7 });
 * ```
 *
 * Layering: above scenario/ and property/ (it builds scenarios of the "user" workload and runs
 * them with the same runner, shrinker and replay files), below cli/.
 */
import "./trace-events.js";

// Scripts and their world.
export { defineUserScript, isUserScript, type UserScript, type UserScriptSpec } from "./user-script.js";
export type { World, ClientNode, FaultSpec, WaitOptions, ConnectOptions, ServerId, ClientId, NodeId } from "./world.js";
export type { WorldOptions, NetworkOptions, DiskOptions } from "./world-options.js";
export type { JsonValue } from "./trace-events.js";

// Running, replaying, properties.
export { runUserScript, replayUserCase, type RunUserScriptOptions, type UserRunResult, type UserReplay, type ReplayUserOptions } from "./run-user-script.js";
export { FAULT_MIXES, type FaultMixName } from "./fault-mixes.js";
export { userScriptProperty, type UserPropertyOptions, type UserPropertyReport, type PropertyFaultOptions } from "./user-property.js";
export type { CoverageReport, OpOutcomes, Tally } from "../property/coverage-report.js";
export { SimulationFailure } from "../property/assert-simulation.js";
export type { ClusterOptions } from "../property/cluster.js";
export type { DisruptionKind } from "../property/disruptions.js";

// Checkers.
export { defineChecker, type CheckerSpec, type CheckerDef, type CheckerEvent, type ReportViolation } from "../check/define-checker.js";
export type { Violation, UnknownVerdict } from "../check/checker.js";
export { readAfterConfirmedWrite } from "./freshness.js";

// The ZooKeeper client the scripts use (the promise API of the recipes) and its vocabulary.
export { KeeperException, type WatchedEvent, type Watcher } from "../zk/client/index.js";
export type { ZooKeeper } from "./zookeeper.js";
export { Code } from "../zk/proto/error-code.js";
export { CreateMode, Ids, type CreateModeFlag, type CreateModeName, type Stat, type ACL } from "../zk/proto/records.js";

// The same client over real TCP, against a real ZooKeeper 3.8 ensemble or `zksim serve`.
export { connectOverTcp, type TcpClient, type TcpClientOptions } from "../runtime/tcp-client.js";

// Faults and errors.
export type { Fault, FaultAction } from "../sim/faults.js";
export { UserInputError } from "../sim/errors.js";
