/**
 * `zksim serve`: real ZooKeeper clients against the simulated ensemble, in real time
 * (src/serve/). Ports come from `--base-port` (s1 on it, s2 on the next…) or from a zoo.cfg;
 * fault commands come from stdin and from the loopback control socket (`zksim ctl`). Runs until
 * SIGINT/SIGTERM; exits 1 if a checker found a violation, 0 otherwise.
 *
 * Recording is on unless `--no-record`: the session is written as a replay file (default in the
 * OS temporary directory, named by seed and process; `--record FILE` chooses), its journal
 * `FILE.partial` kept current while serving (src/serve/serve-recorder.ts). The path is printed at
 * start and at stop, with the trace hash and the `zksim replay` line.
 *
 * Authentication (src/serve/server-auth.ts): `-Dkey=value` words here and in
 * `SERVER_JVMFLAGS`/`JVMFLAGS`, `--jaas FILE`, and zoo.cfg's authentication keys.
 *
 * Dynamic reconfiguration: `--reconfig-enabled` (zoo.cfg `reconfigEnabled=true`; off by default
 * as in 3.8) and `--joiners N`, N more servers started outside the config for `reconfig -add`,
 * or `--joiner FILE` (repeatable), one such server declared by its own zoo.cfg as 3.8's reconfig
 * guide starts it (zoo-cfg.ts `withJoiners`). A zoo.cfg's `dynamicConfigFile` is followed.
 */
import { DEFAULT_SERVE_TIMING, serveTimingProfile, type ServeTimingProfile } from "../../serve/serve-timing.js";
import { randomInt } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import readline from "node:readline";
import { bugEntry } from "../../scenario/bug-zoo.js";
import { canaryNamed, SERVER_CANARIES } from "../../scenario/canaries.js";
import { UserInputError } from "../../sim/errors.js";
import { startServe, type ServeOptions, type ServeSession } from "../../serve/serve-session.js";
import { parseZooCfg, withFourLetterWhitelist, settingsFromFlags, withJoiners, type JoinerZooCfg, type ServeSettings } from "../../serve/zoo-cfg.js";
import { boolFlag, intFlag, listFlag, maxPositionals, parseArgs, stringFlag, type ParsedArgs } from "../args.js";
import { existsSync } from "node:fs";
import type { Command } from "../command.js";
import { isIP } from "node:net";
import { checkOutputPath, describeSystemError, isSystemError, readInputFile } from "../files.js";
import { loadScenario } from "../scenario-files.js";
import type { Scenario } from "../../scenario/types.js";
import { isTriggered } from "../../sim/fault-triggers.js";
import { serveScenarioOf, type ServeScenario } from "../../serve/serve-scenario.js";
import { JAAS_PROPERTY, jvmFlagWords, serveAuthFrom, systemPropertiesOf } from "../../serve/server-auth.js";
import { quorumTimingFrom } from "../../serve/quorum-timing-properties.js";
import type { QuorumTiming } from "../../zk/server/quorum/quorum-timing.js";

/**
 * The system properties zksim reads, in JVM order: SERVER_JVMFLAGS, JVMFLAGS (as zkServer.sh
 * passes them), this command line's -D words and --jaas, then zoo.cfg's (later wins).
 */
function systemProperties(settings: ServeSettings, dWords: readonly string[], jaas: string | undefined): Map<string, string> {
  const props = new Map(systemPropertiesOf([...jvmFlagWords(process.env.SERVER_JVMFLAGS), ...jvmFlagWords(process.env.JVMFLAGS), ...dWords]));
  if (jaas !== undefined) props.set(JAAS_PROPERTY, jaas);
  for (const [k, v] of settings.systemProperties ?? []) props.set(k, v);
  return props;
}

function withAuth(settings: ServeSettings, props: ReadonlyMap<string, string>): ServeSettings {
  const auth = serveAuthFrom(props, (path) => readInputFile(path, "JAAS configuration"), (line) => settings.warnings.push(line));
  return { ...settings, auth };
}

/** The flags of the deployment's measured costs (no settings of 3.8's; serve-timing.ts), and the quorum timing each sets. */
const DEPLOYMENT_COST_FLAGS = [
  ["leader-startup-ms", "leaderStartupMs"],
  ["learner-startup-ms", "learnerStartupMs"],
  ["learner-sync-ms", "learnerSyncMs"],
  ["leader-serving-startup-ms", "leaderServingStartupMs"],
] as const;

