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
 *   setData, retried every `RETRY_MS` while the client reconnects and the ensemble elects; the
 *   median (and min, max) of `CRASH_ROUNDS` rounds, each with the crashed member brought back
 *   and a fresh client on the new leader. The figure is mostly the client's own reconnect
 *   pauses (as Java's ClientCnxn: a random sleep of up to 1 s before each attempt, 1 s more
 *   after a full cycle of the host list), so one round alone says little;
 * - `leader_crash_to_new_leader`: in the same rounds, from the crash to a new leader with a
 *   follower, polled with `srvr` on the surviving members every `RETRY_MS`: the ensemble's own
 *   failover, without the client's pauses.
 *
 * Where ZooKeeper is not installed or its ensemble does not come up, its figures are left out
 * and stderr says why. With `ZKSIM_PORT_RANGE=lo-hi` every port (serve's, the real members')
 * comes from that range. `ZKSIM_BENCH_SERVE=zksim` measures serve only, and
 * `ZKSIM_BENCH_SERVE_WINDOW_MS` shortens the ops/s window (the smoke test uses both). Every child process is started in its own process group and stopped by
 * its PID; temp directories are removed.
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
const WARMUP_MS = 300;
const RETRY_MS = 10;
const SESSION_TIMEOUT_MS = 10_000;
const START_TIMEOUT_MS = 60_000;
const CRASH_TIMEOUT_MS = 30_000;
const CRASH_ROUNDS = 3;
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

async function startZksimServe(): Promise<Ensemble> {
  const bin = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));
  for (let attempt = 1; ; attempt++) {
    // The control port on a port free now, s1…s3 on the next three. Another process may take one
    // of them meanwhile (they lie in the ephemeral range): serve then exits at once, and the
    // bench tries other ports.
    const base = (await freePort()) + 1;
    const child = spawnProcessGroup(process.execPath, ["--max-semi-space-size=64", bin, "serve", "--servers", "3", "--base-port", String(base), "--control-port", String(base - 1), "--seed", "1", "--no-record"]);
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
    writeFileSync(join(home, "zoo.cfg"), ["tickTime=2000", "initLimit=10", "syncLimit=5", `dataDir=${join(home, "data")}`, `clientPort=${clientPorts[sid - 1]}`, "clientPortAddress=127.0.0.1", "4lw.commands.whitelist=srvr", "admin.enableServer=false", ...servers, ""].join("\n"));
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

/** Our client, connected (bounded wait); `seed` picks its host order. */
async function connect(connectString: string, seed: number): Promise<TcpClient> {
  let client: TcpClient | undefined;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the client did not connect to ${connectString} within ${SESSION_TIMEOUT_MS} ms`)), SESSION_TIMEOUT_MS);
    client = connectOverTcp({
      connectString,
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      seed,
      id: "bench",
      watcher: (e) => {
        if (e.type === EventType.None && e.state === KeeperState.SyncConnected) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  return client!;
}

/** A client on the leader (its host order drawn again until it picks the leader first). */
async function clientOnLeader(e: Ensemble, leader: number): Promise<TcpClient> {
  const connectString = e.clientPorts.map((p) => `127.0.0.1:${p}`).join(",");
  for (let seed = 1; ; seed++) {
    const client = await connect(connectString, seed);
    if (client.connectedTo() === `127.0.0.1:${e.clientPorts[leader]}` || seed >= 12) return client;
    await client.close();
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

/** A crash round's two times: to a new leader with a follower (`srvr`), and to the client's first acknowledged setData, in ms. */
interface CrashTimes {
  leaderMs: number;
  writeMs: number;
}

/** From the leader's crash to the first acknowledged setData, and to the new leader serving with a follower (polled with `srvr`), in ms. */
async function crashToWrite(e: Ensemble, client: TcpClient, leader: number): Promise<CrashTimes> {
  const data = new TextEncoder().encode("after-crash");
  const others = e.clientPorts.filter((_, i) => i !== leader);
  const start = performance.now();
  const timedOut = () => performance.now() - start > CRASH_TIMEOUT_MS;
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
        await client.zk.setData(BENCH_PATH, data, -1);
        return Math.round(performance.now() - start);
      } catch (err) {
        if (!isKeeperException(err)) throw err;
      }
      if (timedOut()) throw new Error(`${e.bench}: no write acknowledged within ${CRASH_TIMEOUT_MS} ms of the leader's crash`);
      await sleep(RETRY_MS);
    }
  })();
  const [leaderMs, writeMs] = await Promise.all([newLeader, write]);
  return { leaderMs, writeMs };
}

