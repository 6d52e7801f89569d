/**
 * Workload "zk": a ZooKeeper deployment — one standalone server `s1`, or an ensemble of
 * `servers` voters and `observers` observers (`s1`…, voters first) — and client nodes (`c1`…),
 * driven by a named script. Server settings come from the scenario:
 * `{"kind": "zk", "script": "session-expiry", "servers": 3, "clients": 3, "tickTimeMs": 2000, "snapCount": 50}`.
 * `bugs` (the run's `--bug` ids) must be bug-zoo ids; the quorum peers re-inject them.
 */
import { ZK_COVERAGE } from "./zab-coverage.js";
import { UserInputError } from "../../sim/errors.js";
import type { TraceRoles } from "../../sim/fault-triggers.js";
import { ZooKeeperServer, type ZooKeeperServerConfig, type ServerCanary } from "../../zk/server/zoo-keeper-server.js";
import { DEFAULT_AUTH_PROVIDERS } from "../../zk/server/acl.js";
import { QuorumPeer, DEFAULT_QUORUM_CONFIG } from "../../zk/server/quorum/quorum-peer.js";
import { QUORUM_TIMING_FIELDS, QUORUM_TIMING_MIN, QUORUM_TIMING_PROFILES, resolveQuorumTiming, type QuorumTiming, type QuorumTimingChoice, type QuorumTimingProfile } from "../../zk/server/quorum/quorum-timing.js";
import { bugIdSet } from "../../zk/server/bug-id.js";
import type { QuorumServer } from "../../zk/server/quorum/quorum-verifier.js";
import { intParam, type Workload, type WorkloadContext, type WorkloadDef } from "../workload.js";
import { makeScriptContext } from "../scripts/script.js";
import { KERNEL_CHECKERS } from "./kernel-traffic.js";
import { ZAB_CHECKERS } from "../../check/zab/index.js";
import { RECONFIG_CHECKERS } from "../../check/reconfig/index.js";
import { CLIENT_CHECKERS } from "../../check/client/index.js";
import { DEFAULT_SYNC_LIMIT_TICKS } from "../../check/client/timeliness.js";
import { RECIPE_CHECKERS } from "../../check/recipes/index.js";
import { scriptNamed, scriptNames } from "../scripts/index.js";
import type { ScriptDef } from "../scripts/script.js";
import { RECIPE_PARAMS, checkRecipeParams } from "../scripts/recipe-support.js";
import { SERVER_CANARIES } from "../canaries.js";
import type { TraceAnnotations } from "../../sim/trace-schema.js";
import "../trace-events.js";

/**
 * Roles a fault schedule may name (`$leader`), read from the trace: a server leads from its
 * `zab.leader.established` until its role ends, its state changes or it crashes. Servers
 * announce their myid as `sid` in `zab.state`, which resolves `$i.learner`-style references.
 */
export const ZAB_TRACE_ROLES: TraceRoles = {
  roles: [{ role: "leader", takenBy: ["zab.leader.established"], endedBy: ["zab.role.ended", "zab.state", "crash"] }],
  idKinds: ["zab.state"],
};


function scriptParam(params: Record<string, unknown>): string {
  const name = params.script;
  if (typeof name !== "string") throw new UserInputError(`workload.script: expected a script name (one of ${scriptNames().join(", ")})`);
  scriptNamed(name);
  return name;
}

