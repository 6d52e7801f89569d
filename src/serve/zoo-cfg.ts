/**
 * `zoo.cfg` for `zksim serve`: the keys of a standard ZooKeeper 3.8 config that shape the
 * simulated ensemble, read as `QuorumPeerConfig.parseProperties` reads them — one
 * `key=value` per line, `#` comments, surrounding blanks trimmed.
 *
 * What it yields (`ServeSettings`): the members (`server.N=host:peer:election[:observer][;[addr:]port]`,
 * simulated as node `sN` with server id N), each member's real client port, the timing
 * (`tickTime`, `initLimit`, `syncLimit`, `minSessionTimeout`, `maxSessionTimeout`),
 * `maxClientCnxns` (per client address and server, 0 = unlimited, default 60) and the
 * four-letter-word whitelist (`4lw.commands.whitelist`; 3.8's default admits `srvr` only).
 *
 * Invariants: every value is checked (a bad one is a UserInputError naming the line, exit 2);
 * an unknown key is a warning, not an error, as ZooKeeper only logs it; keys ZooKeeper knows
 * but the simulation has no use for (dataDir, autopurge.*, admin.*, …) are accepted silently.
 * All members share one host here, so a member without `;port` gets `clientPort + (N − first N)`.
 * Authentication keys (`authProvider.N`, `DigestAuthenticationProvider.superDigest`, `superUser`,
 * …) and the failover timings (`leaderConnectDelayDuringRetryMs`, `fastleader.minNotificationInterval`,
 * …) become the system properties `zookeeper.<key>`, as 3.8 makes them (server-auth.ts and
 * quorum-timing-properties.ts read them); `connectToLearnerMasterLimit` is zoo.cfg's own.
 */
import { UserInputError } from "../sim/errors.js";
import { FOUR_LETTER_WORDS } from "../zk/proto/registry-doc.js";
import { isAuthZooCfgKey, type ServeAuth } from "./server-auth.js";
import { isQuorumTimingZooCfgKey, quorumTimingFrom } from "./quorum-timing-properties.js";
import type { QuorumTiming, QuorumTimingProfile } from "../zk/server/quorum/quorum-timing.js";

export interface ServeMember {
  /** Server id (`myid`), 1…255: the top byte of the session ids it creates. */
  sid: number;
  /** Simulated node id: `s<sid>`. */
  node: string;
  observer: boolean;
  /** The real TCP port its clients connect to. */
  clientPort: number;
  /** Its `server.N` line's addresses, as `conf` prints them (absent: `quorumAddressOf`'s convention). */
  quorumAddress?: QuorumAddress;
  /**
   * Started outside the initial config, with that config plus itself, as a 3.5+ server about to
   * be added by `reconfig -add` is (`--joiners`; needs reconfigEnabled).
   */
  joiner?: boolean;
}

/** A `server.N=host:peerPort:electionPort[;[addr:]clientPort]` line's addresses. */
export interface QuorumAddress {
  host: string;
  peerPort: number;
  electionPort: number;
  /** `addr:port` of the `;` part, the address 0.0.0.0 when left out (3.8's QuorumServer); absent without one. */
  client?: string;
}

/**
 * A member's quorum addresses: its zoo.cfg line's, else (an ensemble from `--servers`) what a
 * zoo.cfg for one machine conventionally gives: 127.0.0.1, peer port 2888 and election port
 * 3888, each plus N − 1 so that the members' ports differ.
 */
export function quorumAddressOf(m: ServeMember): QuorumAddress {
  return m.quorumAddress ?? { host: "127.0.0.1", peerPort: 2888 + m.sid - 1, electionPort: 3888 + m.sid - 1 };
}

