/** Multi-Paxos (book 3.1.5): a replicated log driving a key-value store, with a leader and Chubby's master lease. */
export { MultiPaxosReplica, type ReplicaConfig, type ReplicaVariant } from "./replica.js";
export { MultiPaxosClient, type ClientConfig } from "./client.js";
export { commandId, majority, type Command, type MultiPaxosMessage } from "./messages.js";
export type { MultiPaxosTraceEvents } from "./trace-events.js";

/**
 * The broken twins (`--variant`): `skip-phase-1` (a new leader without phase 1), `no-lease`
 * (reads without the master lease), `restart-reuses-ids` (a restarted client keeps its identity
 * and starts its request ids again: a replica's duplicate detection answers its new put from the
 * cache, unapplied).
 */
export const MULTI_PAXOS_VARIANTS = ["correct", "skip-phase-1", "no-lease", "restart-reuses-ids"] as const;
export type MultiPaxosVariant = (typeof MULTI_PAXOS_VARIANTS)[number];
