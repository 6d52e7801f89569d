/**
 * Four-letter words on a served client port, answered as ZooKeeper 3.8 answers them
 * (`org.apache.zookeeper.server.command.*`): `ruok`, `srvr`, `stat`, `conf`, `envi`, `mntr`,
 * `isro`, and (four-letter-dumps.ts) `cons`, `crst`, `dump`, `wchs`, `wchc`, `wchp`. A word that
 * is not in the whitelist gets 3.8's "<cmd> is not executed because it is not in the
 * whitelist." line; a known word this gateway does not answer says so in one line (never an
 * invented output).
 *
 * State comes from the live simulated server (mode, zxid, node count, watches, ephemerals) and
 * from the gateway's counters for the real connections of that port (packets, latency,
 * connections) — the only clients a serve session has. "Not serving" follows 3.8: a member
 * that is up but has no running server (LOOKING, syncing) answers ZK_NOT_SERVING.
 */
import { readdirSync, readFileSync } from "node:fs";
import { mntrKeys } from "./mntr-keys.js";
import os from "node:os";
import type { SimNode } from "../sim/simulator.js";
import { ZooKeeperServer } from "../zk/server/zoo-keeper-server.js";
import { LOG_PREFIX, preallocatedLogLength } from "../zk/server/file-txn-snap-log.js";
import { SNAP_PREFIX } from "../zk/server/fuzzy-snapshot.js";
import { QuorumPeer } from "../zk/server/quorum/quorum-peer.js";
import type { ZooKeeperServerBean } from "../zk/server/zoo-keeper-server-bean.js";
import type { FourLetterCommand } from "../zk/proto/codec-framing.js";
import { quorumAddressOf, type ServeMember, type ServeSettings } from "./zoo-cfg.js";
import { connectionLine, consText, crstText, dumpText, touchConnection, wchcText, wchpText, wchsText } from "./four-letter-dumps.js";

/** What 3.8 reports for `zookeeper.version` (`Version.getFullVersion()`), marked as ours. */
export const ZOOKEEPER_VERSION = "3.8.0-zksim, built on 2022-02-25 08:49 UTC";
export const ZK_NOT_SERVING = "This ZooKeeper instance is not currently serving requests";

/** One real connection as `cons`/`stat`/`dump` list it. */
export interface ConnectionInfo {
  remote: string;
  packetsReceived: number;
  packetsSent: number;
  sessionId?: bigint;
  /** The simulated connection's id (its server end is the simulated ServerCnxn), once opened. */
  connectionId?: number;
  /** The connection is asking a four-letter word (3.8 lists it with interest ops 0). */
  askingFourLetterWord?: boolean;
  /** Its bucket in the connection expiry queue (four-letter-dumps.ts `touchConnection`). */
  expiryMs?: number;
}

/** The gateway's counters for one member's port (ServerStats' share of them). */
export interface PortStats {
  packetsReceived: number;
  packetsSent: number;
  minLatencyMs: number;
  maxLatencyMs: number;
  totalLatencyMs: number;
  latencyCount: number;
  connections(): ConnectionInfo[];
  /** NIOServerCnxnFactory's connection expiry queue: wall-clock deadline → connections. */
  connectionExpiry: Map<number, Set<ConnectionInfo>>;
}

export function newPortStats(connections: () => ConnectionInfo[]): PortStats {
  return { packetsReceived: 0, packetsSent: 0, minLatencyMs: Number.MAX_SAFE_INTEGER, maxLatencyMs: 0, totalLatencyMs: 0, latencyCount: 0, connections, connectionExpiry: new Map() };
}

export function recordLatency(stats: PortStats, latencyMs: number): void {
  stats.latencyCount++;
  stats.totalLatencyMs += latencyMs;
  stats.minLatencyMs = Math.min(stats.minLatencyMs, latencyMs);
  stats.maxLatencyMs = Math.max(stats.maxLatencyMs, latencyMs);
}

interface Served {
  /** The running server, through its operator's view only. */
  zks: ZooKeeperServerBean;
  /** `ZooKeeperServer.getState()` as `srvr` prints it ("read-only": a LOOKING member's ReadOnlyZooKeeperServer). */
  mode: "standalone" | "leader" | "follower" | "observer" | "read-only";
  peer?: QuorumPeer;
}

/** The running server of a member, or undefined when 3.8 would say ZK_NOT_SERVING. */
function served(node: SimNode): Served | undefined {
  const p = node.process;
  if (p instanceof ZooKeeperServer) return p.isServing ? { zks: p, mode: "standalone" } : undefined;
  if (!(p instanceof QuorumPeer)) return undefined;
  const zks = p.activeServer;
  if (zks === undefined || !zks.isServing) return undefined;
  const mode = p.readOnlyServer !== undefined ? "read-only" : p.state === "LEADING" ? "leader" : p.state === "OBSERVING" ? "observer" : "follower";
  return { zks, mode, peer: p };
}

