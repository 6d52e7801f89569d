/**
 * The four-letter words that dump a server's connections, sessions and watches, as ZooKeeper
 * 3.8.0 prints them: `cons` (ConsCommand → ServerCnxn.dumpConnectionInfo), `crst`
 * (CnxnStatResetCommand), `dump` (DumpCommand: the session tracker, DataTree.dumpEphemerals,
 * NIOServerCnxnFactory.dumpConnections), `wchs`, `wchc`, `wchp` (WatchCommand over the data
 * watches' WatchManager).
 *
 * Everything about a session comes from the simulated server, read through its operator's view
 * (`ZooKeeperServerBean`, zk/server/zoo-keeper-server-bean.ts): the connection's session id,
 * timeout, last op/cxid/zxid and latencies are those of the simulated `ServerCnxn` at the other
 * end of the real connection (the same simulated connection id); the ephemerals, expiry buckets
 * and watches are the simulated server's. Only what belongs to the real socket (its address, and
 * the NIO factory's connection expiry queue) is the gateway's.
 *
 * Orders: where 3.8 walks a hash structure keyed by strings or longs (a session's ephemerals,
 * the watch table, the session → ephemerals map) the output follows the Java hash order
 * (java-hash-set.ts); where it walks sets keyed by object identity (connections, the sessions of
 * one expiry bucket, the watchers of a path) no order is reproducible, and the simulation's
 * insertion order is used. Times print as Java's `Date.toString()` in UTC.
 */
import type { ServerCnxn } from "../zk/server/server-cnxn.js";
import { JavaHashSet, inJavaConcurrentHashMapOrder, javaLongHashCode } from "../zk/server/java-hash-set.js";
import type { WatchesReport, ZooKeeperServerBean } from "../zk/server/zoo-keeper-server-bean.js";
import type { ServerWatcher } from "../zk/server/watch-manager.js";
import type { ConnectionInfo, PortStats } from "./four-letter-words.js";

/** NIOServerCnxnFactory's connection expiry interval (`zookeeper.nio.sessionlessCnxnTimeout`). */
export const SESSIONLESS_CNXN_TIMEOUT_MS = 10_000;

