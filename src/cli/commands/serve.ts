/**
 * `zksim serve`: real ZooKeeper clients against the simulated ensemble, in real time
 * (src/serve/). Ports come from `--base-port` (s1 on it, s2 on the next…) or from a zoo.cfg;
 * fault commands come from stdin and from the loopback control socket (`zksim ctl`). Runs until
 * SIGINT/SIGTERM; exits 1 if a checker found a violation, 0 otherwise.
 */
import { randomInt } from "node:crypto";
import readline from "node:readline";
import { UserInputError } from "../../sim/errors.js";
import { startServe, type ServeSession } from "../../serve/serve-session.js";
import { parseZooCfg, settingsFromFlags, type ServeSettings } from "../../serve/zoo-cfg.js";
import { intFlag, maxPositionals, parseArgs, stringFlag, type ParsedArgs } from "../args.js";
import type { Command } from "../command.js";
import { isSystemError, readInputFile } from "../files.js";

function settingsOf(args: ParsedArgs): ServeSettings {
  const config = stringFlag(args, "config");
  if (config === undefined) return settingsFromFlags(intFlag(args, "servers") ?? 3, intFlag(args, "observers") ?? 0, intFlag(args, "base-port") ?? 2181);
  for (const flag of ["servers", "observers", "base-port"]) {
    if (args.flags.has(flag)) throw new UserInputError(`serve: --${flag} and --config exclude each other (the config's server.N lines say it)`);
  }
  return parseZooCfg(readInputFile(config, "zoo.cfg"), config);
}

/**
 * `--read-only` (3.8's `-Dreadonlymode.enabled=true`): a member cut off from its quorum serves
 * read-only clients; `--local-sessions` (zoo.cfg `localSessionsEnabled=true`), without which
 * 3.8's read-only server can give no client a session.
 */
function withReadOnlyMode(settings: ServeSettings, args: ParsedArgs): ServeSettings {
  const out = { ...settings };
  if (args.flags.has("read-only")) out.readOnlyModeEnabled = true;
  if (args.flags.has("local-sessions")) out.localSessionsEnabled = true;
  return out;
}

async function start(settings: ServeSettings, seed: number, bind: string, controlPort: number): Promise<ServeSession> {
  try {
    return await startServe({ settings, seed, bind, controlPort, out: (line) => console.log(line) });
  } catch (err) {
    if (isSystemError(err) && (err.code === "EADDRINUSE" || err.code === "EADDRNOTAVAIL" || err.code === "EACCES")) {
      throw new UserInputError(`serve: cannot listen on ${bind}: ${err.message} (choose other ports with --base-port or --control-port)`);
    }
    throw err;
  }
}

export const serve: Command = {
  name: "serve",
  args: "[--servers 3] [--observers 0] [--base-port 2181] [--config zoo.cfg] [--seed N] [--bind 127.0.0.1] [--control-port P] [--read-only [--local-sessions]]",
  help: "serve the simulated ensemble to real ZooKeeper clients on TCP ports, in real time; fault commands on stdin and via `zksim ctl`",
  async run(argv) {
    const args = parseArgs(argv, { servers: "int", observers: "int", "base-port": "int", config: "string", seed: "int", bind: "string", "control-port": "int", "read-only": "bool", "local-sessions": "bool" }, "serve");
    maxPositionals(args, 0, "serve");
    const settings = withReadOnlyMode(settingsOf(args), args);
    for (const w of settings.warnings) console.error(`warning: ${w}`);
    const seed = intFlag(args, "seed") ?? randomInt(1, 2 ** 31);
    const bind = stringFlag(args, "bind") ?? "127.0.0.1";
    const controlPort = intFlag(args, "control-port") ?? Math.max(1, settings.members[0]!.clientPort - 1);
    if (controlPort > 65535) throw new UserInputError(`--control-port: ${controlPort} is not a TCP port`);
    const session = await start(settings, seed, bind, controlPort);
    const where = [...session.clientPorts].map(([node, port]) => `${node} ${bind}:${port}`).join(", ");
    console.log(`zksim serve: seed ${seed}; ${where}`);
    console.log(`control: 127.0.0.1:${session.controlPort} (zksim ctl --port ${session.controlPort} crash s2); commands on stdin too ("help")`);
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
    console.log(`zksim serve: stopped; ${violations} violation(s)`);
    return violations > 0 ? 1 : 0;
  },
};
