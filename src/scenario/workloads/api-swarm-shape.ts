/**
 * What one seed of the whole-API swarm looks like (swarm testing: each seed a different mix, not
 * a fixed hand-picked ratio): the deployment (standalone, or 3 or 5 voters and sometimes an
 * observer), the clients and their sessions, the server settings, and the client workload's plan —
 * which operations are switched off and how the rest are weighed, which create modes, ACLs and
 * credentials are drawn, how fast. Read by the api-swarm workload (it builds the deployment), its
 * script (scripts/whole-api.ts, the plan) and its nemesis (the nodes and the fault phase): a leaf
 * module with its own streams ("api/shape", "api/plan") from the seed's root.
 */
import type { Rng } from "../../sim/rng.js";
import { intParam } from "../workload.js";

/** Every call of the client API the whole-API actors draw (scripts/api-actor.ts). */
export const API_OPS = [
  "create", "create2", "delete", "setData", "getData", "exists", "getChildren", "getChildren2",
  "multi", "multiRead", "sync", "getACL", "setACL", "addAuth", "whoAmI", "getEphemerals",
  "getAllChildrenNumber", "watch", "addWatch", "removeWatches", "special", "pipeline", "close",
  "reattach", "idle",
] as const;
export type ApiOp = (typeof API_OPS)[number];

/** The create modes, by their `CreateMode` names. */
export const CREATE_MODES = [
  "PERSISTENT", "EPHEMERAL", "PERSISTENT_SEQUENTIAL", "EPHEMERAL_SEQUENTIAL", "CONTAINER", "PERSISTENT_WITH_TTL", "PERSISTENT_SEQUENTIAL_WITH_TTL",
] as const;
export type CreateModeName = (typeof CREATE_MODES)[number];

/** The kinds of ACL an actor asks for (scripts/api-draws.ts builds each). */
export const ACL_KINDS = ["open", "read-only", "creator", "digest", "ip", "mixed", "invalid"] as const;
export type AclKind = (typeof ACL_KINDS)[number];

export interface ApiShape {
  /** 1: a standalone server; otherwise an ensemble of this many voters. */
  servers: number;
  observers: number;
  clients: number;
  tickTimeMs: number;
  /** The leader's ContainerManager period: small, so containers and TTL nodes are reaped within a run. */
  containerCheckIntervalMs: number;
  /** `snapCount`, when drawn small (2–100): snapshots roll the txn log in the middle of the faults; else the default. */
  snapCount: number | undefined;
  /** `autopurge.snapRetainCount` (1–3: old snapshots and logs purged after each snapshot), or 0: autopurge off. */
  purgeSnapRetainCount: number;
  /** `minSessionTimeout` / `maxSessionTimeout`, when drawn (else 2 and 20 ticks): handles ask for timeouts on both sides of them. */
  minSessionTimeoutMs: number | undefined;
  maxSessionTimeoutMs: number | undefined;
}

export interface ApiPlan {
  faultPhaseMs: number;
  /** Subtrees /wa/t0 … under the root, each a chroot some handles use. */
  subtrees: number;
  /** Names per level (n0 …) below a subtree; two levels deep. */
  names: number;
  /** Handles (sessions) each client node keeps open at once. */
  sessionsPerClient: number;
  /** Share of handles made with a chroot (one of the subtrees). */
  chrootShare: number;
  /** Each handle asks for a timeout drawn in this range (the servers negotiate it into their bounds). */
  sessionTimeoutMs: readonly [number, number];
  /** Share of connect-string hosts written without a port (the client's default port then). */
  hostOnlyShare: number;
  opGapMsMax: number;
  /** Every op's weight: 0 switches it off for this seed. */
  weights: Record<ApiOp, number>;
  modes: Record<CreateModeName, number>;
  acls: Record<AclKind, number>;
  /** A TTL node's ttl is drawn in [1, ttlMsMax]. */
  ttlMsMax: number;
}

