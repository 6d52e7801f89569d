/**
 * Runs conformance op scripts (scripts.ts) against one server through the project's TCP client,
 * and records their transcripts (transcript.ts).
 *
 * A script gets a `ScriptContext`: named clients (each a session, connected before the script
 * goes on), `op` to run one call and record its value or error code, `events` to record the
 * watch events a client has received so far, and `fourLetterWord`. Every script works under its
 * own root path, created first; its czxid is the script's base zxid, so scripts may share a
 * server and still compare.
 *
 * Watch events are recorded only at a barrier: `events(c)` first runs a round trip on `c`'s
 * session (`sync` then `exists`), and ZooKeeper delivers a client's notifications before the
 * replies that follow them, so every event caused by an earlier step has arrived.
 */
import net from "node:net";
import { connectOverTcp, type TcpClient } from "../runtime/tcp-client.js";
import { isKeeperException } from "../zk/client/keeper-exception.js";
import type { ZooKeeper } from "../zk/client/zoo-keeper.js";
import type { WatchedEvent } from "../zk/client/watch-manager.js";
import { CreateMode, EventType, Ids, KeeperState } from "../zk/proto/records.js";
import { normalise, relativeZxid, type Normaliser, type Transcript, type TranscriptStep } from "./transcript.js";
import { codeName } from "../zk/proto/error-code.js";

export interface ConformanceTarget {
  /** `host:port` of one server (scripts run against a single server). */
  host: string;
  port: number;
  /** An ensemble's members, the initial voters then the joiners (ensemble scripts; absent for one server). */
  members?: readonly EnsembleMember[];
  /** Crashes server `sid` as a process dies (`kill -9` of a real one, `crash sN` on serve); ensembles only. */
  crash?(sid: number): Promise<void>;
}

/** One server of an ensemble as its config line gives it. */
export interface EnsembleMember {
  sid: number;
  /** `host:quorumPort:electionPort:role;clientHost:clientPort`. */
  spec: string;
}

/** Each member's ports by their names in transcripts (`quorum1`, `election1`, `client1`). */
export function memberPortNames(members: readonly EnsembleMember[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const m of members) {
    const ports = /^[^:]+:(\d+):(\d+)(?::\w+)?;(?:.*:)?(\d+)$/.exec(m.spec);
    if (ports === null) throw new Error(`server.${m.sid}: unreadable spec "${m.spec}"`);
    out.set(Number(ports[1]), `quorum${m.sid}`).set(Number(ports[2]), `election${m.sid}`).set(Number(ports[3]), `client${m.sid}`);
  }
  return out;
}

export interface ScriptContext {
  /** The script's root path (created before the script runs). */
  readonly root: string;
  /** The ensemble's members (ensemble scripts): server 1 is the one the clients connect to. */
  readonly members: readonly EnsembleMember[];
  /** A connected client, created on first use; its alias names its session in transcripts. */
  client(alias: string, options?: { sessionTimeoutMs?: number }): Promise<ZooKeeper>;
  /** A second handle on `alias`'s session (its id and password): the re-attach of a lost connection. */
  reattach(alias: string, newAlias: string): Promise<ZooKeeper>;
  /** Drops `alias`'s connection without closing its session (it expires after its timeout). */
  abandon(alias: string): void;
  /** Runs one op and records its normalised value or its error code's name. */
  op(step: string, call: () => Promise<unknown>): Promise<unknown>;
  /** Records the watch events `alias` has received since the last call (after a round-trip barrier). */
  events(alias: string, step: string): Promise<void>;
  /** Waits (up to `timeoutMs`) until `path` is gone as `alias` sees it; records whether it went. */
  awaitGone(alias: string, path: string, step: string, timeoutMs: number): Promise<void>;
  /** Sends a four-letter word on a fresh connection and records the answer after `mask`. */
  fourLetterWord(word: string, step: string, mask?: (answer: string) => unknown): Promise<void>;
  /** Records a value computed by the script itself. */
  note(step: string, value: unknown): void;
  /** A connected client on server `sid`'s client port (ensemble scripts), created on first use. */
  clientOn(alias: string, sid: number): Promise<ZooKeeper>;
  /** Server `sid`'s answer to a four-letter word (ensemble scripts), not recorded (`note` records what the script makes of it). */
  ask(sid: number, word: string): Promise<string>;
  /** The answer on `port` of the target's host (a port a reconfig gave), not recorded. */
  askPort(port: number, word: string): Promise<string>;
  /**
   * The server that leads, as `srvr` on each member says, once exactly one does and `among`
   * (default: every member) all serve; waits up to `timeoutMs`. Not recorded: which server
   * leads a real ensemble depends on which JVM came up first.
   */
  leader(timeoutMs: number, among?: readonly number[]): Promise<number>;
  /** Crashes server `sid` (ensemble scripts; see `ConformanceTarget.crash`). */
  crash(sid: number): Promise<void>;
  /** Names `port` in config text from now on (a port a reconfig gives a member). */
  namePort(port: number, name: string): void;
  /**
   * Writes raw bytes on a fresh connection, burst by burst (each followed by its wait), and
   * records what came back: the ConnectResponse's timeout, each reply's xid, error name and
   * zxid (`z+N`; 0 and −1 as they are), and whether and when (`closedBetweenMs`, in the buckets given) the
   * server closed the connection.
   */
  wire(step: string, bursts: readonly WireBurst[], closeBucketsMs?: readonly number[]): Promise<void>;
}

