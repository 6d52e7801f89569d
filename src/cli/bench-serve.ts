/**
 * `zksim bench serve`: the project's TCP client (runtime/tcp-client.ts) against `zksim serve`
 * with 3 servers, in a child process, and against a real ZooKeeper 3.8 ensemble of 3 servers on
 * this machine (Debian's package, each member in its own temp directory on 127.0.0.1), measured
 * alike:
 *
 * - `setdata_sync`, `getdata_sync`: synchronous round trips (one request in flight) per second
 *   over `WINDOW_MS` of wall time, after a short warm-up, the client connected to the leader;
 * - `leader_crash_to_write`: from the leader's crash (`zksim ctl crash sN` on the control port;
 *   `kill -9` of the real leader found by `srvr`'s Mode) to the client's first acknowledged
 *   setData, retried every `RETRY_MS` while the client reconnects and the ensemble elects; over
 *   `ZKSIM_BENCH_SERVE_CRASH_ROUNDS` rounds (default 10), each with the crashed member brought
 *   back and a fresh client on the new leader. The figure is mostly the client's own reconnect
 *   pauses (as Java's ClientCnxn: a random sleep of up to 1 s before each attempt, 1 s more
 *   after a full cycle of the host list), so one round alone says little;
 * - the same rounds in phases: `leader_crash_to_client_disconnect` (the client finds its
 *   connection lost), `leader_crash_to_session_reconnected` (its session re-established on a
 *   survivor), `leader_crash_client_connect_attempts` (connects tried until then, the good one
 *   included), `leader_crash_to_new_leader` (a new leader with a follower, `srvr` polled on the
 *   survivors every `RETRY_MS`), and the survivors' own `mntr` summaries of the failover, read
 *   before the crash and after it (3.8's ServerMetrics; serve keeps the same ones):
 *   `failover_election_time` (the new leader's FastLeaderElection), `failover_leader_unavailable_time`
 *   (its LOOKING to BROADCAST), `failover_follower_sync_time` (the follower's DIFF…UPTODATE) and
 *   `failover_follower_unavailable_time`. Each is the median of the rounds with `_p25`, `_p75`,
 *   `_min` and `_max` beside it.
 *
 * Where ZooKeeper is not installed or its ensemble does not come up, its figures are left out
 * and stderr says why. With `ZKSIM_PORT_RANGE=lo-hi` every port (serve's, the real members')
 * comes from that range. `ZKSIM_BENCH_SERVE=zksim` measures serve only, and
 * `ZKSIM_BENCH_SERVE_WINDOW_MS` shortens the ops/s window (the smoke test uses both);
 * `ZKSIM_BENCH_SERVE_ARGS` adds arguments to serve's command line (`--timing lan`,
 * `-Dzookeeper.leaderConnectDelayDuringRetryMs=500`, …; a bad one makes serve exit, and the
 * bench says so). Every child process is started in its own process group and stopped by its
 * PID; temp directories are removed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { connectOverTcp, type TcpClient } from "../runtime/tcp-client.js";
import { isKeeperException } from "../zk/client/keeper-exception.js";
import { CreateMode, EventType, Ids, KeeperState } from "../zk/proto/records.js";
import { askFourLetterWord } from "../conformance/runner.js";
import { ZK_SERVER_SH, freePort, freePorts, realZooKeeperInstalled, spawnProcessGroup, stopProcessGroup } from "../conformance/real-zookeeper.js";
import { sendControlLine } from "./commands/ctl.js";
import type { Figure } from "./bench.js";
import { UserInputError } from "../sim/errors.js";

const DEFAULT_WINDOW_MS = 3000;
// Long enough for the JIT to compile the bench's own client and both servers' request paths: the
// zksim side is measured first, so a short warm-up charged the client's compilation to it alone.
const WARMUP_MS = 2000;
const RETRY_MS = 10;
const SESSION_TIMEOUT_MS = 10_000;
const START_TIMEOUT_MS = 60_000;
const CRASH_TIMEOUT_MS = 30_000;
const DEFAULT_CRASH_ROUNDS = 10;
/** How long after a crash round's write the bench waits for both survivors' mntr to show the failover's summaries. */
const METRICS_TIMEOUT_MS = 10_000;
/** The four-letter words the bench asks (3.8 admits `srvr` only by default). */
const WHITELIST = "srvr,mntr";
const START_ATTEMPTS = 5;
const BENCH_PATH = "/zksim-bench-serve";

