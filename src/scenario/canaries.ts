/**
 * The canary registry: deliberately broken builds, each with what it breaks and where it is
 * caught. A checker that passes proves something only if it fails on a broken variant; this
 * list is that claim as data. `--canary NAME` (run, explore), replay files and docs/faults.md
 * read it; test/scenario/canaries.test.ts runs every scenario entry and checks the docs' table.
 *
 * Invariants: names are unique; every entry is caught somewhere — a scenario at given seeds (by
 * at least one of `checkers`), or a test that builds the schedule itself; `--canary` accepts
 * exactly the entries caught by a scenario (`CANARIES`).
 */
import { UserInputError } from "../sim/errors.js";

/** Where a canary is caught: a named scenario at seeds, or a test file that builds its own case. */
export type CaughtBy =
  | { kind: "scenario"; scenario: string; seeds: readonly number[]; checkers: readonly string[] }
  | { kind: "test"; file: string; checkers: readonly string[] };

export interface CanaryEntry {
  name: string;
  /** The layer it breaks: the kernel's network, the ZooKeeper server, its client library, or a recipe. */
  layer: "kernel" | "server" | "client" | "recipe";
  /** What the broken build does wrong. */
  breaks: string;
  caughtBy: readonly CaughtBy[];
}

const scenario = (name: string, seeds: readonly number[], ...checkers: string[]): CaughtBy => ({ kind: "scenario", scenario: name, seeds, checkers });

