/**
 * Workload "api-swarm": the whole client API under faults, judged against the reference model —
 * swarm testing (TigerBeetle's VOPR): the run's seed picks the deployment (api-swarm-shape.ts:
 * with `"ensemble": true` 3 or 5 voters and sometimes an observer, else one standalone server),
 * the clients, the servers' container-check period, and the client workload's plan. The "zk"
 * workload then builds it and runs the `whole-api` script; the faults are the scenario's
 * `api-swarm` nemesis (src/scenario/nemesis/api-swarm.ts), drawn before the run.
 *
 * Every server runs with TTL nodes allowed (`extendedTypesEnabled`) and the super digest of the
 * actors' super user, so the model knows both (`workload.zk-config`). `faultPhaseMs`, when given,
 * replaces the drawn length of the fault phase (the script and the nemesis read it alike).
 *
 * `nodes()` returns the largest shape (the names a fault schedule may use); a run adds only the
 * nodes its seed chose. Every kernel, server (ZAB or standalone), client and session checker runs.
 */
import { UserInputError } from "../../sim/errors.js";
import type { Workload, WorkloadContext, WorkloadDef } from "../workload.js";
import { SUPER_DIGEST } from "../scripts/api-draws.js";
import { apiFaultPhaseMs, apiShapeOf, type ApiShape } from "./api-swarm-shape.js";
import { ZAB_TRACE_ROLES, zkWorkload } from "./zk.js";
import { API_COVERAGE } from "./zab-coverage.js";

const KNOWN_PARAMS = ["ensemble", "faultPhaseMs"];
const MAX_VOTERS = 5;
const MAX_OBSERVERS = 1;
const MAX_CLIENTS = 4;

function ensembleParam(params: Record<string, unknown>): boolean {
  const v = params.ensemble;
  if (v === undefined) return false;
  if (typeof v !== "boolean") throw new UserInputError(`workload.ensemble: expected true or false, got ${JSON.stringify(v)}`);
  return v;
}

/** The deployment a seed picks for these workload parameters. */
export function apiShape(w: Pick<WorkloadContext, "sim" | "params">): ApiShape {
  return apiShapeOf(w.sim.rng, ensembleParam(w.params));
}

export const apiSwarmWorkload: WorkloadDef = {
  kind: "api-swarm",
  description: "the whole client API from seed-weighed actors against a standalone server or an ensemble under drawn faults, judged by the reference model",
  nodes(params) {
    for (const k of Object.keys(params)) {
      if (!KNOWN_PARAMS.includes(k)) throw new UserInputError(`workload: unknown parameter "${k}" for kind "api-swarm" (known: ${KNOWN_PARAMS.join(", ")})`);
    }
    const ensemble = ensembleParam(params);
    apiFaultPhaseMs(params);
    const servers = ensemble ? MAX_VOTERS + MAX_OBSERVERS : 1;
    return [...Array.from({ length: servers }, (_, i) => `s${i + 1}`), ...Array.from({ length: MAX_CLIENTS }, (_, i) => `c${i + 1}`)];
  },
  defaultCheckers(params) {
    return zkWorkload.defaultCheckers({ script: "whole-api", servers: ensembleParam(params) ? 3 : 1 });
  },
  traceRoles: ZAB_TRACE_ROLES,
  coverage: API_COVERAGE,
  create(w: WorkloadContext): Workload {
    apiSwarmWorkload.nodes(w.params);
    const shape = apiShape(w);
    const params: Record<string, unknown> = {
      script: "whole-api",
      servers: shape.servers,
      observers: shape.observers,
      clients: shape.clients,
      tickTimeMs: shape.tickTimeMs,
      containerCheckIntervalMs: shape.containerCheckIntervalMs,
      extendedTypesEnabled: true,
      superDigest: SUPER_DIGEST,
      purgeSnapRetainCount: shape.purgeSnapRetainCount,
    };
    if (shape.snapCount !== undefined) params.snapCount = shape.snapCount;
    if (shape.minSessionTimeoutMs !== undefined) params.minSessionTimeoutMs = shape.minSessionTimeoutMs;
    if (shape.maxSessionTimeoutMs !== undefined) params.maxSessionTimeoutMs = shape.maxSessionTimeoutMs;
    if (w.params.faultPhaseMs !== undefined) params.faultPhaseMs = w.params.faultPhaseMs;
    const inner = zkWorkload.create({ ...w, params });
    const deployment = shape.servers === 1 ? "a standalone server" : `${shape.servers} voters, ${shape.observers} observer(s)`;
    const settings = [
      `snapCount ${shape.snapCount ?? "default"}`,
      `autopurge.snapRetainCount ${shape.purgeSnapRetainCount}`,
      shape.minSessionTimeoutMs === undefined ? "session timeouts 2–20 ticks" : `session timeouts ${shape.minSessionTimeoutMs}–${shape.maxSessionTimeoutMs} ms`,
    ];
    return {
      setup: () => inner.setup(),
      finish: () => inner.finish?.() ?? Promise.resolve(),
      narrative: () => [`shape: ${deployment}, ${shape.clients} clients, tickTimeMs ${shape.tickTimeMs}, container check every ${shape.containerCheckIntervalMs} ms, ${settings.join(", ")}`, ...(inner.narrative?.() ?? [])],
    };
  },
};