/** A 3-server ensemble the bench drives. */
interface Ensemble {
  bench: string;
  clientPorts: number[];
  /** Crashes the current leader; resolves when the crash was issued. */
  crashLeader(leaderIndex: number): Promise<void>;
  /** Brings a crashed member back. */
  restart(index: number): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `srvr`'s Mode of each port ("leader", "follower", or "" when it does not answer or serve). */
async function modes(ports: readonly number[]): Promise<string[]> {
  return Promise.all(
    ports.map(async (port) => {
      const answer = await askFourLetterWord({ host: "127.0.0.1", port }, "srvr", 2000).catch(() => "");
      return /^Mode: (\w+)$/m.exec(answer)?.[1] ?? "";
    }),
  );
}

/** The ensemble's process ended while the bench waited for it to serve. */
class ExitedEarly extends Error {}

/** Waits until one member leads and the others follow; returns the leader's index. Stops early when `running()` turns false. */
async function leaderIndex(ports: readonly number[], timeoutMs: number, what: string, running: () => boolean = () => true): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (!running()) throw new ExitedEarly(`${what} exited before it served`);
    const m = await modes(ports);
    if (m.filter((x) => x === "leader").length === 1 && m.every((x) => x === "leader" || x === "follower")) return m.indexOf("leader");
    if (performance.now() > deadline) throw new Error(`${what}: no leader with two followers within ${timeoutMs} ms (srvr modes: ${m.map((x) => x || "-").join(", ")})`);
    await sleep(200);
  }
}

async function startZksimServe(extraArgs: readonly string[]): Promise<Ensemble> {
  const bin = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));
  for (let attempt = 1; ; attempt++) {
    // The control port on a port free now, s1…s3 on the next three. Another process may take one
    // of them meanwhile (they lie in the ephemeral range): serve then exits at once, and the
    // bench tries other ports.
    const base = (await freePort()) + 1;
    const child = spawnProcessGroup(process.execPath, ["--max-semi-space-size=64", bin, "serve", "--servers", "3", "--base-port", String(base), "--control-port", String(base - 1), "--seed", "1", "--no-record", `-Dzookeeper.4lw.commands.whitelist=${WHITELIST}`, ...extraArgs]);
    const clientPorts = [base, base + 1, base + 2];
    try {
      await leaderIndex(clientPorts, START_TIMEOUT_MS, "zksim serve", () => child.exitCode === null && child.signalCode === null);
    } catch (err) {
      await stopProcessGroup(child);
      if (err instanceof ExitedEarly && attempt < START_ATTEMPTS) continue;
      throw err;
    }
    return {
      bench: "serve-zksim",
      clientPorts,
      async crashLeader(i) {
        const answer = await sendControlLine(base - 1, `crash s${i + 1}`);
        if (!answer.startsWith("ok")) throw new Error(`zksim ctl crash s${i + 1}: ${answer}`);
      },
      async restart(i) {
        const answer = await sendControlLine(base - 1, `restart s${i + 1}`);
        if (!answer.startsWith("ok")) throw new Error(`zksim ctl restart s${i + 1}: ${answer}`);
      },
      stop: () => stopProcessGroup(child),
    };
  }
}

