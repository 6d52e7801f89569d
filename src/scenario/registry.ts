/**
 * The registry: every workload and named checker a scenario may use, as plain values assembled
 * in this one file and passed to whatever looks one up (parsing, running, replaying, shrinking).
 * Nothing fills it by importing a module for its side effect: a new workload or checker is one
 * line in its list below (docs/extending.md). The other named parts have their one list each:
 * scripts in scripts/index.ts, nemeses in nemesis/index.ts, learn adapters in stepper/adapters.ts.
 *
 * A layer above scenario/ that brings a workload of its own (serve's recorded "served" sessions,
 * the public API's "user" scripts) extends `SCENARIO_REGISTRY` with `withWorkloads` and passes the
 * result where it parses or runs such a scenario.
 *
 * Invariants: names are unique within each map (a duplicate throws when the registry is built);
 * lookups of an unknown name throw a UserInputError listing the known ones.
 */
import { UserInputError } from "../sim/errors.js";
import type { Checker } from "../check/checker.js";
import { ReadAfterConfirmedWriteChecker } from "../check/client/read-after-write.js";
import type { WorkloadDef } from "./workload.js";
import { kernelTraffic } from "./workloads/kernel-traffic.js";
import { zkWorkload } from "./workloads/zk.js";
import { swarmWorkload } from "./workloads/swarm.js";
import { apiSwarmWorkload } from "./workloads/api-swarm.js";
import { threePhaseCommitWorkload, twoPhaseCommitWorkload } from "./workloads/commit-protocol.js";
import { paxosWorkload } from "./workloads/paxos.js";
import { multiPaxosWorkload } from "./workloads/multi-paxos.js";
import { PROTOCOL_CHECKERS } from "../check/protocols/index.js";
import { StandaloneDurabilityChecker } from "../check/zk/standalone-durability.js";
import { SessionTxnsChecker } from "../check/zk/session-txns.js";
import { SnapshotPolicyChecker } from "../check/zk/snapshot-policy.js";
import { WatchLeakChecker } from "../check/zk/watch-leak.js";
import { DurableAckChecker, ZAB_CHECKERS } from "../check/zab/index.js";
import { RECONFIG_CHECKERS } from "../check/reconfig/index.js";
import { CLIENT_CHECKERS } from "../check/client/index.js";
import { GroupAnnouncedChecker, RECIPE_CHECKERS } from "../check/recipes/index.js";
import { ConnectionFifoChecker } from "../check/kernel/connection-fifo.js";
import { NoDeliveryAcrossCutChecker } from "../check/kernel/no-delivery-across-cut.js";
import { DiskCrashLossChecker } from "../check/kernel/disk-crash-loss.js";
import { PausedNodeSilentChecker } from "../check/kernel/paused-node-silent.js";

export interface Registry {
  readonly workloads: ReadonlyMap<string, WorkloadDef>;
  /** A fresh checker per run, by the name a scenario's `checkers` lists. */
  readonly checkers: ReadonlyMap<string, () => Checker>;
}

/** The built-in workloads, one a line. */
const WORKLOADS: readonly WorkloadDef[] = [
  kernelTraffic,
  zkWorkload,
  swarmWorkload,
  apiSwarmWorkload,
  twoPhaseCommitWorkload,
  threePhaseCommitWorkload,
  paxosWorkload,
  multiPaxosWorkload,
];

/** The named checkers, one a line (or one family a line). */
const CHECKERS: ReadonlyArray<readonly [string, () => Checker]> = [
  ...PROTOCOL_CHECKERS,
  ["zk.standalone-durability", () => new StandaloneDurabilityChecker()],
  ["zk.durable-reply", () => new DurableAckChecker("zk.durable-reply", { replies: true })],
  ["zk.session-txns", () => new SessionTxnsChecker()],
  ["zk.snapshot-policy", () => new SnapshotPolicyChecker()],
  ["zk.watch-leak", () => new WatchLeakChecker()],
  ...[...ZAB_CHECKERS].map(([name, make]) => [name, () => make()] as const),
  ...RECONFIG_CHECKERS,
  ...CLIENT_CHECKERS,
  // Opt-in: ZooKeeper does not promise it; it judges whether a user's code syncs before reads that need to.
  ["client.read-after-confirmed-write", () => new ReadAfterConfirmedWriteChecker()],
  ...RECIPE_CHECKERS,
  // Not among RECIPE_CHECKERS (which judge any run, passing those without their recipe): it fails a
  // run without a group's fresh view, so only the scripts that end with one name it.
  ["recipe.group-announced", () => new GroupAnnouncedChecker()],
  ["kernel.connection-fifo", () => new ConnectionFifoChecker()],
  ["kernel.no-delivery-across-cut", () => new NoDeliveryAcrossCutChecker()],
  ["kernel.disk-crash-loss", () => new DiskCrashLossChecker()],
  ["kernel.paused-node-silent", () => new PausedNodeSilentChecker()],
];

/** What scenario files, replay files and `zksim run` may name. */
export const SCENARIO_REGISTRY: Registry = {
  workloads: uniqueMap("workload", WORKLOADS.map((w) => [w.kind, w] as const)),
  checkers: uniqueMap("checker", CHECKERS),
};

/** `base` with more workloads (a layer above scenario/ adds its own). */
export function withWorkloads(base: Registry, workloads: readonly WorkloadDef[]): Registry {
  return { ...base, workloads: uniqueMap("workload", [...base.workloads, ...workloads.map((w) => [w.kind, w] as const)]) };
}

export function workloadDef(kind: string, registry: Registry = SCENARIO_REGISTRY): WorkloadDef {
  const def = registry.workloads.get(kind);
  if (!def) throw new UserInputError(`unknown workload "${kind}" (known: ${[...registry.workloads.keys()].join(", ")})`);
  return def;
}

export function makeChecker(name: string, registry: Registry = SCENARIO_REGISTRY): Checker {
  const make = registry.checkers.get(name);
  if (!make) throw new UserInputError(`unknown checker "${name}" (known: ${checkerNames(registry).join(", ")})`);
  return make();
}

export function checkerNames(registry: Registry = SCENARIO_REGISTRY): string[] {
  return [...registry.checkers.keys()];
}

function uniqueMap<T>(what: string, entries: Iterable<readonly [string, T]>): ReadonlyMap<string, T> {
  const map = new Map<string, T>();
  for (const [name, value] of entries) {
    if (map.has(name)) throw new Error(`registry: two ${what}s named "${name}"`);
    map.set(name, value);
  }
  return map;
}