/** A real connection was accepted or sent bytes: its place in the connection expiry queue moves (for `dump`). */
export function touchRealConnection(node: SimNode, stats: PortStats, k: ConnectionInfo): void {
  touchConnection(stats, k, served(node)?.zks, Date.now());
}

export interface FourLetterContext {
  node: SimNode;
  member: ServeMember;
  /** The port this member's clients really connect to (the configured one, or the one bound for 0). */
  clientPort: number;
  settings: ServeSettings;
  stats: PortStats;
}

/** The bytes a four-letter word gets back before the connection closes. */
export function answerFourLetterWord(command: FourLetterCommand, c: FourLetterContext): string {
  if (command === "telnet close") return "";
  // FourLetterCommands.isEnabled: readonlymode.enabled whitelists isro (read-only clients ask it).
  const enabled = c.settings.fourLetterWords.has(command) || (command === "isro" && c.settings.readOnlyModeEnabled === true);
  if (!enabled) return `${command} is not executed because it is not in the whitelist.\n`;
  const s = served(c.node);
  switch (command) {
    case "ruok":
      return "imok";
    case "isro":
      // IsroCommand: "null" with no running server, else the server's own answer ("ro" from a ReadOnlyZooKeeperServer).
      return s === undefined ? "null" : s.zks.fourLetterWord("isro");
    case "srvr":
    case "stat":
      return s === undefined ? `${ZK_NOT_SERVING}\n` : statText(command, s, c);
    case "conf":
      return s === undefined ? `${ZK_NOT_SERVING}\n` : confText(s, c);
    case "envi":
      return enviText();
    case "mntr":
      return s === undefined ? `${ZK_NOT_SERVING}\n` : mntrText(s, c);
    case "cons":
      return s === undefined ? `${ZK_NOT_SERVING}\n` : consText(s.zks, c.stats);
    case "crst":
      return s === undefined ? `${ZK_NOT_SERVING}\n` : crstText(s.zks, c.stats);
    case "dump":
      return s === undefined ? `${ZK_NOT_SERVING}\n` : dumpText(s.zks, c.stats, Date.now());
    case "wchs":
      return s === undefined ? `${ZK_NOT_SERVING}\n` : wchsText(s.zks.dataWatches());
    case "wchc":
      return s === undefined ? `${ZK_NOT_SERVING}\n` : wchcText(s.zks.dataWatches());
    case "wchp":
      return s === undefined ? `${ZK_NOT_SERVING}\n` : wchpText(s.zks.dataWatches());
    case "dirs":
      return s === undefined ? `${ZK_NOT_SERVING}\n` : dirsText(c.node);
    default:
      return `${command} is not answered by zksim serve yet\n`;
  }
}

/**
 * DirsCommand: `datadir_size` is the bytes in `snapLog.getDataDir()`, `logdir_size` those in
 * `getSnapDir()`. Without a `dataLogDir` (serve reads none) both are dataDir's `version-2`, so
 * both lines count every txn log (each preallocated in 64 MiB blocks) and every snapshot on the
 * member's simulated disk.
 */
function dirsText(node: SimNode): string {
  const version2 = version2Bytes(node);
  return `datadir_size: ${version2}\nlogdir_size: ${version2}\n`;
}

/** The bytes of a member's `version-2` directory: every txn log (preallocated in 64 MiB blocks) and every snapshot on its simulated disk. */
function version2Bytes(node: SimNode): number {
  const bytes = (prefix: string, length: (n: number) => number) =>
    node.disk.list().filter((name) => name.startsWith(prefix)).reduce((sum, name) => sum + length(node.disk.sizeOf(name)), 0);
  return bytes(LOG_PREFIX, preallocatedLogLength) + bytes(SNAP_PREFIX, (n) => n);
}

function latency(stats: PortStats): { min: number; avg: string; max: number } {
  if (stats.latencyCount === 0) return { min: 0, avg: "0.0", max: 0 };
  const avg = stats.totalLatencyMs / stats.latencyCount;
  return { min: stats.minLatencyMs, avg: Number.isInteger(avg) ? avg.toFixed(1) : String(Math.round(avg * 10000) / 10000), max: stats.maxLatencyMs };
}

