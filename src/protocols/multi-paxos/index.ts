/** Multi-Paxos (book 3.1.5): a replicated log driving a key-value store, with a leader and Chubby's master lease. */
export { MultiPaxosReplica, type ReplicaConfig, type ReplicaVariant } from "./replica.js";
export { MultiPaxosClient, type ClientConfig } from "./client.js";
export { commandId, majority, type Command, type MultiPaxosMessage } from "./messages.js";
export type { MultiPaxosTraceEvents } from "./trace-events.js";

/**
 * The broken twins (`--variant`): `skip-phase-1` (a new leader without phase 1), `no-lease`
 * (reads without the master lease), `restart-reuses-ids` (a restarted client keeps its identity
 * and starts its request ids again: a replica's duplicate detection answers its new put from the
 * cache, unapplied), `no-drift-margin` (the master lease counted as long on the leader's clock
 * as on the followers': under clock skew the old master serves reads after a new one leads),
 * `skip-gap-fill` (a new leader leaves the slots below its highest that no promise reported
 * empty, instead of filling them with no-ops: the log stops at the hole), `mute-promise` (an
 * acceptor never answers PREPARE), `no-catch-up` (a replica asked for catch-up sends nothing: a
 * replica that missed slots stays behind).
 */
export const MULTI_PAXOS_VARIANTS = ["correct", "skip-phase-1", "no-lease", "restart-reuses-ids", "no-drift-margin", "skip-gap-fill", "mute-promise", "no-catch-up"] as const;
export type MultiPaxosVariant = (typeof MULTI_PAXOS_VARIANTS)[number];