/** Bytes to write at once, then how long to read before the next burst. */
export interface WireBurst {
  bytes: Uint8Array;
  waitMs: number;
}

export interface ConformanceScript {
  name: string;
  /** What the script covers, one line. */
  about: string;
  run(t: ScriptContext): Promise<void>;
}

interface ClientSlot {
  tcp: TcpClient;
  events: WatchedEvent[];
  abandoned: boolean;
}

const CONNECT_TIMEOUT_MS = 10_000;

/** Runs one script against `target` and returns its transcript; the script's sessions are closed afterwards. */
export async function runScript(script: ConformanceScript, target: ConformanceTarget, seed = 1): Promise<Transcript> {
  const steps: TranscriptStep[] = [];
  const slots = new Map<string, ClientSlot>();
  const ports = memberPortNames(target.members ?? []);
  const norm: Normaliser = { baseZxid: 0n, sessions: new Map(), root: `/conformance-${script.name}`, ports };
  let nextSeed = seed;

  const open = async (alias: string, options: { sessionTimeoutMs?: number; sessionId?: bigint; sessionPasswd?: Uint8Array; port?: number }) => {
    const connectString = `${target.host}:${options.port ?? target.port}`;
    const events: WatchedEvent[] = [];
    const connected = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${script.name}: client ${alias} did not connect to ${connectString} within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
      const tcp = connectOverTcp({
        connectString,
        sessionTimeoutMs: options.sessionTimeoutMs ?? 30_000,
        seed: nextSeed++,
        id: alias,
        ...(options.sessionId !== undefined ? { sessionId: options.sessionId, sessionPasswd: options.sessionPasswd! } : {}),
        watcher: (e) => {
          if (e.type === EventType.None && e.state === KeeperState.SyncConnected) {
            clearTimeout(timer);
            resolve();
            return;
          }
          events.push(e);
        },
      });
      slots.set(alias, { tcp, events, abandoned: false });
    });
    await connected;
    const zk = slots.get(alias)!.tcp.zk;
    norm.sessions.set(zk.getSessionId(), alias);
    return zk;
  };

  const record = (step: string, value: unknown) => steps.push({ step, ok: normalise(value, norm) });
  const t: ScriptContext = {
    get root() {
      return norm.root;
    },
    members: target.members ?? [],
    async client(alias, options = {}) {
      return slots.get(alias)?.tcp.zk ?? open(alias, options);
    },
    async clientOn(alias, sid) {
      return slots.get(alias)?.tcp.zk ?? open(alias, { port: clientPortOf(target, sid) });
    },
    ask(sid, word) {
      return askFourLetterWord({ host: target.host, port: clientPortOf(target, sid) }, word);
    },
    askPort(port, word) {
      return askFourLetterWord({ host: target.host, port }, word);
    },
    async leader(timeoutMs, among) {
      const sids = among ?? (target.members ?? []).map((m) => m.sid);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const modes = await Promise.all(sids.map((sid) => askFourLetterWord({ host: target.host, port: clientPortOf(target, sid) }, "srvr", 2000).then((a) => /^Mode: (\S+)$/m.exec(a)?.[1] ?? "", () => "")));
        const leaders = sids.filter((_, i) => modes[i] === "leader");
        if (leaders.length === 1 && modes.every((m) => m !== "")) return leaders[0]!;
        if (Date.now() > deadline) throw new Error(`${script.name}: no single leader among servers ${sids.join(", ")} within ${timeoutMs} ms (srvr modes: ${modes.map((m) => m || "-").join(", ")})`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async crash(sid) {
      if (target.crash === undefined) throw new Error(`${script.name}: this target cannot crash a server`);
      await target.crash(sid);
    },
    namePort(port, name) {
      ports.set(port, name);
    },
    async reattach(alias, newAlias) {
      const zk = slots.get(alias)!.tcp.zk;
      const again = await open(newAlias, { sessionId: zk.getSessionId(), sessionPasswd: zk.getSessionPasswd() });
      norm.sessions.set(again.getSessionId(), alias);
      return again;
    },
    abandon(alias) {
      const slot = slots.get(alias)!;
      slot.abandoned = true;
      slot.tcp.abandon();
    },
    async op(step, call) {
      try {
        const value = await call();
        record(step, value);
        return value;
      } catch (err) {
        if (!isKeeperException(err)) throw err;
        steps.push({ step, err: err.codeName });
        return undefined;
      }
    },
    async events(alias, step) {
      const slot = slots.get(alias)!;
      await slot.tcp.zk.sync("/");
      await slot.tcp.zk.exists("/");
      const seen = slot.events.splice(0).map((e) => ({ type: eventName(e.type), path: e.path }));
      record(step, seen);
    },
    async awaitGone(alias, path, step, timeoutMs) {
      const zk = slots.get(alias)!.tcp.zk;
      const deadline = Date.now() + timeoutMs;
      while ((await zk.exists(path)) !== null) {
        if (Date.now() > deadline) {
          record(step, { gone: false });
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      record(step, { gone: true });
    },
    async fourLetterWord(word, step, mask = (a) => a) {
      record(step, mask(await askFourLetterWord(target, word)));
    },
    note: record,
    async wire(step, bursts, closeBucketsMs = []) {
      record(step, await wireExchange(target, bursts, norm, closeBucketsMs));
    },
  };

  try {
    const admin = await t.client("admin");
    // A rerun against the same server takes the next free root.
    for (let k = 2; (await admin.exists(norm.root)) !== null; k++) norm.root = `/conformance-${script.name}-${k}`;
    await admin.create(norm.root, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    norm.baseZxid = (await admin.exists(norm.root))!.czxid;
    await script.run(t);
  } finally {
    for (const slot of slots.values()) {
      if (slot.abandoned) continue;
      await Promise.race([slot.tcp.close(), new Promise((r) => setTimeout(r, 2000))]);
      slot.tcp.abandon();
    }
  }
  return { script: script.name, steps };
}

/** Server `sid`'s client port, from its config line. */
function clientPortOf(target: ConformanceTarget, sid: number): number {
  const m = (target.members ?? []).find((x) => x.sid === sid);
  const port = m === undefined ? undefined : /;(?:.*:)?(\d+)$/.exec(m.spec)?.[1];
  if (port === undefined) throw new Error(`no client port for server.${sid} in this target`);
  return Number(port);
}

function eventName(type: number): string {
  const found = Object.entries(EventType).find(([, n]) => n === type);
  return found === undefined ? String(type) : found[0];
}

/** One four-letter word on its own connection: the server answers and closes. */
export function askFourLetterWord(target: ConformanceTarget, word: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: target.host, port: target.port });
    let answer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`four-letter word ${word}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("connect", () => socket.write(word));
    socket.on("data", (chunk) => (answer += chunk.toString("utf8")));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** One raw exchange for `ScriptContext.wire`. */
function wireExchange(target: ConformanceTarget, bursts: readonly WireBurst[], norm: Normaliser, closeBucketsMs: readonly number[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: target.host, port: target.port });
    const seen: unknown[] = [];
    let pending = Buffer.alloc(0);
    let startMs = 0;
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      const out: Record<string, unknown> = { frames: seen, closed };
      if (closed && closeBucketsMs.length > 0) out.closedBetweenMs = bucketOf(Date.now() - startMs, closeBucketsMs);
      socket.destroy();
      resolve(out);
    };
    socket.on("error", () => undefined); // a reset shows as "close"
    socket.on("close", () => finish(true));
    socket.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const payload = pending.subarray(4, 4 + pending.readInt32BE(0));
        pending = pending.subarray(4 + payload.length);
        if (seen.length === 0) seen.push({ connected: { timeOutMs: payload.readInt32BE(4) } });
        else {
          const zxid = payload.readBigInt64BE(4);
          seen.push({ xid: payload.readInt32BE(0), err: codeName(payload.readInt32BE(12)), zxid: zxid <= 0n ? Number(zxid) : relativeZxid(zxid, norm), bodyBytes: payload.length - 16 });
        }
      }
    });
    socket.on("connect", async () => {
      startMs = Date.now();
      try {
        for (const burst of bursts) {
          if (done) return;
          socket.write(burst.bytes);
          await new Promise((r) => setTimeout(r, burst.waitMs));
        }
        finish(false);
      } catch (err) {
        reject(err);
      }
    });
  });
}

/** "[a, b)" for the bucket bounds around `ms` (">= last" past the last). */
function bucketOf(ms: number, boundsMs: readonly number[]): string {
  let lower = 0;
  for (const b of boundsMs) {
    if (ms < b) return `[${lower}, ${b})`;
    lower = b;
  }
  return `>= ${lower}`;
}
