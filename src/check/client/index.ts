/**
 * The client checkers: what a ZooKeeper client may rely on (docs/zookeeper.md §2, §3, §6), checked
 * online over the client's history annotations (`client.*`) and the server's session and apply
 * annotations (`zk.*`). They share no code with the client or the server.
 */
import type { Checker } from "../checker.js";
import { ClientLinearizabilityChecker, type LinearizabilityCheckerOptions, type LinearizabilitySummary } from "./linearizability.js";
import { SessionOrderChecker } from "./session-order.js";
import { SessionsChecker } from "./sessions.js";
import { WatchesChecker } from "./watches.js";
import { ServerWatchesChecker } from "./server-watches.js";
import { TimelinessChecker } from "./timeliness.js";
import { SessionFailoverChecker } from "./session-failover.js";
import { ClientLivenessChecker } from "./liveness.js";
import { WatchTriggersChecker } from "./watch-triggers.js";
import { HistoryFieldsChecker } from "./history-fields.js";
import { WatchRemovalChecker } from "./watch-removal.js";

export { ClientLinearizabilityChecker, SessionOrderChecker, SessionsChecker, WatchesChecker, ServerWatchesChecker, TimelinessChecker, SessionFailoverChecker, ClientLivenessChecker, WatchTriggersChecker, HistoryFieldsChecker, WatchRemovalChecker };
export type { LinearizabilityCheckerOptions, LinearizabilitySummary };

/** Name → factory of a fresh instance, in a fixed order. */
export const CLIENT_CHECKERS: ReadonlyMap<string, () => Checker> = new Map<string, () => Checker>([
  ["client.linearizability", () => new ClientLinearizabilityChecker()],
  ["client.session-order", () => new SessionOrderChecker()],
  ["client.sessions", () => new SessionsChecker()],
  ["client.watches", () => new WatchesChecker()],
  ["client.server-watches", () => new ServerWatchesChecker()],
  ["client.watch-triggers", () => new WatchTriggersChecker()],
  ["client.watch-removal", () => new WatchRemovalChecker()],
  // Judges ensembles with the default syncLimit (5 ticks); the zk workload leaves it out for others.
  ["client.timeliness", () => new TimelinessChecker()],
  ["client.session-failover", () => new SessionFailoverChecker()],
  ["client.liveness", () => new ClientLivenessChecker()],
  ["client.history-fields", () => new HistoryFieldsChecker()],
]);

/** Fresh instances of every client checker. */
export function clientCheckers(): Checker[] {
  return [...CLIENT_CHECKERS.values()].map((make) => make());
}
