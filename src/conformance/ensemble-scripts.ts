/**
 * Conformance scripts that need an ensemble: 3.5+ dynamic reconfiguration (docs/zookeeper.md
 * §7.10). Each runs on a fresh ensemble of its own shape — a real 3.8.0 one (real-zookeeper.ts
 * `startRealEnsemble`) when recording, `zksim serve` with the same members when comparing — with
 * its clients on server 1, and the super digest of the single-server scripts (reconfig needs the
 * super user: /zookeeper/config grants only READ to anyone).
 *
 * Config text is compared with each member's ports named (transcript.ts), so the two ensembles'
 * different ports do not differ; the joining specs the scripts send are the members' own lines.
 */
import net from "node:net";
import { CreateMode, Ids } from "../zk/proto/records.js";
import { parseZooCfg, type ServeMember, type ServeSettings } from "../serve/zoo-cfg.js";
import { startServe } from "../serve/serve-session.js";
import { conformanceServeSettings } from "./scripts.js";
import { memberPortNames, runScript, type ConformanceScript, type EnsembleMember, type ScriptContext } from "./runner.js";
import { isKeeperException } from "../zk/client/keeper-exception.js";
import type { Stat } from "../zk/proto/records.js";
import { freePorts, startRealEnsemble } from "./real-zookeeper.js";
import type { Transcript } from "./transcript.js";

export interface EnsembleShape {
  /** Voters of the initial config. */
  servers: number;
  /** Servers started outside the config, for `reconfig -add`. */
  joiners: number;
  reconfigEnabled: boolean;
}

export interface EnsembleScript extends ConformanceScript {
  ensemble: EnsembleShape;
}

const SUPER = "super:adminsecret";

/** `server.N=spec` of member `sid`. */
function line(t: ScriptContext, sid: number): string {
  const m = t.members.find((x) => x.sid === sid);
  if (m === undefined) throw new Error(`no server.${sid} in this ensemble`);
  return `server.${sid}=${m.spec}`;
}

/**
 * `call`, again every 200 ms while it fails with CONNECTIONLOSS (the client's server is electing
 * or syncing and closed the connection; the client reconnects on its own), for up to `timeoutMs`.
 */
async function onceServing<T>(call: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (!isKeeperException(err) || err.codeName !== "CONNECTIONLOSS" || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** `conf`'s lines: directories and their sizes masked, each port named as config text names it (`client1`, `quorum1`, …, and `more`'s). */
function confLines(t: ScriptContext, more: ReadonlyMap<number, string> = new Map()): (answer: string) => string[] {
  const names = new Map([...memberPortNames(t.members), ...more]);
  return (answer) =>
    answer
      .split("\n")
      .filter((l) => l.length > 0)
      .map((l) =>
        l
          .replace(/^(dataDirSize|dataLogSize)=\d+$/, "$1=N")
          .replace(/^(dataDir|dataLogDir)=.*\/version-2$/, "$1=DIR/version-2")
          .replace(/^(clientPort|electionPort|quorumPort)=(\d+)$/, (whole, key: string, port: string) => `${key}=${names.get(Number(port)) ?? port}`),
      );
}

/**
 * A config as facts that do not depend on which server `sid` is: how many servers it lists,
 * whether `sid` is one, whether its version is the zxid that last wrote it, and its Stat.
 */
function configFacts(config: { data: Uint8Array | null; stat: Stat }, sid: number): unknown {
  const lines = new TextDecoder().decode(config.data ?? new Uint8Array(0)).split("\n");
  const version = lines.find((l) => l.startsWith("version="))?.slice("version=".length);
  return { servers: lines.filter((l) => l.startsWith("server.")).length, listed: lines.some((l) => l.startsWith(`server.${sid}=`)), versionIsItsMzxid: version === config.stat.mzxid.toString(16), stat: config.stat };
}

/** `probe()` every 100 ms until `done` holds for its value or `timeoutMs` passed; the last value. */
async function pollUntil<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether a TCP connect to 127.0.0.1:`port` is refused now. */
function connectRefused(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => (socket.destroy(), resolve(false)));
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ECONNREFUSED"));
  });
}