/** A real ZooKeeper 3.8 ensemble: three members on 127.0.0.1, each with its own dir and ports. */
async function startRealEnsemble(): Promise<Ensemble> {
  const dir = mkdtempSync(join(tmpdir(), "zksim-bench-zk-"));
  const ports = await freePorts(9);
  const clientPorts = ports.slice(0, 3);
  const servers = [1, 2, 3].map((sid) => `server.${sid}=127.0.0.1:${ports[2 + sid]}:${ports[5 + sid]}`);
  const member = (sid: number) => {
    const home = join(dir, `s${sid}`);
    return spawnProcessGroup(ZK_SERVER_SH, ["start-foreground", join(home, "zoo.cfg")], { ...process.env, ZOO_LOG_DIR: home, ZOO_LOG4J_PROP: "WARN,CONSOLE" });
  };
  const children = [1, 2, 3].map((sid) => {
    const home = join(dir, `s${sid}`);
    mkdirSync(join(home, "data"), { recursive: true });
    writeFileSync(join(home, "data", "myid"), `${sid}\n`);
    writeFileSync(join(home, "zoo.cfg"), ["tickTime=2000", "initLimit=10", "syncLimit=5", `dataDir=${join(home, "data")}`, `clientPort=${clientPorts[sid - 1]}`, "clientPortAddress=127.0.0.1", `4lw.commands.whitelist=${WHITELIST}`, "admin.enableServer=false", ...servers, ""].join("\n"));
    return member(sid);
  });
  const stop = async () => {
    await Promise.all(children.map((c) => stopProcessGroup(c)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await leaderIndex(clientPorts, START_TIMEOUT_MS, "real ZooKeeper ensemble");
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    bench: "serve-zookeeper",
    clientPorts,
    async crashLeader(i) {
      await stopProcessGroup(children[i]!, "SIGKILL");
    },
    async restart(i) {
      children[i] = member(i + 1);
    },
    stop,
  };
}

/** What the bench's client did, as it happened: each connect attempt, each lost connection, each state change (wall ms). */
interface ClientEvent {
  atMs: number;
  kind: "connect" | "disconnect" | "connected";
}

/** A client and its own log of events (`ClientEvent`). */
interface BenchClient {
  tcp: TcpClient;
  events: ClientEvent[];
}

/** Our client, connected (bounded wait); `seed` picks its host order. */
async function connect(connectString: string, seed: number): Promise<BenchClient> {
  let client: TcpClient | undefined;
  const events: ClientEvent[] = [];
  const onAnnotation = (kind: string, fields: unknown) => {
    const atMs = performance.now();
    if (kind === "client.connect") events.push({ atMs, kind: "connect" });
    else if (kind === "client.disconnect") events.push({ atMs, kind: "disconnect" });
    else if (kind === "client.state" && (fields as { state?: string }).state === "CONNECTED") events.push({ atMs, kind: "connected" });
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the client did not connect to ${connectString} within ${SESSION_TIMEOUT_MS} ms`)), SESSION_TIMEOUT_MS);
    client = connectOverTcp({
      connectString,
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      seed,
      id: "bench",
      onAnnotation,
      watcher: (e) => {
        if (e.type === EventType.None && e.state === KeeperState.SyncConnected) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  return { tcp: client!, events };
}

/** A client on the leader (its host order drawn again until it picks the leader first). */
async function clientOnLeader(e: Ensemble, leader: number): Promise<BenchClient> {
  const connectString = e.clientPorts.map((p) => `127.0.0.1:${p}`).join(",");
  for (let seed = 1; ; seed++) {
    const client = await connect(connectString, seed);
    if (client.tcp.connectedTo() === `127.0.0.1:${e.clientPorts[leader]}` || seed >= 12) return client;
    await client.tcp.close();
  }
}

/** Synchronous round trips per second of `op` over the window (after a warm-up). */
async function opsPerSecond(op: () => Promise<unknown>, windowMs: number): Promise<number> {
  const warmEnd = performance.now() + WARMUP_MS;
  while (performance.now() < warmEnd) await op();
  let done = 0;
  const start = performance.now();
  while (performance.now() - start < windowMs) {
    await op();
    done++;
  }
  return Math.round((done / ((performance.now() - start) / 1000)) * 10) / 10;
}

/** The failover summaries mntr prints (3.8's ServerMetrics; serve keeps them too): name → [sum, cnt]. */
const FAILOVER_SUMMARIES = ["election_time", "unavailable_time", "leader_unavailable_time", "follower_sync_time"] as const;
type FailoverSummary = (typeof FAILOVER_SUMMARIES)[number];

interface MemberMetrics {
  state: string;
  sums: Map<FailoverSummary, { sum: number; cnt: number }>;
}

/** A member's `mntr`: its state and the failover summaries' sum and count (undefined when it does not answer or serve). */
async function memberMetrics(port: number): Promise<MemberMetrics | undefined> {
  const answer = await askFourLetterWord({ host: "127.0.0.1", port }, "mntr", 2000).catch(() => "");
  const lines = new Map(answer.split("\n").map((line): [string, string | undefined] => [line.split("\t")[0]!, line.split("\t")[1]]));
  const value = (key: string) => lines.get(key);
  const state = value("zk_server_state");
  if (state === undefined) return undefined;
  const sums = new Map<FailoverSummary, { sum: number; cnt: number }>();
  for (const name of FAILOVER_SUMMARIES) sums.set(name, { sum: Number(value(`zk_sum_${name}`) ?? 0), cnt: Number(value(`zk_cnt_${name}`) ?? 0) });
  return { state, sums };
}

/** The mean of a summary's values recorded between two readings of one member, if it recorded any. */
function recorded(before: MemberMetrics | undefined, after: MemberMetrics | undefined, name: FailoverSummary): number | undefined {
  const b = before?.sums.get(name);
  const a = after?.sums.get(name);
  if (a === undefined || b === undefined || a.cnt <= b.cnt) return undefined;
  return Math.round((a.sum - b.sum) / (a.cnt - b.cnt));
}

/** One crash round, every time in ms from the crash. */
interface CrashRound {
  /** A new leader with a follower, as `srvr` on the survivors tells. */
  leaderMs: number;
  /** The client's first acknowledged setData. */
  writeMs: number;
  /** The client's connection to the crashed leader found lost. */
  disconnectMs: number;
  /** The client's session re-established on a survivor (ConnectResponse). */
  reconnectMs: number;
  /** Connect attempts after the crash, the one that succeeded included. */
  attempts: number;
  /** The ensemble's own phases, from the survivors' mntr (absent when a member did not report them in time). */
  electionMs?: number;
  leaderUnavailableMs?: number;
  followerSyncMs?: number;
  followerUnavailableMs?: number;
}

/** The survivors' failover summaries recorded since `before`, once both recorded their unavailable time (bounded wait). */
async function serverPhases(ports: readonly number[], before: readonly (MemberMetrics | undefined)[]): Promise<Partial<CrashRound>> {
  const deadline = performance.now() + METRICS_TIMEOUT_MS;
  for (;;) {
    const after = await Promise.all(ports.map(memberMetrics));
    const done = after.every((m, i) => recorded(before[i], m, "unavailable_time") !== undefined);
    if (done || performance.now() > deadline) {
      const leader = after.findIndex((m) => m?.state === "leader");
      const follower = after.findIndex((m) => m?.state === "follower");
      const phases: Partial<CrashRound> = {};
      const put = (key: keyof CrashRound, i: number, name: FailoverSummary) => {
        const v = i < 0 ? undefined : recorded(before[i], after[i], name);
        if (v !== undefined) (phases as Record<string, number>)[key] = v;
      };
      put("electionMs", leader, "election_time");
      put("leaderUnavailableMs", leader, "leader_unavailable_time");
      put("followerSyncMs", follower, "follower_sync_time");
      put("followerUnavailableMs", follower, "unavailable_time");
      return phases;
    }
    await sleep(50);
  }
}

/** Crashes the leader; measures the times to a new leader, to the client's reconnect and first acknowledged setData, and the survivors' own phases. */
async function crashToWrite(e: Ensemble, client: BenchClient, leader: number): Promise<CrashRound> {
  const data = new TextEncoder().encode("after-crash");
  const others = e.clientPorts.filter((_, i) => i !== leader);
  const before = await Promise.all(others.map(memberMetrics));
  const start = performance.now();
  const timedOut = () => performance.now() - start > CRASH_TIMEOUT_MS;
  const firstEvent = client.events.length;
  await e.crashLeader(leader);
  const newLeader = (async () => {
    for (;;) {
      const m = await modes(others);
      if (m.includes("leader") && m.includes("follower")) return Math.round(performance.now() - start);
      if (timedOut()) throw new Error(`${e.bench}: no new leader with a follower within ${CRASH_TIMEOUT_MS} ms of the leader's crash`);
      await sleep(RETRY_MS);
    }
  })();
  const write = (async () => {
    for (;;) {
      try {
        await client.tcp.zk.setData(BENCH_PATH, data, -1);
        return Math.round(performance.now() - start);
      } catch (err) {
        if (!isKeeperException(err)) throw err;
      }
      if (timedOut()) throw new Error(`${e.bench}: no write acknowledged within ${CRASH_TIMEOUT_MS} ms of the leader's crash`);
      await sleep(RETRY_MS);
    }
  })();
  const [leaderMs, writeMs] = await Promise.all([newLeader, write]);
  const events = client.events.slice(firstEvent);
  const at = (kind: ClientEvent["kind"]) => Math.round((events.find((x) => x.kind === kind)?.atMs ?? Number.NaN) - start);
  const reconnectMs = at("connected");
  const attempts = events.filter((x) => x.kind === "connect" && x.atMs - start <= reconnectMs).length;
  return { leaderMs, writeMs, disconnectMs: at("disconnect"), reconnectMs, attempts, ...(await serverPhases(others, before)) };
}