/** `StatCommand`: version, (stat: the clients), `ServerStats.toString()`, node count, (leader) proposal sizes. */
function statText(command: "srvr" | "stat", s: Served, c: FourLetterContext): string {
  const lines = [`Zookeeper version: ${ZOOKEEPER_VERSION}`];
  if (s.mode === "read-only") lines.push("READ-ONLY mode; serving only read-only clients"); // as a real 3.8.0 printed it
  if (command === "stat") {
    lines.push("Clients:");
    for (const k of c.stats.connections()) lines.push(connectionLine(k, s.zks, true)); // brief; each println'd, then one more println
    lines.push("");
  }
  const l = latency(c.stats);
  lines.push(
    `Latency min/avg/max: ${l.min}/${l.avg}/${l.max}`,
    `Received: ${c.stats.packetsReceived}`,
    `Sent: ${c.stats.packetsSent}`,
    `Connections: ${c.stats.connections().length}`,
    `Outstanding: 0`,
    `Zxid: 0x${s.zks.lastProcessedZxid.toString(16)}`,
    `Mode: ${s.mode}`,
    `Node count: ${s.zks.nodeCount()}`,
  );
  if (s.mode === "leader") lines.push("Proposal sizes last/min/max: -1/-1/-1");
  return lines.join("\n") + "\n";
}

/**
 * `ZooKeeperServer.dumpConf` (+ `QuorumZooKeeperServer.dumpConf` for members of an ensemble), with
 * zoo.cfg's directories and addresses: `dataDir` (its `version-2`, where 3.8 keeps the files;
 * `/zksim/sN/data` when zoo.cfg names none), the bytes in it as `dirs` counts them, and the
 * members' `server.N` lines as 3.8 prints its QuorumVerifier, with their zoo.cfg addresses.
 */
function confText(s: Served, c: FourLetterContext): string {
  const z = s.zks;
  const dataDir = `${c.settings.dataDir ?? `/zksim/${c.member.node}/data`}/version-2`;
  const dataLogDir = c.settings.dataLogDir === undefined ? dataDir : `${c.settings.dataLogDir}/version-2`;
  const bytes = version2Bytes(c.node);
  const lines = [
    `clientPort=${c.clientPort}`,
    `secureClientPort=-1`,
    `dataDir=${dataDir}`,
    `dataDirSize=${bytes}`,
    `dataLogDir=${dataLogDir}`,
    `dataLogSize=${bytes}`,
    `tickTime=${c.settings.tickTimeMs}`,
    `maxClientCnxns=${c.settings.maxClientCnxns}`,
    `minSessionTimeout=${z.minSessionTimeoutMs}`,
    `maxSessionTimeout=${z.maxSessionTimeoutMs}`,
    `clientPortListenBacklog=-1`,
    `serverId=${s.peer === undefined ? 0 : c.member.sid}`, // a standalone 3.8 server prints 0
  ];
  if (s.peer !== undefined) {
    const own = quorumAddressOf(c.member);
    lines.push(`initLimit=${c.settings.initLimitTicks}`, `syncLimit=${c.settings.syncLimitTicks}`, `electionAlg=3`, `electionPort=${own.electionPort}`, `quorumPort=${own.peerPort}`);
    lines.push(`peerType=${c.member.observer ? 1 : 0}`);
    // ReadOnlyZooKeeperServer.dumpConf stops at peerType; the quorum servers add the membership.
    if (s.mode !== "read-only") lines.push(`membership: `, withConfiguredAddresses(s.peer.qv.toString(), c.settings.members));
  }
  return lines.join("\n") + "\n";
}

/**
 * The simulated QuorumVerifier's text (`server.N=sN:2888:3888:role[;client]` lines, `version=…`)
 * with each configured member's real addresses in place of the simulated host and ports, and its
 * zoo.cfg client address where the simulated line has none.
 */
function withConfiguredAddresses(membership: string, members: readonly ServeMember[]): string {
  return membership
    .split("\n")
    .map((line) => {
      const m = /^server\.(\d+)=[^:;]+:\d+:\d+:(\w+)(;.*)?$/.exec(line);
      const member = m === null ? undefined : members.find((x) => x.sid === Number(m[1]));
      if (m === null || member === undefined) return line;
      const a = quorumAddressOf(member);
      const client = m[3] ?? (a.client === undefined ? "" : `;${a.client}`);
      return `server.${member.sid}=${a.host}:${a.peerPort}:${a.electionPort}:${m[2]}${client}`;
    })
    .join("\n");
}

