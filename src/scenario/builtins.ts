/** Registers the built-in workloads and checkers. Import once before parsing scenarios. */
import { registerChecker, registerWorkload } from "./workload.js";
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
import { DurableAckChecker, ZAB_CHECKERS } from "../check/zab/index.js";
import { CLIENT_CHECKERS } from "../check/client/index.js";
import { RECIPE_CHECKERS } from "../check/recipes/index.js";
import { ConnectionFifoChecker } from "../check/kernel/connection-fifo.js";
import { NoDeliveryAcrossCutChecker } from "../check/kernel/no-delivery-across-cut.js";
import { DiskCrashLossChecker } from "../check/kernel/disk-crash-loss.js";
import { PausedNodeSilentChecker } from "../check/kernel/paused-node-silent.js";

let registered = false;

export function registerBuiltins(): void {
  if (registered) return;
  registered = true;
  registerWorkload(kernelTraffic);
  registerWorkload(zkWorkload);
  registerWorkload(swarmWorkload);
  registerWorkload(apiSwarmWorkload);
  registerWorkload(twoPhaseCommitWorkload);
  registerWorkload(threePhaseCommitWorkload);
  registerWorkload(paxosWorkload);
  registerWorkload(multiPaxosWorkload);
  for (const [name, make] of PROTOCOL_CHECKERS) registerChecker(name, make);
  registerChecker("zk.standalone-durability", () => new StandaloneDurabilityChecker());
  registerChecker("zk.durable-reply", () => new DurableAckChecker("zk.durable-reply", { replies: true }));
  registerChecker("zk.session-txns", () => new SessionTxnsChecker());
  for (const [name, make] of ZAB_CHECKERS) registerChecker(name, () => make());
  for (const [name, make] of CLIENT_CHECKERS) registerChecker(name, () => make());
  for (const [name, make] of RECIPE_CHECKERS) registerChecker(name, () => make());
  registerChecker("kernel.connection-fifo", () => new ConnectionFifoChecker());
  registerChecker("kernel.no-delivery-across-cut", () => new NoDeliveryAcrossCutChecker());
  registerChecker("kernel.disk-crash-loss", () => new DiskCrashLossChecker());
  registerChecker("kernel.paused-node-silent", () => new PausedNodeSilentChecker());
}