/** The median, quartiles, min and max of `values` as figures `metric`, `metric_p25`, `metric_p75`, `metric_min`, `metric_max`. */
function spread(bench: string, metric: string, values: readonly number[], unit = "ms"): Figure[] {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return [];
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return [
    { bench, metric, value: at(0.5), unit },
    { bench, metric: `${metric}_p25`, value: at(0.25), unit },
    { bench, metric: `${metric}_p75`, value: at(0.75), unit },
    { bench, metric: `${metric}_min`, value: sorted[0]!, unit },
    { bench, metric: `${metric}_max`, value: sorted[sorted.length - 1]!, unit },
  ];
}

/** Each crash-round metric: its figure name and how to read it off a round. */
const CRASH_METRICS: readonly [string, (r: CrashRound) => number | undefined, string?][] = [
  ["leader_crash_to_write", (r) => r.writeMs],
  ["leader_crash_to_new_leader", (r) => r.leaderMs],
  ["leader_crash_to_client_disconnect", (r) => r.disconnectMs],
  ["leader_crash_to_session_reconnected", (r) => r.reconnectMs],
  ["leader_crash_client_connect_attempts", (r) => r.attempts, "count"],
  ["failover_election_time", (r) => r.electionMs],
  ["failover_leader_unavailable_time", (r) => r.leaderUnavailableMs],
  ["failover_follower_sync_time", (r) => r.followerSyncMs],
  ["failover_follower_unavailable_time", (r) => r.followerUnavailableMs],
];