export function serverConfig(params: Record<string, unknown>): Partial<ZooKeeperServerConfig> {
  const out: Partial<ZooKeeperServerConfig> = {};
  const tick = intParam(params, "tickTimeMs", 2000, 1, 600_000);
  out.tickTimeMs = tick;
  if (params.snapCount !== undefined) out.snapCount = intParam(params, "snapCount", 10_000, 1, 10_000_000);
  if (params.snapChunkNodes !== undefined) out.snapChunkNodes = intParam(params, "snapChunkNodes", 500, 1, 10_000_000);
  if (params.snapChunkIntervalUs !== undefined) out.snapChunkIntervalUs = intParam(params, "snapChunkIntervalUs", 1_000, 0, 10_000_000);
  if (params.purgeSnapRetainCount !== undefined) out.purgeSnapRetainCount = intParam(params, "purgeSnapRetainCount", 0, 0, 1000);
  if (params.snapshotSizeFactor !== undefined) out.snapshotSizeFactor = snapshotSizeFactorParam(params.snapshotSizeFactor);
  if (params.minSessionTimeoutMs !== undefined) out.minSessionTimeoutMs = intParam(params, "minSessionTimeoutMs", 2 * tick, 1, 10_000_000);
  if (params.maxSessionTimeoutMs !== undefined) out.maxSessionTimeoutMs = intParam(params, "maxSessionTimeoutMs", 20 * tick, 1, 10_000_000);
  if (params.containerCheckIntervalMs !== undefined) out.containerCheckIntervalMs = intParam(params, "containerCheckIntervalMs", 60_000, 0, 10_000_000);
  if (params.localSessionsEnabled !== undefined) {
    if (typeof params.localSessionsEnabled !== "boolean") throw new UserInputError(`workload.localSessionsEnabled: expected true or false, got ${JSON.stringify(params.localSessionsEnabled)}`);
    out.localSessionsEnabled = params.localSessionsEnabled;
  }
  if (params.extendedTypesEnabled !== undefined) {
    if (typeof params.extendedTypesEnabled !== "boolean") throw new UserInputError(`workload.extendedTypesEnabled: expected true or false, got ${JSON.stringify(params.extendedTypesEnabled)}`);
    out.extendedTypesEnabled = params.extendedTypesEnabled;
  }
  if (params.enforceQuota !== undefined) {
    if (typeof params.enforceQuota !== "boolean") throw new UserInputError(`workload.enforceQuota: expected true or false, got ${JSON.stringify(params.enforceQuota)}`);
    out.enforceQuota = params.enforceQuota;
  }
  if (params.reconfigEnabled !== undefined) out.reconfigEnabled = booleanParam(params, "reconfigEnabled");
  if (params.superDigest !== undefined) {
    if (typeof params.superDigest !== "string") throw new UserInputError(`workload.superDigest: expected "user:base64digest"`);
    out.superDigest = params.superDigest;
  }
  if (params.authProviders !== undefined) out.authProviders = new Set([...DEFAULT_AUTH_PROVIDERS, ...stringsParam(params, "authProviders", ["sasl"])]);
  if (params.saslUsers !== undefined) {
    const users = params.saslUsers;
    if (typeof users !== "object" || users === null || Array.isArray(users) || Object.values(users).some((p) => typeof p !== "string")) {
      throw new UserInputError(`workload.saslUsers: expected {"user": "password", …} (the JAAS Server section's user_<name> entries)`);
    }
    out.saslUsers = new Map(Object.entries(users as Record<string, string>));
  }
  if (params.saslSuperUsers !== undefined) out.saslSuperUsers = stringsParam(params, "saslSuperUsers");
  return out;
}

/** A list of strings (from `allowed`, when given). */
function stringsParam(params: Record<string, unknown>, name: string, allowed?: readonly string[]): string[] {
  const v = params[name];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string" || (allowed !== undefined && !allowed.includes(x)))) {
    throw new UserInputError(`workload.${name}: expected a list of ${allowed === undefined ? "strings" : allowed.map((a) => `"${a}"`).join(", ")}, got ${JSON.stringify(v)}`);
  }
  return v as string[];
}

/** `zookeeper.snapshotSizeFactor`: a number up to 1; negative turns txn-log sync off. */
function snapshotSizeFactorParam(v: unknown): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v > 1) throw new UserInputError(`workload.snapshotSizeFactor: expected a number ≤ 1 (negative disables txn-log sync), got ${JSON.stringify(v)}`);
  return v;
}

