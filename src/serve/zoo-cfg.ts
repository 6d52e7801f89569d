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
  "clientPortAddress", "secureClientPort", "secureClientPortAddress", "autopurge.snapRetainCount", "autopurge.purgeInterval", "admin.enableServer",
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

/**
 * Parses the text of a zoo.cfg; `file` names it in messages. With `readDynamic` (which reads a
 * file by its path), a `dynamicConfigFile=PATH` key is followed as 3.8 follows it: the server
 * lines are that file's, and the zoo.cfg's own are ignored (3.8's backward-compatible form is a
 * zoo.cfg without the key).
 */
export function parseZooCfg(text: string, file = "zoo.cfg", readDynamic?: (path: string) => string): ServeSettings {
  return readZooCfg(text, file, readDynamic).settings;
}

/** A zoo.cfg's settings, and what a joiner's needs besides: its own server lines and `clientPort`. */
function readZooCfg(text: string, file: string, readDynamic: ((path: string) => string) | undefined): { settings: ServeSettings; servers: ServerLine[]; clientPort: number } {
  const values = new Map<string, { value: string; at: string }>();
  let servers: ServerLine[] = [];
  const warnings: string[] = [];
  const systemProperties = new Map<string, string>();
  forEachEntry(text, file, (key, value, at) => {
    if (key.startsWith("server.")) {
      addServerLine(servers, key, value, at);
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
  const dynamic = values.get("dynamicConfigFile");
  if (dynamic !== undefined && readDynamic !== undefined) servers = dynamicServerLines(readDynamic(dynamic.value), dynamic.value, warnings);
  const tickTimeMs = int("tickTime", 2000, 1, 600_000);
  const clientPort = int("clientPort", 2181, 1, 65535);
  const settings: ServeSettings = {
    members: members(servers, clientPort, file),
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
  return { settings, servers, clientPort };
}

/** Each `key=value` of a config file's text (`#` comments and blank lines skipped, blanks trimmed), with where it is (`file:line`). */
function forEachEntry(text: string, file: string, onEntry: (key: string, value: string, at: string) => void): void {
  text.split(/\r?\n/).forEach((rawLine, i) => {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#")) return;
    const at = `${file}:${i + 1}`;
    const eq = line.indexOf("=");
    if (eq <= 0) throw new UserInputError(`${at}: expected key=value, got "${line}"`);
    onEntry(line.slice(0, eq).trim(), line.slice(eq + 1).trim(), at);
  });
}

function addServerLine(servers: ServerLine[], key: string, value: string, at: string): void {
  const s = parseServerLine(key, value, at);
  if (servers.some((o) => o.sid === s.sid)) throw new UserInputError(`${at}: server.${s.sid} is defined twice`);
  servers.push(s);
}

/**
 * A dynamic config file's server lines (`server.N=…`; `group.`/`weight.` keys are accepted and
 * unused, as in a zoo.cfg). As in 3.8, it may not carry `version=` (the version is its file name's
 * suffix, which the simulation has no use for); any other key is a warning.
 */
function dynamicServerLines(text: string, file: string, warnings: string[]): ServerLine[] {
  const servers: ServerLine[] = [];
  forEachEntry(text, file, (key, value, at) => {
    if (key === "version") throw new UserInputError(`${at}: a dynamic config file may not carry version= (ZooKeeper takes it from the file name)`);
    if (key.startsWith("server.")) {
      addServerLine(servers, key, value, at);
    } else if (!key.startsWith("group.") && !key.startsWith("weight.")) {
      warnings.push(`${at}: unknown key "${key}" in a dynamic config file ignored`);
    }
  });
  return servers;
}

/** A joiner's own zoo.cfg (`zksim serve --joiner FILE`), read. */
export interface JoinerZooCfg {
  /** The file's name, for messages. */
  file: string;
  /** Its text. */
  text: string;
  /** Reads the dynamic config file it names (`dynamicConfigFile`), if any. */
  readDynamic?: (path: string) => string;
  /** Its `dataDir`'s `myid` file's text, when there is one (how 3.8 tells which server.N it is). */
  readMyid?: (dataDir: string) => string | undefined;
}

/**
 * The ensemble with its joiners: servers started outside its config, each by its own zoo.cfg, as
 * 3.8's reconfig guide starts a server about to be added — the last committed config plus the
 * joiner itself, listed as a participant or an observer (several joiners may list each other as
 * observers; it may leave out servers of the config). The joiner is its file's `server.N` that the
 * ensemble's config lacks; when the file lists more than one, its `dataDir/myid` says which, as
 * for 3.8. Its client port is its line's `;port`, else its file's `clientPort`. In the simulation
 * it starts with the ensemble's config plus its own line (serve-ensemble.ts), and it is only
 * added by a `reconfig -add` (which needs reconfigEnabled).
 */
export function withJoiners(settings: ServeSettings, joiners: readonly JoinerZooCfg[]): ServeSettings {
  if (joiners.length === 0) return settings;
  if (settings.members.length < 2) throw new UserInputError(`--joiner ${joiners[0]!.file}: joiners need an ensemble (a config of 2 or more servers)`);
  const members = [...settings.members];
  const warnings = [...settings.warnings];
  for (const j of joiners) {
    const { servers, clientPort, settings: own } = readZooCfg(j.text, j.file, j.readDynamic);
    if (servers.length === 0) throw new UserInputError(`--joiner ${j.file}: no server.N lines; a joiner's zoo.cfg lists the ensemble's servers and itself`);
    const outside = servers.filter((l) => !settings.members.some((m) => m.sid === l.sid));
    const line = joinerLine(j, own.dataDir, outside);
    if (members.some((m) => m.sid === line.sid)) throw new UserInputError(`--joiner ${j.file}: server.${line.sid} is declared by another --joiner file too`);
    const port = line.clientPort ?? clientPort;
    const taken = members.find((m) => m.clientPort === port);
    if (taken !== undefined) throw new UserInputError(`--joiner ${j.file}: server.${line.sid}'s client port ${port} is ${taken.node}'s too (give its line its own ";port", or its file its own clientPort)`);
    members.push({ sid: line.sid, node: `s${line.sid}`, observer: line.observer, clientPort: port, quorumAddress: line.address, joiner: true });
    warnings.push(...own.warnings);
  }
  return { ...settings, members: members.sort((a, b) => a.sid - b.sid), warnings };
}

/** Which of a joiner's file's lines outside the ensemble's config is the joiner: the only one, or its myid's. */
function joinerLine(j: JoinerZooCfg, dataDir: string | undefined, outside: readonly ServerLine[]): ServerLine {
  const ids = outside.map((l) => l.sid).join(", ");
  const myidText = dataDir === undefined ? undefined : j.readMyid?.(dataDir);
  if (myidText !== undefined) {
    const myid = myidText.trim();
    const line = outside.find((l) => String(l.sid) === myid);
    if (line === undefined) throw new UserInputError(`--joiner ${j.file}: its dataDir's myid is "${myid}", which is not one of its server.N lines outside the ensemble's config (${ids === "" ? "none" : ids})`);
    return line;
  }
  if (outside.length === 1) return outside[0]!;
  if (outside.length === 0) throw new UserInputError(`--joiner ${j.file}: every server.N line is in the ensemble's config; a joiner's zoo.cfg adds its own (server.N=host:peerPort:electionPort:participant|observer;clientPort)`);
  throw new UserInputError(`--joiner ${j.file}: lists servers ${ids} outside the ensemble's config, and no dataDir/myid says which one it is`);
}

const KNOWN_KEYS = new Set(["dynamicConfigFile", "dataDir", "dataLogDir", "tickTime", "initLimit", "syncLimit", "clientPort", "maxClientCnxns", "minSessionTimeout", "maxSessionTimeout", "4lw.commands.whitelist", "readonlymode.enabled", "localSessionsEnabled", "connectToLearnerMasterLimit", "reconfigEnabled", "standaloneEnabled"]);

/** No server lines: a standalone server on clientPort. Otherwise the members in sid order. */
function members(servers: ServerLine[], clientPort: number, file: string): ServeMember[] {
  if (servers.length === 0) return [{ sid: 1, node: "s1", observer: false, clientPort }];
  const sorted = [...servers].sort((a, b) => a.sid - b.sid);
  if (sorted.every((s) => s.observer)) throw new UserInputError(`${file}: every server is an observer; an ensemble needs voters`);
  const first = sorted[0]!.sid;
  const out = sorted.map((s) => ({ sid: s.sid, node: `s${s.sid}`, observer: s.observer, clientPort: s.clientPort ?? clientPort + (s.sid - first), quorumAddress: s.address }));
  const ports = new Set<number>();
  for (const m of out) {
    if (ports.has(m.clientPort)) throw new UserInputError(`${file}: two servers would listen on client port ${m.clientPort} (give each server.N its own ";port")`);
    ports.add(m.clientPort);
  }
  if (out.length === 1 && out[0]!.observer) throw new UserInputError(`${file}: a single server cannot be an observer`);
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