async function measure(e: Ensemble, windowMs: number, crashRounds: number): Promise<Figure[]> {
  let leader = await leaderIndex(e.clientPorts, START_TIMEOUT_MS, e.bench);
  let client = await clientOnLeader(e, leader);
  const figures: Figure[] = [];
  const crashes: CrashRound[] = [];
  let onLeader = 0;
  try {
    await client.tcp.zk.create(BENCH_PATH, new Uint8Array(0), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT).catch((err: unknown) => {
      if (!isKeeperException(err)) throw err;
    });
    const payload = new TextEncoder().encode("x".repeat(100));
    figures.push({ bench: e.bench, metric: "setdata_sync", value: await opsPerSecond(() => client.tcp.zk.setData(BENCH_PATH, payload, -1), windowMs), unit: "ops/s" });
    figures.push({ bench: e.bench, metric: "getdata_sync", value: await opsPerSecond(() => client.tcp.zk.getData(BENCH_PATH), windowMs), unit: "ops/s" });
    for (let round = 0; round < crashRounds; round++) {
      if (round > 0) {
        leader = await leaderIndex(e.clientPorts, START_TIMEOUT_MS, e.bench);
        client.tcp.abandon();
        client = await clientOnLeader(e, leader);
      }
      if (client.tcp.connectedTo() === `127.0.0.1:${e.clientPorts[leader]}`) onLeader++;
      crashes.push(await crashToWrite(e, client, leader));
      await e.restart(leader);
    }
  } finally {
    client.tcp.abandon();
  }
  return [
    ...figures,
    ...CRASH_METRICS.flatMap(([metric, read, unit]) => spread(e.bench, metric, crashes.map((c) => read(c) ?? Number.NaN), unit)),
    { bench: e.bench, metric: "crash_rounds", value: crashes.length, unit: "count" },
    { bench: e.bench, metric: "crash_rounds_client_on_leader", value: onLeader, unit: "count" },
  ];
}