export interface ServeSettings {
  members: ServeMember[];
  tickTimeMs: number;
  initLimitTicks: number;
  syncLimitTicks: number;
  minSessionTimeoutMs?: number;
  maxSessionTimeoutMs?: number;
  /** Per client address and server; 0 = unlimited. */
  maxClientCnxns: number;
  /** Enabled four-letter words (`srvr` always, as in 3.8). */
  fourLetterWords: ReadonlySet<string>;
  /** One line per unknown key or questionable value. */
  warnings: string[];
  /** zoo.cfg's authentication and timing keys as the system properties `zookeeper.<key>` 3.8 makes them. */
  systemProperties?: ReadonlyMap<string, string>;
  /** Authentication of the served servers (server-auth.ts); absent = 3.8's defaults. */
  auth?: ServeAuth;
  /** Read-only mode (`readonlymode.enabled`): a member cut off from its quorum serves read-only clients. */
  readOnlyModeEnabled?: boolean;
  /** `localSessionsEnabled`: in zksim it matters to a read-only server only (docs/zookeeper.md §3.7). */
  localSessionsEnabled?: boolean;
  /**
   * The real clients' links `cN ↔ sN` take no simulated time: their real TCP hop is the hop
   * (the loopback timing profile, serve-timing.ts). Absent: they take the links' delays.
   */
  instantGatewayLinks?: boolean;
  /** zoo.cfg's `dataDir` and `dataLogDir` (what `conf` prints; the simulated disks hold the data). */
  dataDir?: string;
  dataLogDir?: string;
  /** Election and leader-connect timings set by zoo.cfg or system properties (quorum-timing-properties.ts), over the profile's. */
  quorumTiming?: Partial<QuorumTiming>;
  /** zoo.cfg `reconfigEnabled` (3.8's default false): `reconfig` answers RECONFIGDISABLED without it (docs/zookeeper.md §7.10). */
  reconfigEnabled?: boolean;
  /** zoo.cfg `standaloneEnabled` (3.8's default true): a reconfig must then leave at least 2 voters. */
  standaloneEnabled?: boolean;
  /** Absent: "zookeeper-3.8". A recording made before serve ran 3.8's timings replays with "zksim-classic" (served-workload.ts). */
  quorumTimingProfile?: QuorumTimingProfile;
}

/** Keys ZooKeeper knows that change nothing in the simulation. */
const IGNORED_KEYS = new Set([
  "clientPortAddress", "secureClientPort", "secureClientPortAddress", "dynamicConfigFile", "autopurge.snapRetainCount", "autopurge.purgeInterval", "admin.enableServer",
  "admin.serverPort", "admin.serverAddress", "metricsProvider.className", "quorumListenOnAllIPs", "electionAlg",
  "peerType", "syncEnabled", "globalOutstandingLimit", "preAllocSize", "snapCount", "skipACL", "clientPortListenBacklog",
]);

export const DEFAULT_MAX_CLIENT_CNXNS = 60;

const FOUR_LETTER_WHITELIST_KEY = "4lw.commands.whitelist";
/** Where 3.8's FourLetterCommands reads the whitelist (`-Dzookeeper.4lw.commands.whitelist=…`, or zoo.cfg's key). */
export const FOUR_LETTER_WHITELIST_PROPERTY = `zookeeper.${FOUR_LETTER_WHITELIST_KEY}`;

/** The whitelist 3.8 builds from `4lw.commands.whitelist` (`*` = every known word); `srvr` is always in. */
export function fourLetterWhitelist(value: string | undefined, warn: (line: string) => void = () => undefined): Set<string> {
  const out = new Set<string>(["srvr"]);
  for (const raw of (value ?? "").split(",")) {
    const word = raw.trim();
    if (word === "") continue;
    if (word === "*") {
      for (const w of FOUR_LETTER_WORDS) out.add(w);
      continue;
    }
    if (!(FOUR_LETTER_WORDS as readonly string[]).includes(word)) warn(`4lw.commands.whitelist: "${word}" is not a four-letter word ZooKeeper knows`);
    out.add(word);
  }
  return out;
}

/**
 * The four-letter-word whitelist of the system property `zookeeper.4lw.commands.whitelist`
 * (`-D`, the JVM flags, or zoo.cfg's key, which sets it and wins): `props` are every property
 * serve was started with, zoo.cfg's last.
 */
export function withFourLetterWhitelist(settings: ServeSettings, props: ReadonlyMap<string, string>): ServeSettings {
  const value = props.get(FOUR_LETTER_WHITELIST_PROPERTY);
  if (value === undefined || settings.systemProperties?.get(FOUR_LETTER_WHITELIST_PROPERTY) === value) return settings; // none, or zoo.cfg's (read already)
  return { ...settings, fourLetterWords: fourLetterWhitelist(value, (line) => settings.warnings.push(line)) };
}