/** The deployment's parameters (shape and server settings), whatever drives it. */
export const ENSEMBLE_PARAMS = ["clients", "servers", "observers", "initLimitTicks", "syncLimitTicks", "tickTimeMs", "snapCount", "snapChunkNodes", "snapChunkIntervalUs", "snapshotSizeFactor", "purgeSnapRetainCount", "minSessionTimeoutMs", "maxSessionTimeoutMs", "containerCheckIntervalMs", "superDigest", "authProviders", "saslUsers", "saslSuperUsers", "extendedTypesEnabled", "enforceQuota", "readOnlyMode", "localSessionsEnabled", "quorumTiming", "reconfigEnabled", "standaloneEnabled", "joiners", ...QUORUM_TIMING_FIELDS];

/**
 * The election and leader-connect timings a scenario sets: `quorumTiming` names the profile
 * ("zksim-classic", the default that every existing seed was pinned with, or "zookeeper-3.8"),
 * and `leaderConnectDelayDuringRetryMs`, `minNotificationIntervalMs`, … (the fields of
 * quorum-timing.ts, 3.8's settings) override it.
 */
export function quorumTimingParams(params: Record<string, unknown>, dfltProfile: QuorumTimingProfile = "zksim-classic"): QuorumTimingChoice {
  const name = params.quorumTiming ?? dfltProfile;
  if (!QUORUM_TIMING_PROFILES.includes(name as QuorumTimingProfile)) {
    throw new UserInputError(`workload.quorumTiming: expected one of ${QUORUM_TIMING_PROFILES.map((p) => `"${p}"`).join(", ")}, got ${JSON.stringify(name)}`);
  }
  const profile = name as QuorumTimingProfile;
  const base = resolveQuorumTiming({ profile });
  const settings: Partial<QuorumTiming> = {};
  for (const field of QUORUM_TIMING_FIELDS) {
    if (params[field] !== undefined) settings[field] = intParam(params, field, base[field], QUORUM_TIMING_MIN[field], 10_000_000);
  }
  return { profile, settings };
}

/** `readOnlyMode` (3.8's `readonlymode.enabled`): true or false (the default), for ensembles only. */
export function readOnlyModeParam(params: Record<string, unknown>): boolean {
  const v = params.readOnlyMode;
  if (v === undefined) return false;
  if (typeof v !== "boolean") throw new UserInputError(`workload.readOnlyMode: expected true or false, got ${JSON.stringify(v)}`);
  if (v && shape(params).servers.length + shape(params).observers.length < 2) throw new UserInputError("workload.readOnlyMode: read-only mode needs an ensemble (servers ≥ 2)");
  return v;
}
const KNOWN_PARAMS = ["script", ...ENSEMBLE_PARAMS, ...RECIPE_PARAMS];

export interface Shape {
  servers: string[];
  observers: string[];
  clients: string[];
}

function booleanParam(params: Record<string, unknown>, key: string): boolean {
  const v = params[key];
  if (typeof v !== "boolean") throw new UserInputError(`workload.${key}: expected true or false, got ${JSON.stringify(v)}`);
  return v;
}

/** `joiners`: how many of the last voters start outside the initial config (reconfig scenarios add them). */
function joinersParam(params: Record<string, unknown>, sh: Shape): string[] {
  if (params.joiners === undefined) return [];
  const n = intParam(params, "joiners", 0, 0, 8);
  if (n > 0 && params.reconfigEnabled !== true) throw new UserInputError("workload.joiners: joiners are added by reconfig, which needs reconfigEnabled: true");
  if (n >= sh.servers.length) throw new UserInputError(`workload.joiners: ${n} joiners leave no initial voter among ${sh.servers.length} servers`);
  return sh.servers.slice(sh.servers.length - n);
}

export function shape(params: Record<string, unknown>): Shape {
  const voters = intParam(params, "servers", 1, 1, 9);
  const observers = intParam(params, "observers", 0, 0, 9);
  if (voters === 1 && observers > 0) throw new UserInputError("workload.observers: observers need an ensemble (servers ≥ 2)");
  const clients = intParam(params, "clients", 2, 1, 50);
  const all = Array.from({ length: voters + observers }, (_, i) => `s${i + 1}`);
  return { servers: all.slice(0, voters), observers: all.slice(voters), clients: Array.from({ length: clients }, (_, i) => `c${i + 1}`) };
}