async function measured(start: () => Promise<Ensemble>, windowMs: number, crashRounds: number): Promise<Figure[]> {
  const e = await start();
  try {
    return await measure(e, windowMs, crashRounds);
  } finally {
    await e.stop();
  }
}

/** The environment's choices: which targets, how long a window, how many crash rounds. */
function benchOptions(): { realZooKeeper: boolean; windowMs: number; crashRounds: number; serveArgs: string[] } {
  const targets = process.env.ZKSIM_BENCH_SERVE ?? "zksim,zookeeper";
  if (!/^(zksim|zookeeper)(,(zksim|zookeeper))*$/.test(targets) || !targets.includes("zksim")) throw new UserInputError(`ZKSIM_BENCH_SERVE: expected "zksim" or "zksim,zookeeper", got "${targets}"`);
  const rawWindow = process.env.ZKSIM_BENCH_SERVE_WINDOW_MS;
  const windowMs = rawWindow === undefined ? DEFAULT_WINDOW_MS : Number(rawWindow);
  if (!Number.isInteger(windowMs) || windowMs < 100 || windowMs > 60_000) throw new UserInputError(`ZKSIM_BENCH_SERVE_WINDOW_MS: expected whole ms in 100..60000, got "${rawWindow ?? ""}"`);
  const rawRounds = process.env.ZKSIM_BENCH_SERVE_CRASH_ROUNDS;
  const crashRounds = rawRounds === undefined ? DEFAULT_CRASH_ROUNDS : Number(rawRounds);
  if (!Number.isInteger(crashRounds) || crashRounds < 1 || crashRounds > 100) throw new UserInputError(`ZKSIM_BENCH_SERVE_CRASH_ROUNDS: expected a whole number in 1..100, got "${rawRounds ?? ""}"`);
  const serveArgs = (process.env.ZKSIM_BENCH_SERVE_ARGS ?? "").split(/\s+/).filter((a) => a !== "");
  return { realZooKeeper: targets.includes("zookeeper"), windowMs, crashRounds, serveArgs };
}

export async function serveBench(note: (line: string) => void = (line) => console.error(line)): Promise<Figure[]> {
  const { realZooKeeper, windowMs, crashRounds, serveArgs } = benchOptions();
  const figures = await measured(() => startZksimServe(serveArgs), windowMs, crashRounds);
  if (!realZooKeeper) return figures;
  if (!realZooKeeperInstalled()) {
    note(`bench serve: real ZooKeeper figures omitted: ${ZK_SERVER_SH} not found (apt-get install -y zookeeper)`);
    return figures;
  }
  try {
    figures.push(...(await measured(startRealEnsemble, windowMs, crashRounds)));
  } catch (err) {
    note(`bench serve: real ZooKeeper figures omitted: ${err instanceof Error ? err.message : String(err)}`);
  }
  return figures;
}