/**
 * The failover timings of the system properties, over zoo.cfg's `connectToLearnerMasterLimit` and
 * a scenario's; then the deployment's costs given as flags (`--leader-startup-ms`,
 * `--learner-startup-ms`, `--learner-sync-ms`, `--leader-serving-startup-ms`: no setting of
 * 3.8's; the timing profile's measured ones otherwise).
 */
function withQuorumTiming(settings: ServeSettings, props: ReadonlyMap<string, string>, args: ParsedArgs): ServeSettings {
  const startup: Partial<QuorumTiming> = {};
  for (const [flag, field] of DEPLOYMENT_COST_FLAGS) {
    const ms = intFlag(args, flag);
    if (ms === undefined) continue;
    if (ms < 0 || ms > 10_000_000) throw new UserInputError(`serve: --${flag} ${ms}: expected a whole number of ms in [0, 10000000]`);
    startup[field] = ms;
  }
  const timing = { ...settings.quorumTiming, ...quorumTimingFrom(props), ...startup };
  return Object.keys(timing).length === 0 ? settings : { ...settings, quorumTiming: timing };
}

/** The settings and, with `--scenario`, its schedule; the scenario names the shape, so it excludes the shape flags. */
function settingsOf(args: ParsedArgs, seed: number): { settings: ServeSettings; scenario?: ServeScenario } {
  const scenarioFile = stringFlag(args, "scenario");
  if (scenarioFile === undefined) return { settings: shapeOf(args) };
  for (const flag of ["servers", "observers", "config", "joiners", "joiner"]) {
    if (args.flags.has(flag)) throw new UserInputError(`serve: --${flag} and --scenario exclude each other (the scenario's workload names the ensemble)`);
  }
  const { settings, scenario, warnings } = serveScenarioOf(loadServeScenario(scenarioFile), seed, intFlag(args, "base-port") ?? 2181);
  return { settings: { ...settings, warnings: [...settings.warnings, ...warnings] }, scenario };
}

/** A scenario file or name; a mistake deep in it names the file too (exit 2). */
function loadServeScenario(file: string): Scenario {
  try {
    return loadScenario(file);
  } catch (err) {
    if (err instanceof UserInputError && !err.message.includes(file)) throw new UserInputError(`--scenario ${file}: ${err.message}`);
    throw err;
  }
}

function shapeOf(args: ParsedArgs): ServeSettings {
  const joiners = listFlag(args, "joiner");
  if (joiners.length > 0 && args.flags.has("joiners")) throw new UserInputError("serve: --joiners and --joiner exclude each other (--joiner FILE declares one joiner by its own zoo.cfg)");
  const joinerCfgs = joiners.map((file): JoinerZooCfg => ({ file, text: readInputFile(file, "joiner's zoo.cfg"), readDynamic: readDynamicConfig, readMyid }));
  const config = stringFlag(args, "config");
  if (config === undefined) return withJoiners(settingsFromFlags(intFlag(args, "servers") ?? 3, intFlag(args, "observers") ?? 0, intFlag(args, "base-port") ?? 2181, intFlag(args, "joiners") ?? 0), joinerCfgs);
  for (const flag of ["servers", "observers", "base-port", "joiners"]) {
    if (args.flags.has(flag)) throw new UserInputError(`serve: --${flag} and --config exclude each other (the config's server.N lines say it)`);
  }
  return withJoiners(parseZooCfg(readInputFile(config, "zoo.cfg"), config, readDynamicConfig), joinerCfgs);
}

/** A zoo.cfg's `dynamicConfigFile`, read from its path as 3.8 reads it (relative to the working directory). */
function readDynamicConfig(path: string): string {
  return readInputFile(path, "dynamic config file");
}

/** A joiner's `dataDir/myid`, when it has one (3.8 reads the server's id from it). */
function readMyid(dataDir: string): string | undefined {
  const path = join(dataDir, "myid");
  return existsSync(path) ? readInputFile(path, "myid file") : undefined;
}

/** Where the session is recorded (undefined: `--no-record`), and the broken build asked for. */
interface Recording {
  record: string | undefined;
  canary?: ServeOptions["canary"];
  bugs?: string[];
}