/**
 * `mntr`'s keys in order, without the summaries 3.8 adds at run time: per top-level znode read or
 * written (four-letter-words leaves them out too) and per learner on a leader
 * (`zk_avg_<sid>_learner_handler_qp_size`, …), which serve does not print (docs/serve.md).
 */
function mntrKeys(mntr: string): string[] {
  return mntr
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split("\t")[0]!)
    .filter((k) => !/_(read|write)_per_namespace$/.test(k) && !/_\d+_learner_handler_qp_(size|time_ms)$/.test(k));
}

/** `srvr`'s Mode ("-" when it names none: not serving). */
function modeOf(srvr: string): string {
  return /^Mode: (\S+)$/m.exec(srvr)?.[1] ?? "-";
}

/** Server `sid`'s `srvr` Mode once it names one (it serves), polled for up to `timeoutMs`. */
function servingMode(t: ScriptContext, sid: number, timeoutMs: number): Promise<string> {
  return pollUntil(() => t.ask(sid, "srvr").then(modeOf, () => "-"), (mode) => mode !== "-", timeoutMs);
}

/** Records the `srvr` modes of `sids`, sorted (which of them leads is not compared). */
async function modesOf(t: ScriptContext, sids: readonly number[], step: string): Promise<void> {
  const modes: string[] = [];
  for (const sid of sids) modes.push(modeOf(await t.ask(sid, "srvr")));
  t.note(step, modes.sort());
}

/** Servers no process runs: the new config they make has no quorum connected to the leader. */
const ABSENT = ["server.7=127.0.0.1:1:2;3", "server.8=127.0.0.1:4:5;6", "server.9=127.0.0.1:7:8;9"].join(",");

