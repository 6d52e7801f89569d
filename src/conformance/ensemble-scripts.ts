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
import { CreateMode, Ids } from "../zk/proto/records.js";
import { parseZooCfg, type ServeMember, type ServeSettings } from "../serve/zoo-cfg.js";
import { startServe } from "../serve/serve-session.js";
import { conformanceServeSettings } from "./scripts.js";
import { runScript, type ConformanceScript, type EnsembleMember, type ScriptContext } from "./runner.js";
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
    return await runScript(script, { host: "127.0.0.1", port: serve.clientPorts.get("s1")!, members });
  } finally {
    await serve.close();
  }
}

/** Runs `script` on a fresh real 3.8 ensemble of its shape (`startRealEnsemble`), then stops every server. */
export async function recordEnsembleScript(script: EnsembleScript, jvmFlags: string): Promise<{ transcript: Transcript; version: string }> {
  const real = await startRealEnsemble({ ...script.ensemble, jvmFlags });
  try {
    const members = real.members.map(({ sid, spec }) => ({ sid, spec }));
    return { transcript: await runScript(script, { host: "127.0.0.1", port: real.members[0]!.clientPort, members }), version: real.version };
  } finally {
    await real.stop();
  }
}