export const CANARY_REGISTRY = [
  {
    name: "connection-reorder",
    layer: "kernel",
    breaks: "connections deliver out of order (extra random delay, no FIFO)",
    caughtBy: [scenario("kernel-smoke", [1], "kernel.connection-fifo")],
  },
  {
    name: "ack-before-fsync",
    layer: "server",
    breaks: "the server acknowledges a write before its txn is durable",
    caughtBy: [scenario("server-restart-recovery", [1], "zk.standalone-durability", "zk.durable-reply")],
  },
  {
    name: "no-ephemeral-cleanup",
    layer: "server",
    breaks: "closing a session leaves its ephemerals behind",
    caughtBy: [scenario("session-expiry", [1], "scenario.expect"), scenario("recipe-group-membership", [1, 2], "recipe.group"), scenario("recipe-leader-latch", [1, 2], "recipe.election")],
  },
  {
    name: "watch-not-fired",
    layer: "server",
    breaks: "the server never sends NodeDataChanged",
    caughtBy: [scenario("watch-semantics", [1], "scenario.expect", "client.watches"), scenario("reconnect-watches", [1], "scenario.expect"), scenario("recipe-config", [1, 2], "recipe.config")],
  },
  {
    name: "minority-commit",
    layer: "server",
    breaks: "a ZAB leader commits a proposal after a minority of ACKs (its own)",
    caughtBy: [scenario("zab-leader-crash-before-commit", [1], "zab.prefix-consistency", "zab.committed-durability"), scenario("zab-isolated-leader", [1], "zab.prefix-consistency", "zab.committed-durability", "zab.primary-integrity")],
  },
  {
    name: "fuzzy-replay-strict",
    layer: "server",
    breaks: "recovery stops replaying the log at a txn a fuzzy snapshot already holds (a restarted server lacks txns it had logged)",
    caughtBy: [scenario("zab-fuzzy-snapshots", [13, 18], "zab.prefix-consistency", "zab.committed-durability")],
  },
  {
    name: "txnlog-diff-gap",
    layer: "server",
    breaks: "a leader catching a learner up from its on-disk txn log leaves out the first txn it read there",
    caughtBy: [scenario("zab-follower-txnlog-diff", [1], "zab.prefix-consistency")],
  },
  {
    name: "sync-always-snap",
    layer: "server",
    breaks: "a leader sends every learner a SNAP (its whole tree), whatever sync it chose and announced: a learner within its log is not sent the DIFF or TRUNC 3.8 sends",
    caughtBy: [scenario("zab-follower-restart-trunc", [1], "zab.sync-packet")],
  },
  {
    name: "follower-ack-before-fsync",
    layer: "server",
    breaks: "a follower ACKs a proposal as soon as it is appended to its txn log, before the fsync covering it completes",
    caughtBy: [scenario("zab-leader-crash-before-commit", [1], "zab.durable-ack"), scenario("zab-observer", [1], "zab.durable-ack")],
  },
  {
    name: "learner-acks-before-snapshot",
    layer: "server",
    breaks: "a learner synced by SNAP ACKs NEWLEADER as soon as its snapshot is written, before the fsync that makes it durable",
    caughtBy: [scenario("zab-follower-snap", [1], "zab.durable-ack")],
  },
  {
    name: "fuzzy-replay-no-fixup",
    layer: "server",
    breaks: "replay moves a parent's cversion/pzxid unconditionally on create/delete, without the NODEEXISTS fixup (before ZOOKEEPER-1046)",
    caughtBy: [{ kind: "test", file: "test/zk/server/fuzzy-snapshot.test.ts", checkers: ["the replayed tree's digest"] }],
  },
  {
    name: "stale-session-deadlines",
    layer: "server",
    breaks: "a new leader keeps each session's old deadline (its last txn's time + timeout) instead of a fresh timeout from its establishment",
    caughtBy: [scenario("ensemble-session-expiry", [1], "client.session-failover")],
  },
  {
    name: "rare-pings",
    layer: "client",
    breaks: "the client pings once per read timeout instead of twice, so an idle connection with healthy links times out",
    caughtBy: [scenario("watch-semantics", [1], "client.liveness")],
  },
  {
    name: "standard-watch-kept",
    layer: "server",
    breaks: "the server keeps a standard watch after it fires, so the next change notifies it again (the client hands that event to nobody)",
    caughtBy: [scenario("watch-semantics", [1], "client.server-watches")],
  },
  {
    name: "leader-ignores-quorum-loss",
    layer: "server",
    breaks: "a leader that loses its quorum keeps leading and serving instead of giving up after syncLimit ticks",
    caughtBy: [scenario("zab-isolated-leader", [1], "client.timeliness")],
  },
  {
    name: "reconfig-activates-early",
    layer: "server",
    breaks: "a reconfig commits and its config is activated on the old config's quorum alone, before a quorum of the new config ACKed it",
    caughtBy: [scenario("reconfig-add-server", [1], "reconfig.joint-quorum")],
  },
  {
    name: "removed-leader-keeps-leading",
    layer: "server",
    breaks: "a leader removed by a reconfig names itself the designated leader and keeps leading and committing",
    caughtBy: [scenario("reconfig-remove-leader", [1], "reconfig.removed-leader")],
  },
  {
    name: "forget-last-zxid",
    layer: "client",
    breaks: "the client reconnects with lastZxidSeen 0, so a server behind it accepts it instead of refusing it",
    // Accepted by a stale leader, the client's first op in zab-lagging-server is mostly a write,
    // which waits for a quorum the stale leader lacks; zab-lagging-server-reads reads first there.
    caughtBy: [
      scenario("zab-lagging-server-reads", [5, 12], "client.session-order"),
      { kind: "test", file: "test/scenario/lagging-server.test.ts", checkers: ["the stale leader's zk.cnxn.refused / zk.session.established"] },
    ],
  },
  {
    name: "latch-stays-leader",
    layer: "recipe",
    breaks: "a leader latch (and selector) that ignores Disconnected and Expired once elected, and goes on leading after its session expired",
    caughtBy: [scenario("recipe-latch-expiry", [1], "recipe.election")],
  },
  {
    name: "lock-trusts-expired",
    layer: "recipe",
    breaks: "a lock holder that ignores its session's events and goes on trusting the lock after its session expired",
    caughtBy: [scenario("recipe-lock-expiry", [1], "recipe.lock-mutex"), scenario("recipe-lock-pause", [1], "scenario.expect", "recipe.lock-mutex")],
  },
  {
    name: "fle-ignores-zxid",
    layer: "server",
    breaks: "FastLeaderElection orders votes by epoch and sid only, so a voter with a higher sid and a shorter log can be elected",
    caughtBy: [scenario("zab-election-longest-log", [1], "zab.election-most-recent")],
  },
  {
    name: "fle-counts-old-rounds",
    layer: "server",
    breaks: "FastLeaderElection lets a LOOKING vote of an older round move the proposal, instead of dropping it",
    caughtBy: [scenario("zab-rolling-restart", [1], "zab.election-round")],
  },
  {
    name: "established-without-quorum",
    layer: "server",
    breaks: "a leader is established (and serves) on the first learner's NEWLEADER ACK instead of a quorum's",
    caughtBy: [scenario("zab-follower-restart-trunc", [1], "zab.newleader-quorum")],
  },
  {
    name: "latch-ignores-disconnect",
    layer: "recipe",
    breaks: "a leader latch (and selector) that keeps leading while disconnected: it gives leadership up on Expired but does not suspend on Disconnected",
    caughtBy: [scenario("recipe-latch-expiry", [1], "recipe.election")],
  },
  {
    name: "lifo-send",
    layer: "client",
    breaks: "the client writes the requests queued while it had no connection newest first, so a pipelining session's requests are applied out of submission order",
    caughtBy: [scenario("client-pipeline", [1], "client.session-order")],
  },
  {
    name: "queue-takes-on-expiry",
    layer: "recipe",
    breaks: "a queue consumer whose delete fails because its session expired hands the item over as surely taken, though another consumer may have taken it",
    caughtBy: [scenario("recipe-queue-pause", [1], "recipe.queue")],
  },
  {
    name: "read-only-accepts-writes",
    layer: "server",
    breaks: "a server in read-only mode applies and acknowledges writes (without a quorum) instead of answering NOTREADONLY",
    caughtBy: [scenario("read-only-mode", [1], "client.timeliness", "scenario.expect")],
  },
  {
    name: "read-only-serves-any-client",
    layer: "server",
    breaks: "a server in read-only mode accepts a client whose ConnectRequest did not ask for read-only",
    caughtBy: [scenario("read-only-mode", [1], "client.timeliness", "scenario.expect")],
  },
  {
    name: "read-only-sessions-never-expire",
    layer: "server",
    breaks: "a read-only server's local sessions never expire: a silent client's session stays listed (dump) and tracked until the server leaves read-only mode",
    caughtBy: [scenario("read-only-local-expiry", [1], "scenario.expect")],
  },
  {
    name: "multi-misanswered",
    layer: "server",
    breaks: "a failed multi answers OK for the operations after the failing one instead of RUNTIMEINCONSISTENCY",
    caughtBy: [scenario("api-swarm-standalone", [1], "client.linearizability")],
  },
  {
    name: "sequence-from-child-count",
    layer: "server",
    breaks: "a sequential create is numbered by its parent's number of children instead of its stored cversion (numbers come back after deletes)",
    caughtBy: [scenario("api-swarm-standalone", [3], "client.linearizability")],
  },
  {
    name: "delete-checks-node-acl",
    layer: "server",
    breaks: "delete asks for the DELETE permission on the node itself instead of on its parent",
    caughtBy: [scenario("api-swarm-standalone", [3, 4], "client.linearizability")],
  },
  {
    name: "chroot-lost",
    layer: "client",
    breaks: "a chrooted handle sends a multi's operations without its chroot",
    caughtBy: [scenario("api-swarm-standalone", [8], "client.linearizability")],
  },
  {
    name: "delete-fires-data-changed",
    layer: "server",
    breaks: "a delete fires NodeDataChanged at the node's data watches instead of NodeDeleted",
    caughtBy: [scenario("watch-semantics", [1], "client.watch-triggers"), scenario("api-swarm-standalone", [5], "client.watch-triggers")],
  },
  {
    name: "rw-probe-ignored",
    layer: "client",
    breaks: "a read-only client ignores a probe that found a read/write server, so it stays read-only as long as its read-only server does",
    caughtBy: [scenario("read-only-rw-search", [1], "scenario.expect")],
  },
  {
    name: "quota-root-uncounted",
    layer: "server",
    breaks: "a quota root's own node is left out of its usage count, so a hard count limit lets one node too many in",
    caughtBy: [scenario("quota-enforcement", [1], "scenario.expect")],
  },
  {
    name: "snapshot-done-reported-failed",
    layer: "server",
    breaks: "a fuzzy snapshot reports a failed write once its end record is written, though nothing failed (and before its fsync)",
    caughtBy: [scenario("zab-fuzzy-snapshots", [1], "zk.snapshot-policy")],
  },
  {
    name: "snapshot-never-taken",
    layer: "server",
    breaks: "every snapshot trigger is skipped as if a valid snapshot of the current zxid existed: no periodic snapshot is ever written",
    caughtBy: [scenario("zab-fuzzy-snapshots", [1], "zk.snapshot-policy"), scenario("server-restart-recovery", [1], "zk.snapshot-policy")],
  },
  {
    name: "watches-outlive-connection",
    layer: "server",
    breaks: "a closed connection's watches stay registered (a leak: they fire into a closed connection)",
    caughtBy: [scenario("ensemble-reconnect-watches", [1], "zk.watch-leak")],
  },
  {
    name: "names-as-count",
    layer: "client",
    breaks: "the client history records every list of names (getChildren, getEphemerals) as a bare count, so no checker judges the names",
    caughtBy: [scenario("standalone-basics", [1], "client.history-fields")],
  },
  {
    name: "state-cause-dropped",
    layer: "client",
    breaks: "the client history's state changes never say why: a CLOSED handle does not say whether it was closed or its session expired",
    caughtBy: [scenario("session-expiry", [1], "client.history-fields")],
  },
  {
    name: "group-unannounced",
    layer: "recipe",
    breaks: "the group-membership recipe announces nothing (no join, leave or view), so recipe.group has nothing to judge",
    caughtBy: [scenario("recipe-group-membership", [1], "recipe.group-announced")],
  },
  {
    name: "barrier-entry-unannounced",
    layer: "recipe",
    breaks: "the double barrier never announces that a process was released into the computation ('entered')",
    caughtBy: [scenario("recipe-double-barrier", [1], "recipe.barrier")],
  },
  {
    name: "counter-unknown-unannounced",
    layer: "recipe",
    breaks: "the counter never announces an increment a lost session left unknown; it settles it later all the same (resolved-ok / resolved-none)",
    caughtBy: [scenario("recipe-counter", [1], "recipe.counter")],
  },
  {
    name: "removal-untold",
    layer: "client",
    breaks: "a removal of watches takes the watchers out of the client's tables but hands them no ChildWatchRemoved / DataWatchRemoved / PersistentWatchRemoved event",
    caughtBy: [scenario("api-swarm-standalone", [4], "client.watch-removal")],
  },
  {
    name: "ephemerals-prefix-ignored",
    layer: "server",
    breaks: "getEphemerals ignores its prefix and lists every ephemeral of the session",
    caughtBy: [scenario("api-swarm-standalone", [3], "client.linearizability")],
  },
] as const satisfies readonly CanaryEntry[];