/** The deployment of a seed; `ensemble` picks between the two scenario families. */
export function apiShapeOf(root: Rng, ensemble: boolean): ApiShape {
  const rng = root.fork("api").fork("shape");
  const servers = ensemble ? (rng.chance(0.6) ? 3 : 5) : 1;
  const observers = ensemble && rng.chance(0.25) ? 1 : 0;
  const clients = rng.int(2, 4);
  const tickTimeMs = rng.chance(0.5) ? 1000 : 2000;
  const containerCheckIntervalMs = rng.int(500, 5000);
  // Server settings (drawn after the deployment, so a seed's deployment is what it was before
  // they were drawn): small snapCounts with autopurge, and session timeout bounds.
  const snapCount = rng.chance(0.5) ? rng.int(2, 100) : undefined;
  const purgeSnapRetainCount = rng.chance(0.5) ? rng.int(1, 3) : 0;
  const bounded = rng.chance(0.5);
  const minSessionTimeoutMs = bounded ? rng.int(tickTimeMs, 3 * tickTimeMs) : undefined;
  const maxSessionTimeoutMs = bounded ? rng.int(Math.max(minSessionTimeoutMs!, 5 * tickTimeMs), 30 * tickTimeMs) : undefined;
  return { servers, observers, clients, tickTimeMs, containerCheckIntervalMs, snapCount, purgeSnapRetainCount, minSessionTimeoutMs, maxSessionTimeoutMs };
}

/** The workload's plan of a seed (the "api/plan" stream). */
export function apiPlanOf(root: Rng, faultPhaseMs?: number): ApiPlan {
  const rng = root.fork("api").fork("plan");
  const weigh = <K extends string>(keys: readonly K[], off: number, max: number) => Object.fromEntries(keys.map((k) => [k, rng.chance(off) ? 0 : rng.int(1, max)])) as Record<K, number>;
  const weights = weigh(API_OPS, 0.25, 10);
  // A seed with nothing that writes would only read the empty subtrees.
  if (weights.create + weights.create2 + weights.multi === 0) weights.create = 5;
  const modes = weigh(CREATE_MODES, 0.2, 6);
  if (Object.values(modes).every((w) => w === 0)) modes.PERSISTENT = 1;
  const acls = weigh(ACL_KINDS, 0.3, 5);
  acls.open += rng.int(2, 12);
  const timeoutMin = rng.int(4000, 10_000);
  const plan = {
    faultPhaseMs: faultPhaseMs ?? rng.int(10_000, 30_000),
    subtrees: rng.int(2, 4),
    names: rng.int(2, 5),
    sessionsPerClient: rng.int(1, 3),
    chrootShare: rng.pick([0, 0.3, 0.7]),
    sessionTimeoutMs: [timeoutMin, timeoutMin + rng.int(0, 8000)] as readonly [number, number],
    opGapMsMax: rng.int(20, 500),
    weights,
    modes,
    acls,
    ttlMsMax: rng.int(100, 8000),
    hostOnlyShare: 0,
  };
  // Drawn last, so every draw above is what it was before these were added: half the seeds ask
  // for timeouts from 0.5 s to 70 s (below and above any bounds the servers drew: each session
  // of a run then has its own timeout), and connect strings name hosts with and without ports.
  if (rng.chance(0.5)) plan.sessionTimeoutMs = [rng.int(500, 4000), rng.int(20_000, 70_000)];
  plan.hostOnlyShare = rng.pick([0, 0.5, 1]);
  return plan;
}

/** Picks a key by weight (the draw is `int(1, total)`), or undefined when every weight is 0. */
export function pickWeighted<K extends string>(rng: Rng, weights: Readonly<Record<K, number>>, keys: readonly K[]): K | undefined {
  const total = keys.reduce((a, k) => a + weights[k], 0);
  if (total === 0) return undefined;
  let x = rng.int(1, total);
  for (const k of keys) if ((x -= weights[k]) <= 0) return k;
  return undefined;
}

/** The `faultPhaseMs` an api-swarm scenario sets, if any. */
export function apiFaultPhaseMs(params: Record<string, unknown>): number | undefined {
  return params.faultPhaseMs === undefined ? undefined : intParam(params, "faultPhaseMs", 20_000, 1000, 600_000);
}