/** `Long.toHexString`: a 64-bit value as Java prints it (negative ones as their two's complement). */
export function javaHex(v: bigint): string {
  return BigInt.asUintN(64, v).toString(16);
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Java's `Date.toString()` in UTC: `Thu Jan 01 00:00:30 UTC 2026`. */
export function javaDateString(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, "0");
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${two(d.getUTCDate())} ${time} UTC ${d.getUTCFullYear()}`;
}

/** The simulated server's end of a real connection, when its simulated connection is open. */
function simulatedCnxn(zks: ZooKeeperServerBean, k: ConnectionInfo): ServerCnxn | undefined {
  return k.connectionId === undefined ? undefined : zks.connection(k.connectionId);
}

/** `ServerCnxn.dumpConnectionInfo(pw, brief)`. */
export function connectionLine(k: ConnectionInfo, zks: ZooKeeperServerBean | undefined, brief: boolean): string {
  const cnxn = zks === undefined ? undefined : simulatedCnxn(zks, k);
  // Interest ops: OP_READ for a connection waiting for requests; 0 for the one being answered.
  const head = ` /${k.remote}[${k.askingFourLetterWord === true ? 0 : 1}](queued=0,recved=${cnxn?.packetsReceived ?? k.packetsReceived},sent=${cnxn?.packetsSent ?? k.packetsSent}`;
  if (brief || cnxn === undefined || cnxn.sessionId === 0n) return `${head})`;
  const s = cnxn.stats;
  const fields = [`sid=0x${javaHex(cnxn.sessionId)}`, `lop=${s.lastOp}`, `est=${cnxn.establishedMs}`, `to=${cnxn.sessionTimeoutMs}`];
  if (s.lastCxid >= 0) fields.push(`lcxid=0x${s.lastCxid.toString(16)}`);
  const minLatencyMs = s.minLatencyMs === Number.MAX_SAFE_INTEGER ? 0 : s.minLatencyMs;
  const avgLatencyMs = s.count === 0 ? 0 : Math.floor(s.totalLatencyMs / s.count);
  fields.push(`lzxid=0x${javaHex(s.lastZxid)}`, `lresp=${s.lastResponseMs}`, `llat=${s.lastLatencyMs}`, `minlat=${minLatencyMs}`, `avglat=${avgLatencyMs}`, `maxlat=${s.maxLatencyMs}`);
  return `${head},${fields.join(",")})`;
}

/** `cons`: every connection of the port in the long format, each followed by an empty println. */
export function consText(zks: ZooKeeperServerBean, stats: PortStats): string {
  return stats.connections().map((k) => `${connectionLine(k, zks, false)}\n`).join("") + "\n";
}

/** `crst`: `resetAllConnectionStats` on every connection of the port. */
export function crstText(zks: ZooKeeperServerBean, stats: PortStats): string {
  for (const k of stats.connections()) {
    k.packetsReceived = 0;
    k.packetsSent = 0;
    simulatedCnxn(zks, k)?.resetStats();
  }
  return "Connection stats reset.\n";
}

/** `dump`: the session tracker, the ephemerals, the connection expiry queue. */
export function dumpText(zks: ZooKeeperServerBean, stats: PortStats, wallNowMs: number): string {
  const lines = ["SessionTracker dump:", ...sessionTrackerDump(zks), "ephemeral nodes dump:", ...ephemeralsDump(zks), "Connections dump:", ...connectionsDump(zks, stats, wallNowMs)];
  return lines.join("\n") + "\n";
}

/** `SessionTrackerImpl.dumpSessions` (standalone, leader) or `LearnerSessionTracker.dumpSessions`. */
function sessionTrackerDump(zks: ZooKeeperServerBean): string[] {
  const dump = zks.sessionDump();
  if (dump.kind === "global-sessions") return [`Global Sessions(${dump.sessions.length}):`, ...dump.sessions.map(([id, timeoutMs]) => `0x${javaHex(id)}\t${timeoutMs}ms`)];
  const lines = [`Session Sets (${dump.buckets.length})/(${dump.sessionCount}):`];
  for (const b of dump.buckets) lines.push(`${b.sessions.length} expire at ${javaDateString(b.expiryMs)}:`, ...b.sessions.map((id) => `\t0x${javaHex(id)}`));
  return lines;
}

/** `DataTree.dumpEphemerals`: sessions in the ConcurrentHashMap's order, paths in each set's. */
function ephemeralsDump(zks: ZooKeeperServerBean): string[] {
  const bySession = inJavaConcurrentHashMapOrder(zks.ephemerals(), ([id]) => javaLongHashCode(id));
  const lines = [`Sessions with Ephemerals (${bySession.length}):`];
  for (const [id, paths] of bySession) lines.push(`0x${javaHex(id)}:`, ...paths.map((p) => `\t${p}`));
  return lines;
}

/**
 * NIOServerCnxnFactory's connection expiry queue: a connection's deadline is
 * `roundToNextInterval(lastActivity + timeout)` (10 s intervals; the session timeout once it has
 * one, else the sessionless 10 s); a bucket it left stays, empty, until its time passes.
 */
export function touchConnection(stats: PortStats, k: ConnectionInfo, zks: ZooKeeperServerBean | undefined, wallNowMs: number): void {
  const cnxn = zks === undefined ? undefined : simulatedCnxn(zks, k);
  const timeoutMs = cnxn !== undefined && cnxn.sessionTimeoutMs > 0 ? cnxn.sessionTimeoutMs : SESSIONLESS_CNXN_TIMEOUT_MS;
  const expiryMs = (Math.floor((wallNowMs + timeoutMs) / SESSIONLESS_CNXN_TIMEOUT_MS) + 1) * SESSIONLESS_CNXN_TIMEOUT_MS;
  if (k.expiryMs === expiryMs) return;
  if (k.expiryMs !== undefined) stats.connectionExpiry.get(k.expiryMs)?.delete(k);
  stats.connectionExpiry.set(expiryMs, (stats.connectionExpiry.get(expiryMs) ?? new Set<ConnectionInfo>()).add(k));
  k.expiryMs = expiryMs;
}

/** A closed connection leaves the expiry queue (its bucket stays). */
export function forgetConnection(stats: PortStats, k: ConnectionInfo): void {
  if (k.expiryMs !== undefined) stats.connectionExpiry.get(k.expiryMs)?.delete(k);
}

/** `NIOServerCnxnFactory.dumpConnections`: `ExpiryQueue.dump` of the connections (NIOServerCnxn.toString each). */
function connectionsDump(zks: ZooKeeperServerBean, stats: PortStats, wallNowMs: number): string[] {
  for (const t of [...stats.connectionExpiry.keys()]) if (t <= wallNowMs) stats.connectionExpiry.delete(t); // the expirer took them
  const buckets = [...stats.connectionExpiry.entries()].sort(([a], [b]) => a - b);
  const lines = [`Connections Sets (${buckets.length})/(${stats.connections().filter((k) => k.expiryMs !== undefined).length}):`];
  for (const [t, set] of buckets) {
    lines.push(`${set.size} expire at ${javaDateString(t)}:`);
    for (const k of set) lines.push(`\tip: /${k.remote} sessionId: 0x${javaHex(simulatedCnxn(zks, k)?.sessionId ?? 0n)}`);
  }
  return lines;
}

/** `WatchManager.toString()` (`wchs`): connections, paths and watches of the data-watch table. */
export function wchsText(table: WatchesReport): string {
  const byWatcher = table.pathsByWatcher();
  let total = 0;
  for (const paths of byWatcher.values()) total += paths.size;
  return `${byWatcher.size} connections watching ${table.watchedPaths().size} paths\nTotal watches:${total}\n`;
}

/** A set of paths in the order Java's HashMap/HashSet of default capacity would walk it. */
function inJavaHashOrder(paths: Iterable<string>): string[] {
  const set = new JavaHashSet();
  for (const p of paths) set.add(p);
  return [...set];
}

function sessionOf(w: ServerWatcher): string {
  return `0x${javaHex(w.sessionId ?? 0n)}`;
}

/** `WatchManager.dumpWatches(pw, false)` (`wchc`): by connection, then a closing empty line. */
export function wchcText(table: WatchesReport): string {
  const lines: string[] = [];
  for (const [w, paths] of table.pathsByWatcher()) lines.push(sessionOf(w), ...inJavaHashOrder(paths).map((p) => `\t${p}`));
  return lines.map((l) => `${l}\n`).join("") + "\n";
}

/** `WatchManager.dumpWatches(pw, true)` (`wchp`): by path, in the watch table's hash order. */
export function wchpText(table: WatchesReport): string {
  const watched = table.watchedPaths();
  const lines: string[] = [];
  for (const path of inJavaHashOrder(watched.keys())) lines.push(path, ...[...watched.get(path)!].map((w) => `\t${sessionOf(w)}`));
  return lines.map((l) => `${l}\n`).join("") + "\n";
}