/** The median, min and max of `values` as three figures named `metric`, `metric_min`, `metric_max`. */
function spread(bench: string, metric: string, values: readonly number[]): Figure[] {
  const sorted = [...values].sort((a, b) => a - b);
  return [
    { bench, metric, value: sorted[Math.floor(sorted.length / 2)]!, unit: "ms" },
    { bench, metric: `${metric}_min`, value: sorted[0]!, unit: "ms" },
    { bench, metric: `${metric}_max`, value: sorted[sorted.length - 1]!, unit: "ms" },
  ];
}

async function measure(e: Ensemble, windowMs: number): Promise<Figure[]> {
  let leader = await leaderIndex(e.clientPorts, START_TIMEOUT_MS, e.bench);
  let client = await clientOnLeader(e, leader);
  const figures: Figure[] = [];
  const crashes: CrashTimes[] = [];
  let onLeader = 0;
  try {
    await client.zk.create(BENCH_PATH, new Uint8Array(0), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT).catch((err: unknown) => {
      if (!isKeeperException(err)) throw err;
    });
    const payload = new TextEncoder().encode("x".repeat(100));
    figures.push({ bench: e.bench, metric: "setdata_sync", value: await opsPerSecond(() => client.zk.setData(BENCH_PATH, payload, -1), windowMs), unit: "ops/s" });
    figures.push({ bench: e.bench, metric: "getdata_sync", value: await opsPerSecond(() => client.zk.getData(BENCH_PATH), windowMs), unit: "ops/s" });
    for (let round = 0; round < CRASH_ROUNDS; round++) {
      if (round > 0) {
        leader = await leaderIndex(e.clientPorts, START_TIMEOUT_MS, e.bench);
        client.abandon();
        client = await clientOnLeader(e, leader);
      }
      if (client.connectedTo() === `127.0.0.1:${e.clientPorts[leader]}`) onLeader++;
      crashes.push(await crashToWrite(e, client, leader));
      await e.restart(leader);
    }
  } finally {
    client.abandon();
  }
  return [
    ...figures,
    ...spread(e.bench, "leader_crash_to_write", crashes.map((c) => c.writeMs)),
    ...spread(e.bench, "leader_crash_to_new_leader", crashes.map((c) => c.leaderMs)),
    { bench: e.bench, metric: "crash_rounds_client_on_leader", value: onLeader, unit: "count" },
  ];
}

async function measured(start: () => Promise<Ensemble>, windowMs: number): Promise<Figure[]> {
  const e = await start();
  try {
    return await measure(e, windowMs);
  } finally {
    await e.stop();
  }
}

/** The environment's choices: which targets, how long a window. */
function benchOptions(): { realZooKeeper: boolean; windowMs: number } {
  const targets = process.env.ZKSIM_BENCH_SERVE ?? "zksim,zookeeper";
  if (!/^(zksim|zookeeper)(,(zksim|zookeeper))*$/.test(targets) || !targets.includes("zksim")) throw new UserInputError(`ZKSIM_BENCH_SERVE: expected "zksim" or "zksim,zookeeper", got "${targets}"`);
  const rawWindow = process.env.ZKSIM_BENCH_SERVE_WINDOW_MS;
  const windowMs = rawWindow === undefined ? DEFAULT_WINDOW_MS : Number(rawWindow);
  if (!Number.isInteger(windowMs) || windowMs < 100 || windowMs > 60_000) throw new UserInputError(`ZKSIM_BENCH_SERVE_WINDOW_MS: expected whole ms in 100..60000, got "${rawWindow ?? ""}"`);
  return { realZooKeeper: targets.includes("zookeeper"), windowMs };
}

export async function serveBench(note: (line: string) => void = (line) => console.error(line)): Promise<Figure[]> {
  const { realZooKeeper, windowMs } = benchOptions();
  const figures = await measured(startZksimServe, windowMs);
  if (!realZooKeeper) return figures;
  if (!realZooKeeperInstalled()) {
    note(`bench serve: real ZooKeeper figures omitted: ${ZK_SERVER_SH} not found (apt-get install -y zookeeper)`);
    return figures;
  }
  try {
    figures.push(...(await measured(startRealEnsemble, windowMs)));
  } catch (err) {
    note(`bench serve: real ZooKeeper figures omitted: ${err instanceof Error ? err.message : String(err)}`);
  }
  return figures;
}