function intValue(value: string, at: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(value)) throw new UserInputError(`${at}: expected a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new UserInputError(`${at}: expected a number in [${min}, ${max}], got ${n}`);
  return n;
}

/** Reads `server.N=host:peer:election[:participant|:observer][;[addr:]clientPort]`. */
function parseServerLine(key: string, value: string, at: string): ServerLine {
  const sid = intValue(key.slice("server.".length), `${at}: server id`, 1, 255);
  const [addr, client] = value.split(";", 2) as [string, string | undefined];
  const parts = addr.split(":");
  if (parts.length < 3 || parts.length > 4 || parts[0] === "") throw new UserInputError(`${at}: expected host:peerPort:electionPort[:observer][;clientPort], got "${value}"`);
  const peerPort = intValue(parts[1]!, `${at}: peer port`, 1, 65535);
  const electionPort = intValue(parts[2]!, `${at}: election port`, 1, 65535);
  const type = parts[3];
  if (type !== undefined && type !== "observer" && type !== "participant") throw new UserInputError(`${at}: server type must be "participant" or "observer", got "${type}"`);
  const out: ServerLine = { sid, observer: type === "observer", address: { host: parts[0]!, peerPort, electionPort } };
  if (client !== undefined && client.trim() !== "") {
    const spec = client.trim();
    const colon = spec.lastIndexOf(":");
    out.clientPort = intValue(spec.slice(colon + 1), `${at}: client port`, 1, 65535);
    out.address.client = `${colon > 0 ? spec.slice(0, colon) : "0.0.0.0"}:${out.clientPort}`;
  }
  return out;
}

interface ServerLine {
  sid: number;
  observer: boolean;
  clientPort?: number;
  address: QuorumAddress;
}

/** Parses the text of a zoo.cfg; `file` names it in messages. */
export function parseZooCfg(text: string, file = "zoo.cfg"): ServeSettings {
  const values = new Map<string, { value: string; at: string }>();
  const servers: ServerLine[] = [];
  const warnings: string[] = [];
  const systemProperties = new Map<string, string>();
  text.split(/\r?\n/).forEach((rawLine, i) => {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#")) return;
    const at = `${file}:${i + 1}`;
    const eq = line.indexOf("=");
    if (eq <= 0) throw new UserInputError(`${at}: expected key=value, got "${line}"`);
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (key.startsWith("server.")) {
      const s = parseServerLine(key, value, at);
      if (servers.some((o) => o.sid === s.sid)) throw new UserInputError(`${at}: server.${s.sid} is defined twice`);
      servers.push(s);
    } else if (KNOWN_KEYS.has(key)) {
      values.set(key, { value, at });
      // 3.8 reads the whitelist from this system property, which zoo.cfg's key sets (over -D).
      if (key === FOUR_LETTER_WHITELIST_KEY) systemProperties.set(FOUR_LETTER_WHITELIST_PROPERTY, value);
    } else if (isAuthZooCfgKey(key) || isQuorumTimingZooCfgKey(key)) {
      systemProperties.set(`zookeeper.${key}`, value);
    } else if (!IGNORED_KEYS.has(key) && !key.startsWith("group.") && !key.startsWith("weight.")) {
      warnings.push(`${at}: unknown key "${key}" ignored`);
    }
  });
  const int = (key: string, dflt: number, min: number, max: number) => {
    const v = values.get(key);
    return v === undefined ? dflt : intValue(v.value, `${v.at}: ${key}`, min, max);
  };
  const tickTimeMs = int("tickTime", 2000, 1, 600_000);
  const clientPort = int("clientPort", 2181, 1, 65535);
  const settings: ServeSettings = {
    members: members(servers, clientPort),
    tickTimeMs,
    initLimitTicks: int("initLimit", 10, 1, 1000),
    syncLimitTicks: int("syncLimit", 5, 1, 1000),
    maxClientCnxns: int("maxClientCnxns", DEFAULT_MAX_CLIENT_CNXNS, 0, 1_000_000),
    fourLetterWords: fourLetterWhitelist(values.get("4lw.commands.whitelist")?.value, (w) => warnings.push(w)),
    warnings,
  };
  if (systemProperties.size > 0) settings.systemProperties = systemProperties;
  const dataDir = values.get("dataDir")?.value;
  if (dataDir !== undefined) settings.dataDir = dataDir;
  const dataLogDir = values.get("dataLogDir")?.value;
  if (dataLogDir !== undefined) settings.dataLogDir = dataLogDir;
  const readOnly = values.get("readonlymode.enabled");
  if (readOnly !== undefined) {
    if (readOnly.value !== "true" && readOnly.value !== "false") throw new UserInputError(`${readOnly.at}: readonlymode.enabled: expected true or false, got "${readOnly.value}"`);
    settings.readOnlyModeEnabled = readOnly.value === "true";
    warnings.push(`${readOnly.at}: readonlymode.enabled is a Java system property in ZooKeeper 3.8 (-Dreadonlymode.enabled=true), which ignores it in zoo.cfg; zksim serve honours it here`);
  }
  const bool = (key: string): boolean | undefined => {
    const v = values.get(key);
    if (v === undefined) return undefined;
    if (v.value !== "true" && v.value !== "false") throw new UserInputError(`${v.at}: ${key}: expected true or false, got "${v.value}"`);
    return v.value === "true";
  };
  const local = bool("localSessionsEnabled");
  if (local !== undefined) settings.localSessionsEnabled = local;
  const reconfig = bool("reconfigEnabled");
  if (reconfig !== undefined) settings.reconfigEnabled = reconfig;
  const standalone = bool("standaloneEnabled");
  if (standalone !== undefined) settings.standaloneEnabled = standalone;
  const learnerMasterLimit = values.get("connectToLearnerMasterLimit");
  if (learnerMasterLimit !== undefined) settings.quorumTiming = quorumTimingFrom(new Map(), learnerMasterLimit);
  if (values.has("minSessionTimeout")) settings.minSessionTimeoutMs = int("minSessionTimeout", 0, 1, 10_000_000);
  if (values.has("maxSessionTimeout")) settings.maxSessionTimeoutMs = int("maxSessionTimeout", 0, 1, 10_000_000);
  const min = settings.minSessionTimeoutMs ?? 2 * tickTimeMs;
  const max = settings.maxSessionTimeoutMs ?? 20 * tickTimeMs;
  if (min > max) throw new UserInputError(`${file}: minSessionTimeout (${min} ms) is above maxSessionTimeout (${max} ms)`);
  return settings;
}

const KNOWN_KEYS = new Set(["dataDir", "dataLogDir", "tickTime", "initLimit", "syncLimit", "clientPort", "maxClientCnxns", "minSessionTimeout", "maxSessionTimeout", "4lw.commands.whitelist", "readonlymode.enabled", "localSessionsEnabled", "connectToLearnerMasterLimit", "reconfigEnabled", "standaloneEnabled"]);

/** No server lines: a standalone server on clientPort. Otherwise the members in sid order. */
function members(servers: ServerLine[], clientPort: number): ServeMember[] {
  if (servers.length === 0) return [{ sid: 1, node: "s1", observer: false, clientPort }];
  const sorted = [...servers].sort((a, b) => a.sid - b.sid);
  if (sorted.every((s) => s.observer)) throw new UserInputError(`zoo.cfg: every server is an observer; an ensemble needs voters`);
  const first = sorted[0]!.sid;
  const out = sorted.map((s) => ({ sid: s.sid, node: `s${s.sid}`, observer: s.observer, clientPort: s.clientPort ?? clientPort + (s.sid - first), quorumAddress: s.address }));
  const ports = new Set<number>();
  for (const m of out) {
    if (ports.has(m.clientPort)) throw new UserInputError(`zoo.cfg: two servers would listen on client port ${m.clientPort} (give each server.N its own ";port")`);
    ports.add(m.clientPort);
  }
  if (out.length === 1 && out[0]!.observer) throw new UserInputError(`zoo.cfg: a single server cannot be an observer`);
  return out;
}

/**
 * Settings from command-line flags: `servers` voters then `observers` observers, then `joiners`
 * voters started outside the config (for `reconfig -add`), ports from `basePort`.
 */
export function settingsFromFlags(servers: number, observers: number, basePort: number, joiners = 0): ServeSettings {
  if (servers < 1 || servers > 9) throw new UserInputError(`--servers: expected 1 to 9, got ${servers}`);
  if (observers < 0 || observers > 9) throw new UserInputError(`--observers: expected 0 to 9, got ${observers}`);
  if (joiners < 0 || joiners > 9) throw new UserInputError(`--joiners: expected 0 to 9, got ${joiners}`);
  if (servers === 1 && observers + joiners > 0) throw new UserInputError(`--${observers > 0 ? "observers" : "joiners"}: ${observers > 0 ? "observers" : "joiners"} need an ensemble (--servers ≥ 2)`);
  const total = servers + observers + joiners;
  if (basePort < 1 || basePort + total - 1 > 65535) throw new UserInputError(`--base-port: ports ${basePort}…${basePort + total - 1} are not all valid TCP ports`);
  const members = Array.from({ length: total }, (_, i) => ({ sid: i + 1, node: `s${i + 1}`, observer: i >= servers && i < servers + observers, clientPort: basePort + i, ...(i >= servers + observers ? { joiner: true } : {}) }));
  return { members, tickTimeMs: 2000, initLimitTicks: 10, syncLimitTicks: 5, maxClientCnxns: DEFAULT_MAX_CLIENT_CNXNS, fourLetterWords: fourLetterWhitelist(undefined), warnings: [] };
}