export const zkWorkload: WorkloadDef = {
  kind: "zk",
  description: "a ZooKeeper server or ensemble and client nodes driven by a named script",
  nodes(params) {
    const script = scriptNamed(scriptParam(params));
    const known = [...KNOWN_PARAMS, ...(script.paramKeys ?? [])];
    for (const k of Object.keys(params)) {
      if (!known.includes(k)) throw new UserInputError(`workload: unknown parameter "${k}" for kind "zk" with script "${script.name}" (known: ${known.join(", ")})`);
    }
    script.checkParams?.(params);
    checkRecipeParams(params);
    ensembleNodes(params);
    const sh = shape(params);
    const range = script.clientRange;
    if (range !== undefined && (sh.clients.length < range[0] || sh.clients.length > range[1])) {
      throw new UserInputError(`workload.clients: script "${script.name}" runs with ${range[0]} to ${range[1]} clients, got ${sh.clients.length}`);
    }
    return [...sh.servers, ...sh.observers, ...sh.clients];
  },
  defaultCheckers(params) {
    // Recipe scripts: the recipe checkers of the annotations they write (all, if unnamed).
    const script = scriptNamed(scriptParam(params));
    const recipes = script.name.startsWith("recipe-") ? [...(script.recipeCheckers ?? RECIPE_CHECKERS.keys())] : [];
    return [...ensembleCheckers(params), ...recipes];
  },
  traceRoles: ZAB_TRACE_ROLES,
  coverage: ZK_COVERAGE,
  create(w: WorkloadContext): Workload {
    zkWorkload.nodes(w.params);
    return ensembleWorkload(w, scriptNamed(scriptParam(w.params)));
  },
};

/**
 * The kernel's checkers, the client histories' always; standalone: acknowledged writes survive
 * restarts and are answered only once durable; ensembles: the ZAB invariants (and, with
 * reconfigEnabled, the reconfig ones); both: no txn of a
 * session after its closeSession (zk.session-txns), the snapshot policy (zk.snapshot-policy), no
 * watch kept past its connection's close (zk.watch-leak).
 */
export function ensembleCheckers(params: Record<string, unknown>): string[] {
  const reconfig = params.reconfigEnabled === true ? [...RECONFIG_CHECKERS.keys()] : [];
  const server = shape(params).servers.length > 1 ? [...ZAB_CHECKERS.keys(), ...reconfig] : ["zk.standalone-durability", "zk.durable-reply"];
  // client.timeliness bounds a lost server by the default syncLimit: not run with another.
  const client = [...CLIENT_CHECKERS.keys()].filter((n) => n !== "client.timeliness" || params.syncLimitTicks === undefined || params.syncLimitTicks === DEFAULT_SYNC_LIMIT_TICKS);
  return [...KERNEL_CHECKERS, ...server, "zk.session-txns", "zk.snapshot-policy", "zk.watch-leak", ...client];
}

/**
 * `workload.zk-config`, when the run sets what a history checker must know to judge ACL and TTL
 * answers (a super digest, TTL nodes allowed): those settings and each client node's address.
 */
function recordZkConfig(w: WorkloadContext, config: Partial<ZooKeeperServerConfig>, clients: readonly string[]): void {
  if (config.superDigest === undefined && config.extendedTypesEnabled === undefined) return;
  const fields: TraceAnnotations["workload.zk-config"] = { clients: clients.map((id) => `${id}=${w.sim.node(id).context!.addressOf(id)}`) };
  if (config.superDigest !== undefined) fields.superDigest = config.superDigest;
  if (config.extendedTypesEnabled !== undefined) fields.extendedTypesEnabled = config.extendedTypesEnabled;
  w.sim.trace.record(w.sim.nowUs, "workload.zk-config", "", undefined, undefined, undefined, fields);
}

/**
 * Checks the deployment's parameters (shape, timing, server settings; throwing UserInputError)
 * and returns its node names: servers, observers, clients.
 */
