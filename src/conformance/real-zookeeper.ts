/**
 * A real Apache ZooKeeper 3.8 standalone server for the conformance suite: Debian's package
 * (`apt-get install -y zookeeper`), started in the foreground on 127.0.0.1 only, on a free port,
 * with its data and logs in a fresh temporary directory, and stopped by its process group's PID.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { askFourLetterWord, type ConformanceTarget } from "./runner.js";

export const ZK_SERVER_SH = "/usr/share/zookeeper/bin/zkServer.sh";

export function realZooKeeperInstalled(): boolean {
  return existsSync(ZK_SERVER_SH);
}

export interface RealZooKeeper extends ConformanceTarget {
  /** The server's `srvr` version line, e.g. "Zookeeper version: 3.8.0-…". */
  version: string;
  stop(): Promise<void>;
}

/**
 * A port free on 127.0.0.1 right now: any (the system's pick), or with `ZKSIM_PORT_RANGE=lo-hi`
 * in the environment (a machine shared by several runs) the first free one in that range.
 */
export async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.ZKSIM_PORT_RANGE ?? "");
  if (range === null) return listenOnce(0);
  for (let port = Number(range[1]); port <= Number(range[2]); port++) {
    const got = await listenOnce(port).catch(() => undefined);
    if (got !== undefined) return got;
  }
  throw new Error(`no free port in ZKSIM_PORT_RANGE ${process.env.ZKSIM_PORT_RANGE}`);
}

/** `n` distinct ports free on 127.0.0.1 right now (each held until all are found), from `ZKSIM_PORT_RANGE` when set. */
export async function freePorts(n: number): Promise<number[]> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.ZKSIM_PORT_RANGE ?? "");
  const held: net.Server[] = [];
  try {
    for (let port = range === null ? 0 : Number(range[1]); held.length < n; port++) {
      if (range !== null && port > Number(range[2])) throw new Error(`no ${n} free ports in ZKSIM_PORT_RANGE ${process.env.ZKSIM_PORT_RANGE}`);
      const probe = await holdPort(range === null ? 0 : port).catch(() => undefined);
      if (probe !== undefined) held.push(probe);
    }
    return held.map((p) => (p.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(held.map((p) => new Promise<void>((resolve) => p.close(() => resolve()))));
  }
}

function holdPort(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on("error", reject);
    probe.listen(port, "127.0.0.1", () => resolve(probe));
  });
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on("error", reject);
    probe.listen(port, "127.0.0.1", () => {
      const got = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(got));
    });
  });
}

/** A child started in its own process group (`detached`), output ignored: stopped by `stopProcessGroup`. */
export function spawnProcessGroup(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  return spawn(command, args, { env, stdio: "ignore", detached: true });
}

/** Stops a child's whole process group by its PID: `signal` (default SIGTERM), SIGKILL after 5 s. */
export async function stopProcessGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((r) => child.once("exit", r));
  process.kill(-child.pid, signal);
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid, "SIGKILL");
}

/**
 * Writes `dir/zoo.cfg` (3.8's default timing, data in `dir/data`, every four-letter word unless
 * `whitelistInZooCfg` is false, no admin server, then `keys`) and starts a server on it in the
 * foreground, logging into `dir`.
 */
function startServerIn(dir: string, keys: readonly string[], jvmFlags: string, whitelistInZooCfg = true): ChildProcess {
  const cfg = join(dir, "zoo.cfg");
  const whitelist = whitelistInZooCfg ? ["4lw.commands.whitelist=*"] : [];
  writeFileSync(cfg, ["tickTime=2000", "initLimit=10", "syncLimit=5", `dataDir=${join(dir, "data")}`, ...whitelist, "admin.enableServer=false", ...keys, ""].join("\n"));
  return spawnProcessGroup(ZK_SERVER_SH, ["start-foreground", cfg], { ...process.env, ZOO_LOG_DIR: dir, ZOO_LOG4J_PROP: "WARN,CONSOLE", SERVER_JVMFLAGS: jvmFlags });
}

/**
 * `jvmFlags` go to the server's JVM as `SERVER_JVMFLAGS` (zkServer.sh), e.g. `-Dzookeeper.…=…`;
 * `whitelistInZooCfg: false` leaves `4lw.commands.whitelist` out of zoo.cfg (to read it from a `-D`).
 */