function recordingOf(args: ParsedArgs, seed: number): Recording {
  const record = stringFlag(args, "record");
  if (record !== undefined && boolFlag(args, "no-record")) throw new UserInputError("serve: --record and --no-record exclude each other");
  const path = boolFlag(args, "no-record") ? undefined : (record ?? join(tmpdir(), `zksim-serve-seed${seed}-${process.pid}.json`));
  if (path !== undefined) checkOutputPath(path, "--record replay file");
  const out: Recording = { record: path };
  const canary = stringFlag(args, "canary");
  if (canary !== undefined) {
    const named = canaryNamed(canary, "serve: --canary");
    if (!SERVER_CANARIES.includes(named)) throw new UserInputError(`serve: --canary ${canary} breaks no server (server canaries: ${SERVER_CANARIES.join(", ")})`);
    out.canary = named;
  }
  const bug = stringFlag(args, "bug");
  if (bug !== undefined) out.bugs = bug.split(",").map((b) => bugEntry(b.trim()).id);
  return out;
}

const READ_ONLY_PROPERTY = "readonlymode.enabled";

/**
 * `--read-only` or 3.8's own `-Dreadonlymode.enabled=true`: a member cut off from its quorum serves
 * read-only clients; `--local-sessions` (zoo.cfg `localSessionsEnabled=true`), without which
 * 3.8's read-only server can give no client a session.
 */
function withReadOnlyMode(settings: ServeSettings, args: ParsedArgs, props: ReadonlyMap<string, string>): ServeSettings {
  const out = { ...settings };
  const property = props.get(READ_ONLY_PROPERTY);
  if (property !== undefined && property !== "true" && property !== "false") throw new UserInputError(`-D${READ_ONLY_PROPERTY}: expected true or false, got "${property}"`);
  if (property !== undefined) out.readOnlyModeEnabled = property === "true";
  if (args.flags.has("read-only")) out.readOnlyModeEnabled = true;
  if (args.flags.has("local-sessions")) out.localSessionsEnabled = true;
  return out;
}

/** `--reconfig-enabled`: zoo.cfg's `reconfigEnabled=true` (a zoo.cfg key only in 3.8, no system property). */
function withReconfig(settings: ServeSettings, args: ParsedArgs): ServeSettings {
  return boolFlag(args, "reconfig-enabled") ? { ...settings, reconfigEnabled: true } : settings;
}

async function start(settings: ServeSettings, seed: number, bind: string, controlPort: number, recording: Recording, scenario: ServeScenario | undefined, timing: ServeTimingProfile): Promise<ServeSession> {
  const { record, ...variant } = recording;
  try {
    return await startServe({ settings, seed, bind, controlPort, timing, ...(record !== undefined ? { record } : {}), ...variant, out: (line) => console.log(line), ...(scenario !== undefined ? { scenario } : {}) });
  } catch (err) {
    if (isSystemError(err) && (err.code === "EADDRINUSE" || err.code === "EADDRNOTAVAIL" || err.code === "EACCES")) {
      throw new UserInputError(`serve: cannot listen on ${bind}: ${err.message} (choose other ports with --base-port or --control-port)`);
    }
    // The address does not resolve (a hostname that is not there).
    if (isSystemError(err) && (err.code === "ENOTFOUND" || err.code === "EAI_AGAIN")) throw new UserInputError(`serve: --bind ${bind}: no such address (${err.code}); give an IP address of this machine, such as 127.0.0.1`);
    // The journal FILE.partial could not be created (a directory that refuses files, a full disk).
    if (isSystemError(err) && record !== undefined) throw new UserInputError(`serve: --record ${record}: cannot write its journal ${record}.partial: ${describeSystemError(err)}`);
    throw err;
  }
}