export function ensembleNodes(params: Record<string, unknown>): string[] {
  serverConfig(params);
  readOnlyModeParam(params);
  quorumTimingParams(params);
  intParam(params, "initLimitTicks", 10, 1, 1000);
  intParam(params, "syncLimitTicks", 5, 1, 1000);
  const sh = shape(params);
  return [...sh.servers, ...sh.observers, ...sh.clients];
}

/**
 * The deployment of `w.params` (validated already) driven by `script`: the servers or the
 * ensemble, the client nodes, and the script started at virtual time 0. A script that throws or
 * never finishes is a `scenario.script` violation. The zk workload runs its named scripts through
 * this; the public API (src/api/) runs a user's script through it.
 */
export function ensembleWorkload(w: WorkloadContext, script: ScriptDef): Workload {
  const sh = shape(w.params);
  const ids = [...sh.servers, ...sh.observers, ...sh.clients];
  const servers = [...sh.servers, ...sh.observers];
  const clients = sh.clients;
  const ensemble = servers.length > 1;
  const config = serverConfig(w.params);
  const canary = w.canary !== undefined && SERVER_CANARIES.includes(w.canary) ? (w.canary as ServerCanary) : undefined;
  const narrative: string[] = [];
  let finished = false;
  let lastNote = "(start)";
  return {
    setup() {
      const all: QuorumServer[] = servers.map((host, i) => ({ sid: i + 1, host, role: sh.observers.includes(host) ? "observer" : "participant" }));
      // Joiners (dynamic reconfiguration): the last `joiners` voters start outside the initial
      // config, each with that config plus itself, as a 3.5+ server about to be added is started.
      const joiners = joinersParam(w.params, sh);
      const initial = all.filter((m) => !joiners.includes(m.host));
      const membersOf = (host: string, i: number): QuorumServer[] => (joiners.includes(host) ? [...initial, all[i]!] : initial);
      // The parameters every server's start reads, parsed once: a node's factory runs again at
      // each restart, and the peer keeps (never changes) what it is given.
      const quorum = ensemble
        ? {
            ...DEFAULT_QUORUM_CONFIG,
            tickTimeMs: config.tickTimeMs ?? 2000,
            initLimitTicks: intParam(w.params, "initLimitTicks", 10, 1, 1000),
            syncLimitTicks: intParam(w.params, "syncLimitTicks", 5, 1, 1000),
            bugs: bugIdSet(w.bugs ?? []),
            timing: quorumTimingParams(w.params),
            ...(readOnlyModeParam(w.params) ? { readOnlyModeEnabled: true } : {}),
            ...(config.reconfigEnabled === true ? { reconfigEnabled: true } : {}),
            ...(w.params.standaloneEnabled !== undefined ? { standaloneEnabled: booleanParam(w.params, "standaloneEnabled") } : {}),
          }
        : undefined;
      servers.forEach((id, i) => {
        const server = { ...config, serverId: i + 1, ...(canary ? { canary } : {}) };
        const peerConfig = quorum === undefined ? undefined : { ...quorum, myid: i + 1, members: membersOf(id, i), server };
        w.sim.addNode(id, (ctx) => (peerConfig !== undefined ? new QuorumPeer(ctx, peerConfig) : new ZooKeeperServer(ctx, server)), w.scenario.disk);
      });
      for (const id of clients) w.sim.addNode(id, () => ({}), w.scenario.disk);
      for (const id of ids) w.sim.start(id);
      recordZkConfig(w, config, clients);
      const sctx = makeScriptContext(w.sim, servers, clients, {
        report: (checker, message) => w.report(checker, message),
        note: (line) => {
          lastNote = line;
          narrative.push(line);
        },
      }, w.params, w.canary);
      w.sim.schedule(0, () => {
        script.run(sctx).then(
          () => (finished = true),
          (err: unknown) => {
            finished = true;
            w.report("scenario.script", `script ${script.name} failed after "${lastNote}": ${err instanceof Error ? err.message : String(err)}`);
          },
        );
      });
    },
    async finish() {
      if (!finished) w.report("scenario.script", `script ${script.name} did not finish by the end of the run (last step: "${lastNote}")`);
    },
    narrative: () => narrative,
  };
}