export type AnyCanary = (typeof CANARY_REGISTRY)[number]["name"];

/** The canaries a scenario catches: what `--canary` and replay files accept. */
export const CANARIES = [
  "connection-reorder", "ack-before-fsync", "no-ephemeral-cleanup", "watch-not-fired", "minority-commit", "fuzzy-replay-strict", "txnlog-diff-gap", "sync-always-snap",
  "follower-ack-before-fsync", "learner-acks-before-snapshot", "stale-session-deadlines", "rare-pings", "standard-watch-kept", "leader-ignores-quorum-loss",
  "reconfig-activates-early", "removed-leader-keeps-leading",
  "forget-last-zxid", "latch-stays-leader", "lock-trusts-expired",
  "fle-ignores-zxid", "fle-counts-old-rounds", "established-without-quorum",
  "latch-ignores-disconnect", "lifo-send", "queue-takes-on-expiry",
  "read-only-accepts-writes", "read-only-serves-any-client", "read-only-sessions-never-expire",
  "multi-misanswered", "sequence-from-child-count", "delete-checks-node-acl", "chroot-lost", "delete-fires-data-changed",
  "rw-probe-ignored", "quota-root-uncounted", "snapshot-done-reported-failed", "snapshot-never-taken", "watches-outlive-connection",
  "names-as-count", "state-cause-dropped", "group-unannounced", "barrier-entry-unannounced", "counter-unknown-unannounced",
  "removal-untold",
  "ephemerals-prefix-ignored",
] as const satisfies readonly AnyCanary[];
export type Canary = (typeof CANARIES)[number];

/** The canaries the ZooKeeper client library implements (scripts create their clients with them). */
export const CLIENT_CANARIES: readonly AnyCanary[] = CANARY_REGISTRY.filter((c) => c.layer === "client").map((c) => c.name);

/** The canaries the ZooKeeper server implements (the kernel's are set on the simulator). */
export const SERVER_CANARIES: readonly AnyCanary[] = CANARY_REGISTRY.filter((c) => c.layer === "server").map((c) => c.name);


export const isCanary = (name: unknown): name is Canary => typeof name === "string" && (CANARIES as readonly string[]).includes(name);

/** `name` as a canary `--canary` accepts; `at` names the command in the error. */
export function canaryNamed(name: string, at: string): Canary {
  if (isCanary(name)) return name;
  throw new UserInputError(`${at}: unknown canary "${name}" (known: ${CANARIES.join(", ")})`);
}