export async function startRealZooKeeper(startTimeoutMs = 60_000, jvmFlags = "", whitelistInZooCfg = true): Promise<RealZooKeeper> {
  if (!realZooKeeperInstalled()) throw new Error(`${ZK_SERVER_SH} not found: apt-get install -y zookeeper`);
  const dir = mkdtempSync(join(tmpdir(), "zksim-real-zk-"));
  const port = await freePort();
  const child = startServerIn(dir, [`clientPort=${port}`, "clientPortAddress=127.0.0.1"], jvmFlags, whitelistInZooCfg);
  const target = { host: "127.0.0.1", port };
  const stop = async () => {
    await stopProcessGroup(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + startTimeoutMs;
  let version: string | undefined;
  for (;;) {
    // `ruok` answers before the server serves; `srvr` names the version only once it does.
    const answer = await askFourLetterWord(target, "srvr", 2000).catch(() => "");
    version = answer.split("\n").find((l) => l.startsWith("Zookeeper version:"));
    if (version !== undefined) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the real ZooKeeper did not start on 127.0.0.1:${port} within ${startTimeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { ...target, version, stop };
}

/** The port range a real ensemble takes its ports from (127.0.0.1 only). */
export const REAL_ENSEMBLE_PORT_RANGE = "25000-25999";

/** One server of a real ensemble: its id, client port, and its `server.N` spec as its dynamic config file lists it. */
export interface RealEnsembleMember {
  sid: number;
  clientPort: number;
  /** `127.0.0.1:quorumPort:electionPort:participant;127.0.0.1:clientPort`. */
  spec: string;
}

export interface RealEnsemble {
  /** The `srvr` version line of server 1. */
  version: string;
  /** The voters of the initial config, then the joiners (started with that config plus themselves, as 3.5+ adds a server). */
  members: RealEnsembleMember[];
  /** Kills server `sid` with SIGKILL (its process group), as a crash. */
  crash(sid: number): Promise<void>;
  stop(): Promise<void>;
}

export interface RealEnsembleOptions {
  /** Voters of the initial config (default 3). */
  servers?: number;
  /** Servers started outside the config, each with the config plus itself (default 0). */
  joiners?: number;
  /** zoo.cfg `reconfigEnabled` (3.8's default false). */
  reconfigEnabled: boolean;
  /** `SERVER_JVMFLAGS` of every server. */
  jvmFlags?: string;
  startTimeoutMs?: number;
}

/**
 * A real ZooKeeper 3.8 ensemble on 127.0.0.1, ports from `REAL_ENSEMBLE_PORT_RANGE`: each server
 * in its own temporary directory with a static zoo.cfg (`dynamicConfigFile=` naming its dynamic
 * file, as 3.8 splits a config) and a `zoo.cfg.dynamic` of `server.N=…` lines; a joiner's lists
 * the initial voters and itself. Resolves once every server serves (`srvr` names a mode); every
 * server is stopped by its process group's PID on `stop`, and at once if any fails to start.
 */
export async function startRealEnsemble(options: RealEnsembleOptions): Promise<RealEnsemble> {
  if (!realZooKeeperInstalled()) throw new Error(`${ZK_SERVER_SH} not found: apt-get install -y zookeeper`);
  const servers = options.servers ?? 3;
  const total = servers + (options.joiners ?? 0);
  const saved = process.env.ZKSIM_PORT_RANGE;
  process.env.ZKSIM_PORT_RANGE = REAL_ENSEMBLE_PORT_RANGE;
  let ports: number[];
  try {
    ports = await freePorts(3 * total);
  } finally {
    if (saved === undefined) delete process.env.ZKSIM_PORT_RANGE;
    else process.env.ZKSIM_PORT_RANGE = saved;
  }
  const members: RealEnsembleMember[] = Array.from({ length: total }, (_, i) => {
    const [clientPort, quorumPort, electionPort] = ports.slice(3 * i, 3 * i + 3) as [number, number, number];
    return { sid: i + 1, clientPort, spec: `127.0.0.1:${quorumPort}:${electionPort}:participant;127.0.0.1:${clientPort}` };
  });
  const line = (m: RealEnsembleMember) => `server.${m.sid}=${m.spec}`;
  const initial = members.slice(0, servers).map(line);
  const root = mkdtempSync(join(tmpdir(), "zksim-real-ensemble-"));
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.map((c) => stopProcessGroup(c)));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    for (const m of members) {
      const dir = join(root, `s${m.sid}`);
      mkdirSync(join(dir, "data"), { recursive: true });
      writeFileSync(join(dir, "data", "myid"), `${m.sid}\n`);
      const dynamic = join(dir, "zoo.cfg.dynamic");
      writeFileSync(dynamic, `${(m.sid <= servers ? initial : [...initial, line(m)]).join("\n")}\n`);
      children.push(startServerIn(dir, [`reconfigEnabled=${options.reconfigEnabled}`, `dynamicConfigFile=${dynamic}`], options.jvmFlags ?? ""));
    }
    const timeoutMs = options.startTimeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    let version = "";
    for (const m of members) {
      for (;;) {
        const answer = await askFourLetterWord({ host: "127.0.0.1", port: m.clientPort }, "srvr", 2000).catch(() => "");
        if (/^Mode: /m.test(answer)) {
          if (m.sid === 1) version = answer.split("\n").find((l) => l.startsWith("Zookeeper version:")) ?? "";
          break;
        }
        if (children.some((c) => c.exitCode !== null) || Date.now() > deadline) throw new Error(`the real ZooKeeper ensemble did not serve on 127.0.0.1:${m.clientPort} (server.${m.sid}) within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const crash = async (sid: number) => {
      const i = members.findIndex((m) => m.sid === sid);
      if (i < 0) throw new Error(`no server.${sid} in this ensemble`);
      await stopProcessGroup(children[i]!, "SIGKILL");
    };
    return { version, members, crash, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