export const ENSEMBLE_CONFORMANCE_SCRIPTS: readonly EnsembleScript[] = [
  {
    name: "reconfig",
    about: "config and reconfig add/remove/members by the super user on a reconfigEnabled ensemble, /zookeeper/config's data and Stat after each, its watch, and the refusals (NOAUTH, BADVERSION, BADARGUMENTS, NEWCONFIGNOQUORUM)",
    ensemble: { servers: 3, joiners: 1, reconfigEnabled: true },
    async run(t) {
      const a = await t.client("a");
      await t.op("config: the initial config, versioned by the first leader's NEWLEADER zxid", () => a.getConfig());
      await t.op("reconfig -remove 3 without the super user: NOAUTH", () => a.reconfig(null, "3", null));
      a.addAuthInfo("digest", SUPER);
      await t.op("config with a watch (after addauth super)", () => a.getConfig(true));
      await t.op("reconfig -add the joiner server.4", () => a.reconfig(line(t, 4), null, null));
      await t.events("a", "the config watch fired once");
      const added = (await t.op("config after the add", () => a.getConfig())) as { stat: { mzxid: bigint } } | undefined;
      // Only the joiner is removed: which initial server leads a real ensemble depends on which
      // JVM came up first, and removing the leader makes the ensemble elect again (the client's
      // reply then races its connection's loss).
      await t.op("reconfig from a config version that is not the current one: BADVERSION", () => a.reconfig(null, "4", null, 1n));
      await t.op("reconfig -remove 4 from the current version", () => a.reconfig(null, "4", null, added?.stat.mzxid ?? -1n));
      await t.op("config after the remove", () => a.getConfig());
      await t.op("reconfig -members server.1, 2 and 3 (non-incremental)", () => a.reconfig(null, null, [line(t, 1), line(t, 2), line(t, 3)].join(",")));
      await t.op("reconfig leaving one voter (standaloneEnabled): BADARGUMENTS", () => a.reconfig(null, "2,3", null));
      await t.op("reconfig -add three servers no one runs: NEWCONFIGNOQUORUM", () => a.reconfig(ABSENT, null, null));
      await t.op("reconfig -add a server without its client port: BADARGUMENTS", () => a.reconfig("server.5=127.0.0.1:10:11", null, null));
      await t.op("config at the end", () => a.getConfig());
      await t.op("a write still commits under the new config", () => a.create(`${t.root}/after`, new TextEncoder().encode("x"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
    },
  },
  {
    name: "reconfig-disabled",
    about: "reconfigEnabled=false (3.8's default): config shows the static config (version 0); reconfig is refused, by the super user too",
    ensemble: { servers: 3, joiners: 0, reconfigEnabled: false },
    async run(t) {
      const a = await t.client("a");
      await t.op("config: the static config, version 0", () => a.getConfig());
      await t.op("reconfig -remove 3 without the super user", () => a.reconfig(null, "3", null));
      a.addAuthInfo("digest", SUPER);
      await t.op("reconfig -remove 3 as the super user", () => a.reconfig(null, "3", null));
      await t.op("config unchanged", () => a.getConfig());
      t.note("conf of server 1: zoo.cfg's addresses and ports, the membership (directories and sizes masked)", confLines(t)(await t.ask(1, "conf")));
    },
  },
  {
    name: "reconfig-remove-leader",
    about: "reconfig -remove of the leader through a follower: answered or the connection lost as the leader hands off (3.8's documented short unavailability), then the config without it, a new leader among the others, the removed one a non-voting follower, the session kept, a write committed",
    ensemble: { servers: 3, joiners: 0, reconfigEnabled: true },
    async run(t) {
      const leader = await t.leader(60_000);
      const others = t.members.map((m) => m.sid).filter((sid) => sid !== leader);
      const a = await t.clientOn("a", others[0]!);
      a.addAuthInfo("digest", SUPER);
      await t.op("a write before", () => a.create(`${t.root}/before`, null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL));
      await t.op("reconfig -remove the leader: its answer, or CONNECTIONLOSS when the follower drops its clients first", async () => {
        try {
          await a.reconfig(null, String(leader), null);
        } catch (err) {
          if (!isKeeperException(err) || err.codeName !== "CONNECTIONLOSS") throw err;
        }
        return "answered or connection lost";
      });
      await t.op("config once the follower serves again: the leader left out, versioned by the reconfig's zxid", async () => configFacts(await onceServing(() => a.getConfig()), leader));
      await t.leader(60_000, others);
      await modesOf(t, others, "the others' srvr modes once one leads");
      await t.op("the session kept: its ephemeral", () => onceServing(() => a.exists(`${t.root}/before`)));
      await t.op("a write commits under the new config", () => onceServing(() => a.create(`${t.root}/after`, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)));
      t.note("srvr of the removed leader once it serves again: a non-voting follower", await servingMode(t, leader, 60_000));
    },
  },
  {
    name: "reconfig-client-port",
    about: "a reconfig that gives server 2 another client port: it listens there (conf shows it), its old port refuses connects, a session on the old port stays",
    ensemble: { servers: 3, joiners: 0, reconfigEnabled: true },
    async run(t) {
      const a = await t.clientOn("a", 1);
      const b = await t.clientOn("b", 2);
      a.addAuthInfo("digest", SUPER);
      const [port] = await freePorts(1);
      t.namePort(port!, "newclient2");
      const oldPort = Number(/(\d+)$/.exec(t.members.find((m) => m.sid === 2)!.spec)![1]);
      const spec = t.members.find((m) => m.sid === 2)!.spec.replace(/;.*$/, `;127.0.0.1:${port}`);
      await t.op("reconfig -add server.2 with another client port", () => a.reconfig(`server.2=${spec}`, null, null));
      t.note("ruok on the new port", await pollUntil(() => t.askPort(port!, "ruok").catch(() => ""), (answer) => answer !== "", 20_000));
      t.note("the old port refuses a connect", await pollUntil(() => connectRefused(oldPort), (refused) => refused, 20_000));
      await t.op("the session on the old port still answers", () => b.exists(t.root));
      t.note("conf on the new port: its clientPort", confLines(t, new Map([[port!, "newclient2"]]))(await t.askPort(port!, "conf")).filter((l) => l.startsWith("clientPort=") || l.startsWith("server.2=")));
      await t.op("config: server.2's new client address", () => a.getConfig());
    },
  },
  {
    name: "leader-crash",
    about: "failover: the leader killed under a client on a follower; the session survives, its ephemeral stays, a write commits once the survivors elect, and they report leader and follower",
    ensemble: { servers: 3, joiners: 0, reconfigEnabled: false },
    async run(t) {
      const leader = await t.leader(60_000);
      const survivors = t.members.map((m) => m.sid).filter((sid) => sid !== leader);
      const a = await t.clientOn("a", survivors[0]!);
      t.note("mntr keys of the leader, in 3.8.0's order", mntrKeys(await t.ask(leader, "mntr")));
      t.note("mntr keys of a follower, in 3.8.0's order", mntrKeys(await t.ask(survivors[0]!, "mntr")));
      await t.op("an ephemeral before the crash", () => a.create(`${t.root}/e`, null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL));
      await t.crash(leader);
      await t.op("a write once the survivors serve", () => onceServing(() => a.create(`${t.root}/after`, "x", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)));
      await t.op("the session kept: its ephemeral", () => a.exists(`${t.root}/e`));
      await t.leader(60_000, survivors);
      await modesOf(t, survivors, "the survivors' srvr modes once one leads");
    },
  },
];

/**
 * `zksim serve`'s settings for an ensemble script, as the real ensemble is configured: members on
 * 127.0.0.1 with `clientPorts` (one per member, joiners last) and the single-server scripts'
 * whitelist and system properties. Returns the members' lines too, as the script sends them.
 */
export function conformanceEnsembleServeSettings(shape: EnsembleShape, clientPorts: readonly number[]): { settings: ServeSettings; members: EnsembleMember[] } {
  const total = shape.servers + shape.joiners;
  if (clientPorts.length !== total) throw new Error(`${total} client ports needed, got ${clientPorts.length}`);
  // Five-digit quorum ports, as the real ensemble's (25000-25999): the config text's length is in its Stat.
  const spec = (i: number) => `127.0.0.1:${28880 + i}:${38880 + i}:participant;127.0.0.1:${clientPorts[i]}`;
  const members = Array.from({ length: total }, (_, i) => ({ sid: i + 1, spec: spec(i) }));
  const cfg = parseZooCfg(members.map((m) => `server.${m.sid}=${m.spec}`).join("\n"), "conformance ensemble");
  const joined: ServeMember[] = cfg.members.map((m) => (m.sid > shape.servers ? { ...m, joiner: true } : m));
  const base = conformanceServeSettings(0);
  return { settings: { ...base, members: joined, reconfigEnabled: shape.reconfigEnabled }, members };
}

/** Runs `script` on a fresh `zksim serve` ensemble of its shape (free client ports on 127.0.0.1), then stops it. */
export async function runEnsembleScriptOnServe(script: EnsembleScript): Promise<Transcript> {
  const { settings, members } = conformanceEnsembleServeSettings(script.ensemble, await freePorts(script.ensemble.servers + script.ensemble.joiners));
  const serve = await startServe({ settings, seed: 1, out: () => {} });
  try {
    const crash = async (sid: number) => {
      const answer = serve.command(`crash s${sid}`);
      if (!answer.startsWith("ok")) throw new Error(`${script.name}: crash s${sid}: ${answer}`);
    };
    return await runScript(script, { host: "127.0.0.1", port: serve.clientPorts.get("s1")!, members, crash });
  } finally {
    await serve.close();
  }
}

/** Runs `script` on a fresh real 3.8 ensemble of its shape (`startRealEnsemble`), then stops every server. */
export async function recordEnsembleScript(script: EnsembleScript, jvmFlags: string): Promise<{ transcript: Transcript; version: string }> {
  const real = await startRealEnsemble({ ...script.ensemble, jvmFlags });
  try {
    const members = real.members.map(({ sid, spec }) => ({ sid, spec }));
    return { transcript: await runScript(script, { host: "127.0.0.1", port: real.members[0]!.clientPort, members, crash: real.crash }), version: real.version };
  } finally {
    await real.stop();
  }
}
