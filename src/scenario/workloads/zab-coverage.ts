/**
 * The protocol states a ZooKeeper ensemble's sweep reports reaching (scenario/coverage.ts):
 * elections and leader changes, each ZAB phase and sync mode (DIFF, TRUNC, SNAP, a snapshot
 * loaded, a log truncated), a learner refusing a leader (its acceptedEpoch ahead), a learner
 * rejected, sessions expired and seen expired by their client, a fuzzy snapshot, read-only mode,
 * observers. Node classes: servers `s…`, clients `c…`. The zk workload, which also runs the
 * recipes, adds the recipes' states (`ZK_COVERAGE`: a lock lost, a leader suspended, a queue item
 * taken unsure, a barrier passed…).
 */
import { isOfKind, type TraceEvent } from "../../sim/trace.js";
import type { TraceKind } from "../../sim/trace-schema.js";
import type { CoverageDef, CoverageProbe } from "../coverage.js";

function on<K extends TraceKind>(name: string, kind: K, test: (e: TraceEvent<K>) => boolean = () => true, count?: number): CoverageProbe {
  return { name, kinds: [kind], test: (e) => isOfKind(e, kind) && test(e), ...(count !== undefined ? { count } : {}) };
}

const PROBES: readonly CoverageProbe[] = [
  on("election", "fle.elected"),
  on("leader change", "zab.leader.established", () => true, 2),
  on("three or more leaders", "zab.leader.established", () => true, 3),
  on("phase DISCOVERY", "zab.phase", (e) => e.fields.phase === "DISCOVERY"),
  on("phase SYNCHRONIZATION", "zab.phase", (e) => e.fields.phase === "SYNCHRONIZATION"),
  on("phase BROADCAST", "zab.phase", (e) => e.fields.phase === "BROADCAST"),
  on("sync DIFF", "zab.sync", (e) => e.fields.mode === "DIFF" && e.fields.learner !== undefined),
  on("sync DIFF from the txn log", "zab.sync", (e) => e.fields.mode === "DIFF" && e.fields.txnLog === true),
  on("sync TRUNC", "zab.sync", (e) => e.fields.mode === "TRUNC" && e.fields.learner !== undefined),
  on("sync SNAP", "zab.sync", (e) => e.fields.mode === "SNAP" && e.fields.learner !== undefined),
  on("learner truncated its log", "zab.truncate"),
  on("learner loaded a snapshot", "zab.snap.load"),
  on("learner refused a leader below its acceptedEpoch", "zab.role.ended", (e) => e.fields.reason.includes("below my acceptedEpoch")),
  on("leader rejected a more recent learner", "zab.learner.rejected"),
  on("leader lost its quorum", "zab.role.ended", (e) => e.fields.state === "LEADING"),
  on("observer", "zab.state", (e) => e.fields.state === "OBSERVING"),
  on("session expired", "zk.session.expire"),
  on("client saw its session expire", "client.state", (e) => e.fields.state === "CLOSED" && e.fields.cause === "expired"),
  on("session moved", "zk.session.moved"),
  on("fuzzy snapshot", "zk.snapshot.done", (e) => e.fields.err === undefined),
  on("read-only mode", "zk.readonly.start"),
  on("server fatal stop", "zk.server.fatal"),
];

/** The quorum and election messages a crash may follow (as the zab-swarm nemesis aims them). */
const ZAB_MESSAGE_TYPES = ["fle.notification", "FOLLOWERINFO", "OBSERVERINFO", "LEADERINFO", "ACKEPOCH", "DIFF", "TRUNC", "SNAP", "NEWLEADER", "UPTODATE", "PROPOSAL", "ACK", "COMMIT", "INFORM", "REQUEST", "PING"];

export const ZAB_COVERAGE: CoverageDef = {
  probes: PROBES,
  messageTypes: ZAB_MESSAGE_TYPES,
  classes: ["server", "client"],
  nodeClass: (node) => (node.startsWith("s") ? "server" : node.startsWith("c") ? "client" : undefined),
};

/** The recipe kinds whose events name what happened (`event`). */
type RecipeStateKind = "recipe.lock" | "recipe.rwlock" | "recipe.revoke" | "recipe.election" | "recipe.barrier" | "recipe.queue" | "recipe.counter" | "recipe.group" | "recipe.config" | "recipe.naming" | "recipe.2pc";

/** The recipe states a recipe scenario's sweep reports (src/recipes/trace-events.ts): kind, then event. */
const RECIPE_STATES: readonly (readonly [kind: RecipeStateKind, event: string])[] = [
  ["recipe.lock", "acquired"], ["recipe.lock", "waiting"], ["recipe.lock", "lost"], ["recipe.lock", "abandoned"],
  ["recipe.rwlock", "acquired"], ["recipe.revoke", "requested"],
  ["recipe.election", "elected"], ["recipe.election", "suspended"], ["recipe.election", "lost"],
  ["recipe.barrier", "passed"], ["recipe.barrier", "left"],
  ["recipe.queue", "take"], ["recipe.queue", "dropped"],
  ["recipe.counter", "increment"], ["recipe.group", "view"], ["recipe.config", "seen"], ["recipe.naming", "assigned"], ["recipe.2pc", "decided"],
];

/** The zk workload's coverage: ZooKeeper's states and the recipes'. */
export const ZK_COVERAGE: CoverageDef = {
  ...ZAB_COVERAGE,
  probes: [...PROBES, ...RECIPE_STATES.map(([kind, event]) => on(`${kind.slice("recipe.".length)} ${event}`, kind, (e: TraceEvent<RecipeStateKind>) => e.fields.event === event))],
};

/** The whole-API swarm's states: the ensemble's, and the nodes its ContainerManager reaped (empty containers, expired TTL nodes). */
export const API_COVERAGE: CoverageDef = {
  ...ZAB_COVERAGE,
  probes: [...PROBES, on("container or TTL node reaped", "zk.container.reap")],
};
