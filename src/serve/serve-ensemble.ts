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
 * are recorded.
 */
import { Simulator } from "../sim/simulator.js";
import { ZooKeeperServer, type ZooKeeperServerConfig } from "../zk/server/zoo-keeper-server.js";
import { QuorumPeer, DEFAULT_QUORUM_CONFIG } from "../zk/server/quorum/quorum-peer.js";
import type { QuorumServer } from "../zk/server/quorum/quorum-verifier.js";
import { CLIENT_PORT } from "../zk/proto/wire.js";
import type { ServeMember, ServeSettings } from "./zoo-cfg.js";

export interface ServeEnsemble {
  sim: Simulator;
  settings: ServeSettings;
  /** The gateway node of each member (`s2` → `c2`). */
  gatewayOf(member: ServeMember): string;
}

export function gatewayNodeId(member: ServeMember): string {
  return `c${member.sid}`;
}

export function buildServeEnsemble(settings: ServeSettings, seed: number): ServeEnsemble {
  const sim = new Simulator({ seed });
  const server: Partial<ZooKeeperServerConfig> = { tickTimeMs: settings.tickTimeMs, clientPort: CLIENT_PORT };
  if (settings.minSessionTimeoutMs !== undefined) server.minSessionTimeoutMs = settings.minSessionTimeoutMs;
  if (settings.maxSessionTimeoutMs !== undefined) server.maxSessionTimeoutMs = settings.maxSessionTimeoutMs;
  if (settings.localSessionsEnabled === true) server.localSessionsEnabled = true;
  const quorum: QuorumServer[] = settings.members.map((m) => ({ sid: m.sid, host: m.node, role: m.observer ? "observer" : "participant" }));
  const ensemble = settings.members.length > 1;
  for (const m of settings.members) {
    const config = { ...server, serverId: m.sid };
    sim.addNode(m.node, (ctx) =>
      ensemble
        ? new QuorumPeer(ctx, {
            ...DEFAULT_QUORUM_CONFIG,
            myid: m.sid,
            members: quorum,
            tickTimeMs: settings.tickTimeMs,
            initLimitTicks: settings.initLimitTicks,
            syncLimitTicks: settings.syncLimitTicks,
            server: config,
            bugs: new Set(),
            ...(settings.readOnlyModeEnabled === true ? { readOnlyModeEnabled: true } : {}),
          })
        : new ZooKeeperServer(ctx, config),
    );
  }
  for (const m of settings.members) sim.addNode(gatewayNodeId(m), () => ({}));
  for (const id of sim.nodeIds) sim.start(id);
  return { sim, settings, gatewayOf: gatewayNodeId };
}
