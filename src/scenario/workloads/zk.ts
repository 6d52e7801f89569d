/**
 * Workload "zk": a ZooKeeper deployment (for now one standalone server, `s1`) and client nodes
 * (`c1`…), driven by a named script. Server settings come from the scenario:
 * `{"kind": "zk", "script": "session-expiry", "clients": 3, "tickTimeMs": 2000, "snapCount": 50}`.
 */
import { UserInputError } from "../../sim/errors.js";
import { ZooKeeperServer, type ZooKeeperServerConfig, type ServerCanary } from "../../zk/server/zoo-keeper-server.js";
import { intParam, type Workload, type WorkloadContext, type WorkloadDef } from "../workload.js";
import { makeScriptContext } from "../scripts/script.js";
import { scriptNamed, scriptNames } from "../scripts/index.js";

const SERVER_CANARIES: readonly string[] = ["ack-before-fsync", "no-ephemeral-cleanup", "watch-not-fired"];

function scriptParam(params: Record<string, unknown>): string {
  const name = params.script;
  if (typeof name !== "string") throw new UserInputError(`workload.script: expected a script name (one of ${scriptNames().join(", ")})`);
  scriptNamed(name);
  return name;
}

function serverConfig(params: Record<string, unknown>): Partial<ZooKeeperServerConfig> {
  const out: Partial<ZooKeeperServerConfig> = {};
  const tick = intParam(params, "tickTimeMs", 2000, 1, 600_000);
  out.tickTimeMs = tick;
  if (params.snapCount !== undefined) out.snapCount = intParam(params, "snapCount", 10_000, 1, 10_000_000);
  if (params.minSessionTimeoutMs !== undefined) out.minSessionTimeoutMs = intParam(params, "minSessionTimeoutMs", 2 * tick, 1, 10_000_000);
  if (params.maxSessionTimeoutMs !== undefined) out.maxSessionTimeoutMs = intParam(params, "maxSessionTimeoutMs", 20 * tick, 1, 10_000_000);
  if (params.containerCheckIntervalMs !== undefined) out.containerCheckIntervalMs = intParam(params, "containerCheckIntervalMs", 60_000, 0, 10_000_000);
  if (params.superDigest !== undefined) {
    if (typeof params.superDigest !== "string") throw new UserInputError(`workload.superDigest: expected "user:base64digest"`);
    out.superDigest = params.superDigest;
  }
  return out;
}

const KNOWN_PARAMS = ["script", "clients", "tickTimeMs", "snapCount", "minSessionTimeoutMs", "maxSessionTimeoutMs", "containerCheckIntervalMs", "superDigest"];

export const zkWorkload: WorkloadDef = {
  kind: "zk",
  description: "a ZooKeeper server and client nodes driven by a named script",
  nodes(params) {
    for (const k of Object.keys(params)) {
      if (!KNOWN_PARAMS.includes(k)) throw new UserInputError(`workload: unknown parameter "${k}" for kind "zk" (known: ${KNOWN_PARAMS.join(", ")})`);
    }
    scriptParam(params);
    serverConfig(params);
    const clients = intParam(params, "clients", 2, 1, 50);
    return ["s1", ...Array.from({ length: clients }, (_, i) => `c${i + 1}`)];
  },
  defaultCheckers: ["kernel.connection-fifo", "kernel.no-delivery-across-cut", "kernel.disk-crash-loss", "kernel.paused-node-silent", "zk.standalone-durability"],
  create(w: WorkloadContext): Workload {
    const ids = zkWorkload.nodes(w.params);
    const servers = ids.filter((id) => id.startsWith("s"));
    const clients = ids.filter((id) => id.startsWith("c"));
    const config = serverConfig(w.params);
    const canary = w.canary !== undefined && SERVER_CANARIES.includes(w.canary) ? (w.canary as ServerCanary) : undefined;
    const script = scriptNamed(scriptParam(w.params));
    const narrative: string[] = [];
    let finished = false;
    let lastNote = "(start)";
    return {
      setup() {
        servers.forEach((id, i) => {
          w.sim.addNode(id, (ctx) => new ZooKeeperServer(ctx, { ...config, serverId: i + 1, ...(canary ? { canary } : {}) }), w.scenario.disk);
        });
        for (const id of clients) w.sim.addNode(id, () => ({}), w.scenario.disk);
        for (const id of ids) w.sim.start(id);
        const sctx = makeScriptContext(w.sim, servers, clients, {
          report: (checker, message) => w.report(checker, message),
          note: (line) => {
            lastNote = line;
            narrative.push(line);
          },
        });
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
  },
};