export const serve: Command = {
  name: "serve",
  args: "[--servers 3] [--observers 0] [--base-port 2181] [--config zoo.cfg] [--scenario FILE] [--seed N] [--bind 127.0.0.1] [--control-port P] [--record FILE | --no-record] [--canary NAME] [--bug ID] [--jaas FILE] [-Dkey=value…] [--read-only [--local-sessions]] [--reconfig-enabled [--joiners N | --joiner FILE…]] [--timing loopback|lan] [--leader-startup-ms N] [--learner-startup-ms N] [--learner-sync-ms N] [--leader-serving-startup-ms N]",
  help: "serve the simulated ensemble to real ZooKeeper clients on TCP ports, in real time (--timing: a loopback ensemble's hop, fsync and start-up times, the default, or a LAN's; --leader-startup-ms/--learner-startup-ms: a new leader's time to bind its quorum port, a new learner's to its first connect, after the election; --learner-sync-ms: a learner's sync work before its NEWLEADER ACK; --leader-serving-startup-ms: a new leader's start of serving after its NEWLEADER quorum); fault commands on stdin and via `zksim ctl`; the session is recorded as a replay file (`zksim replay`, `zksim shrink`);\n--scenario: a scenario's ensemble and fault schedule, applied on the wall clock (its simulated clients do not run);\n--reconfig-enabled: zoo.cfg's reconfigEnabled=true (reconfig by the super user); --joiners N: N more servers started outside the config, for reconfig -add; --joiner FILE (repeatable): one such server, declared by its own zoo.cfg (the config plus itself, as 3.8's reconfig guide starts one)",
  async run(argv) {
    const dWords = argv.filter((a) => a.startsWith("-D"));
    const args = parseArgs(argv.filter((a) => !a.startsWith("-D")), { servers: "int", observers: "int", "base-port": "int", config: "string", seed: "int", bind: "string", "control-port": "int", record: "string", "no-record": "bool", canary: "string", bug: "string", scenario: "string", jaas: "string", "read-only": "bool", "local-sessions": "bool", timing: "string", "leader-startup-ms": "int", "learner-startup-ms": "int", "learner-sync-ms": "int", "leader-serving-startup-ms": "int", "reconfig-enabled": "bool", joiners: "int", joiner: "list" }, "serve");
    maxPositionals(args, 0, "serve");
    const seed = intFlag(args, "seed") ?? randomInt(1, 2 ** 31);
    const shaped = settingsOf(args, seed);
    const props = systemProperties(shaped.settings, dWords, stringFlag(args, "jaas"));
    const settings = withReconfig(withReadOnlyMode(withFourLetterWhitelist(withQuorumTiming(withAuth(shaped.settings, props), props, args), props), args, props), args);
    const scenario = shaped.scenario;
    for (const w of settings.warnings) console.error(`warning: ${w}`);
    const bind = stringFlag(args, "bind") ?? "127.0.0.1";
    if (isIP(bind) === 0 && !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(bind)) throw new UserInputError(`serve: --bind ${bind} is neither an IP address nor a host name`);
    if (/^[\d.]+$/.test(bind) && isIP(bind) === 0) throw new UserInputError(`serve: --bind ${bind} is not an IPv4 address (four numbers 0-255)`);
    const controlPort = intFlag(args, "control-port") ?? Math.max(1, settings.members[0]!.clientPort - 1);
    if (controlPort > 65535) throw new UserInputError(`--control-port: ${controlPort} is not a TCP port`);
    const recording = recordingOf(args, seed);
    const timingFlag = stringFlag(args, "timing");
    const timing = timingFlag === undefined ? DEFAULT_SERVE_TIMING : serveTimingProfile(timingFlag);
    const session = await start(settings, seed, bind, controlPort, recording, scenario, timing);
    const where = [...session.clientPorts].map(([node, port]) => `${node} ${bind}:${port}`).join(", ");
    console.log(`zksim serve: seed ${seed}; ${where}; timing ${timing}`);
    if (scenario !== undefined) {
      const conditioned = scenario.faults.filter((f) => isTriggered(f.fault)).length;
      const lastMs = Math.max(0, ...scenario.faults.map((f) => f.fault.atMs));
      console.log(
        `scenario ${scenario.name}: ${scenario.faults.length} fault(s) on the wall clock (${conditioned} of them waiting on trace conditions), the last armed at ${lastMs / 1000}s` +
          (scenario.endAllAtMs !== undefined ? `; all faults end at ${scenario.endAllAtMs / 1000}s` : ""),
      );
    }
    console.log(`control: 127.0.0.1:${session.controlPort} (zksim ctl --port ${session.controlPort} crash s2); commands on stdin too ("help")`);
    console.log(recording.record !== undefined ? `recording to ${recording.record} (journal ${recording.record}.partial while serving)` : "not recording (--no-record)");
    const input = readline.createInterface({ input: process.stdin, terminal: false });
    input.on("line", (line) => {
      if (line.trim() !== "") console.log(session.command(line));
    });
    const violations = await new Promise<number>((resolve) => {
      const stop = () => {
        input.close();
        void session.close().then(resolve);
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    const outcome = session.outcome()!;
    console.log(`zksim serve: stopped; ${violations} violation(s); trace hash ${outcome.traceHash}`);
    if (recording.record !== undefined) console.log(`recorded ${recording.record}; replay: zksim replay ${recording.record}${violations > 0 ? `; shrink: zksim shrink ${recording.record}` : ""}`);
    return violations > 0 ? 1 : 0;
  },
};
