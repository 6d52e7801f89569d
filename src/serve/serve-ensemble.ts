/**
 * The simulated deployment behind `zksim serve`: one simulator holding the members of a
 * `ServeSettings` (node `sN`, a standalone `ZooKeeperServer` when there is one member, a
 * `QuorumPeer` otherwise) and, per member, one gateway node `cN` from which the real TCP
 * clients of that member's port connect (client-gateway.ts). A gateway node runs no code of
 * its own: it is the simulated host the real clients sit on, so the links `cN → sN` carry their
 * frames and partitions, clogs and crashes treat them like any simulated client.
 *
 * Invariants: node order is s… then c… (server ids and node names agree: `sN` is server N);
 * the trace keeps no events (a serve session runs for hours), online checkers read them as they
 * are recorded. `addServeNodes` builds the same nodes on a simulator made elsewhere: the
 * "served" workload (src/scenario/workloads/served.ts) rebuilds a recorded session with it.
 */
import { Simulator } from "../sim/simulator.js";
import { UserInputError } from "../sim/errors.js";
import type { NetworkConfig } from "../sim/network.js";
import type { DiskConfig } from "../sim/disk.js";
import { ZooKeeperServer, type ServerCanary, type ZooKeeperServerConfig } from "../zk/server/zoo-keeper-server.js";
import { QuorumPeer, DEFAULT_QUORUM_CONFIG } from "../zk/server/quorum/quorum-peer.js";
import type { QuorumServer } from "../zk/server/quorum/quorum-verifier.js";
import { CLIENT_PORT } from "../zk/proto/wire.js";
import { bugIdSet } from "../zk/server/bug-id.js";
import { SERVER_CANARIES, type AnyCanary } from "../scenario/canaries.js";
import { quorumAddressOf, type ServeMember, type ServeSettings } from "./zoo-cfg.js";
import { serverAuthConfig } from "./server-auth.js";

/** A deliberately broken build of the servers: a server canary, bug-zoo ids (default: neither). */
export interface ServeVariant {
  canary?: AnyCanary;
  bugs?: readonly string[];
}

export interface ServeEnsemble {
  sim: Simulator;
  settings: ServeSettings;
  /** The gateway node of each member (`s2` → `c2`). */
  gatewayOf(member: ServeMember): string;
}

/** What a `--scenario` adds to the settings (serve-scenario.ts): link and disk settings, server settings. */
export interface ServeWorld {
  network?: Partial<NetworkConfig>;
  disk?: Partial<DiskConfig>;
  server?: Partial<ZooKeeperServerConfig>;
}

/**
 * A member as its config line names it: its real quorum addresses (zoo.cfg's, or the one-machine
 * convention of `quorumAddressOf`) and its client address when zoo.cfg's line gives one (3.8
 * prints none for a line without `;`, as a real 3.8.0 ensemble's `conf` shows). The config text
 * uses "real" addressing (quorum-server-spec.ts): server N runs on node sN.
 */
export function quorumServerOf(m: ServeMember): QuorumServer {
  const a = quorumAddressOf(m);
  return { sid: m.sid, host: m.node, role: m.observer ? "observer" : "participant", address: `${a.host}:${a.peerPort}:${a.electionPort}`, ...(a.client !== undefined ? { clientAddress: a.client } : {}) };
}

export function gatewayNodeId(member: ServeMember): string {
  return `c${member.sid}`;
}

export function buildServeEnsemble(settings: ServeSettings, seed: number, variant: ServeVariant = {}, world: ServeWorld = {}): ServeEnsemble {
  const sim = new Simulator({ seed, ...(world.network !== undefined ? { network: world.network } : {}) });
  addServeNodes(sim, settings, variant, world);
  return { sim, settings, gatewayOf: gatewayNodeId };
}

/** Adds and starts the members `sN` and their gateway nodes `cN` on `sim` (`world.network` is the simulator's own). */
export function addServeNodes(sim: Simulator, settings: ServeSettings, variant: ServeVariant = {}, world: ServeWorld = {}): void {
  const server: Partial<ZooKeeperServerConfig> = { ...world.server, tickTimeMs: settings.tickTimeMs, clientPort: CLIENT_PORT };
  if (variant.canary !== undefined && SERVER_CANARIES.includes(variant.canary)) server.canary = variant.canary as ServerCanary;
  if (settings.minSessionTimeoutMs !== undefined) server.minSessionTimeoutMs = settings.minSessionTimeoutMs;
  if (settings.maxSessionTimeoutMs !== undefined) server.maxSessionTimeoutMs = settings.maxSessionTimeoutMs;
  if (settings.auth !== undefined) Object.assign(server, serverAuthConfig(settings.auth));
  if (settings.localSessionsEnabled === true) server.localSessionsEnabled = true;
  if (settings.reconfigEnabled === true) server.reconfigEnabled = true;
  else if (settings.members.some((m) => m.joiner === true)) throw new UserInputError("serve: joiners are added by reconfig, which needs reconfigEnabled (--reconfig-enabled, or reconfigEnabled=true in zoo.cfg)");
  const quorum = settings.members.map(quorumServerOf);
  // A joiner starts with the initial config plus itself, as a 3.5+ server about to be added does.
  const initial = quorum.filter((q) => settings.members.find((m) => m.sid === q.sid)?.joiner !== true);
  const ensemble = settings.members.length > 1;
  for (const [i, m] of settings.members.entries()) {
    const config = { ...server, serverId: m.sid };
    sim.addNode(m.node, (ctx) =>
      ensemble
        ? new QuorumPeer(ctx, {
            ...DEFAULT_QUORUM_CONFIG,
            myid: m.sid,
            members: m.joiner === true ? [...initial, quorum[i]!] : initial,
            addressing: "real",
            ...(settings.reconfigEnabled === true ? { reconfigEnabled: true } : {}),
            ...(settings.standaloneEnabled !== undefined ? { standaloneEnabled: settings.standaloneEnabled } : {}),
            tickTimeMs: settings.tickTimeMs,
            initLimitTicks: settings.initLimitTicks,
            syncLimitTicks: settings.syncLimitTicks,
            server: config,
            bugs: bugIdSet(variant.bugs ?? []),
            timing: { profile: settings.quorumTimingProfile ?? "zookeeper-3.8", ...(settings.quorumTiming !== undefined ? { settings: settings.quorumTiming } : {}) },
            ...(settings.readOnlyModeEnabled === true ? { readOnlyModeEnabled: true } : {}),
          })
        : new ZooKeeperServer(ctx, config),
      world.disk,
    );
  }
  for (const m of settings.members) sim.addNode(gatewayNodeId(m), () => ({}));
  if (settings.instantGatewayLinks === true) {
    for (const m of settings.members) sim.network.configure({ minDelayUs: 0, maxDelayUs: 0 }, [gatewayNodeId(m)], [m.node]);
  }
  for (const id of sim.nodeIds) sim.start(id);
}