/** `EnvCommand` over `Environment.list()`: the JVM's entries have no JVM here, so they say <NA>. */
function enviText(): string {
  const entries: [string, string][] = [
    ["zookeeper.version", ZOOKEEPER_VERSION],
    ["host.name", os.hostname()],
    ["java.version", "<NA>"],
    ["java.vendor", "<NA>"],
    ["java.home", "<NA>"],
    ["java.class.path", "<NA>"],
    ["java.library.path", "<NA>"],
    ["java.io.tmpdir", os.tmpdir()],
    ["java.compiler", "<NA>"],
    ["os.name", os.type()],
    ["os.arch", os.arch()],
    ["os.version", os.release()],
    ["user.name", os.userInfo().username],
    ["user.home", os.homedir()],
    ["user.dir", process.cwd()],
    ["os.memory.free", `${Math.floor(os.freemem() / 1048576)}MB`],
    ["os.memory.max", `${Math.floor(os.totalmem() / 1048576)}MB`],
    ["os.memory.total", `${Math.floor(os.totalmem() / 1048576)}MB`],
  ];
  return "Environment:\n" + entries.map(([k, v]) => `${k}=${v}\n`).join("");
}

/**
 * `MonitorCommand`: `key\tvalue` lines, every key 3.8.0 prints for this kind of server in its
 * order (mntr-keys.ts). Computed: the server's state, latencies, packets and connections of the
 * real port, znodes, data size, ephemerals, watches, sessions, uptime, the leader's learners and
 * the quorum size, the failover summaries (election, unavailable and sync times:
 * zk/server/quorum/failover-metrics.ts), this process's file descriptors (Linux). Every other metric — counters and
 * summaries of 3.8's internals the simulation does not keep — has the value a fresh 3.8.0 shows
 * (0, 0.0, or -1 for the response and proposal sizes).
 */
function mntrText(s: Served, c: FourLetterContext): string {
  const l = latency(c.stats);
  const sessions = s.zks.sessionDump();
  const values = new Map<string, string | number>([
    ["zk_version", ZOOKEEPER_VERSION],
    ["zk_server_state", s.mode],
    ["zk_ephemerals_count", s.zks.ephemerals().reduce((n, [, paths]) => n + paths.length, 0)],
    ["zk_avg_latency", l.avg],
    ["zk_min_latency", l.min],
    ["zk_max_latency", l.max],
    ["zk_num_alive_connections", c.stats.connections().length],
    ["zk_znode_count", s.zks.nodeCount()],
    ["zk_global_sessions", sessions.kind === "expiry-buckets" ? sessions.sessionCount : sessions.sessions.length],
    ["zk_packets_sent", c.stats.packetsSent],
    ["zk_packets_received", c.stats.packetsReceived],
    ["zk_watch_count", s.zks.watchCount()],
    ["zk_approximate_data_size", s.zks.approximateDataSize()],
    ["zk_uptime", s.zks.uptimeMs()],
    ...fileDescriptorCounts(),
  ]);
  if (s.peer !== undefined) {
    values.set("zk_peer_state", `${s.peer.state.toLowerCase()} - broadcast`); // served: its ZAB phase is BROADCAST
    values.set("zk_quorum_size", c.settings.members.filter((m) => !m.observer).length);
    for (const [key, value] of s.peer.failoverMetrics.mntrValues()) values.set(key, value);
    const learners = s.peer.learnerCounts();
    if (learners !== undefined) {
      values.set("zk_learners", learners.learners);
      values.set("zk_synced_followers", learners.syncedFollowers);
      values.set("zk_synced_observers", learners.syncedObservers);
      values.set("zk_leader_uptime", s.zks.uptimeMs());
    }
  }
  // A read-only server prints a follower's keys after what the peer started before (not compared with 3.8's).
  const started = s.peer === undefined ? ["standalone" as const] : s.mode === "read-only" || s.peer.startedServers.length === 0 ? [...s.peer.startedServers, "follower" as const] : s.peer.startedServers;
  return mntrKeys(started)
    .map((key) => `${key}\t${values.get(key) ?? idleMetric(key)}\n`)
    .join("");
}

/** What an untouched 3.8.0 metric shows: -1 for the size gauges, 0.0 for averages and the drop probability, else 0. */
function idleMetric(key: string): string {
  if (/^zk_(last|min|max)_(client_response|proposal)_size$/.test(key)) return "-1";
  if (key.startsWith("zk_avg_") || key === "zk_connection_drop_probability") return "0.0";
  return "0";
}

/** `zk_open_file_descriptor_count` and `zk_max_file_descriptor_count` of this process, where /proc tells them (Linux). */
function fileDescriptorCounts(): [string, number][] {
  try {
    const open = readdirSync("/proc/self/fd").length;
    const max = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
    return [["zk_open_file_descriptor_count", open], ...(max !== undefined ? ([["zk_max_file_descriptor_count", Number(max)]] as [string, number][]) : [])];
  } catch {
    return [];
  }
}
