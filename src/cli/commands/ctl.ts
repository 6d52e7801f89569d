/**
 * `zksim ctl <command…>`: sends one fault command to a running `zksim serve` over its loopback
 * control socket and prints the answer. Exit 0 when it was applied, 2 when serve rejected it
 * (bad command or node), 5 when no serve answers on the port (3 stays "internal error").
 */
import net from "node:net";
import { UserInputError } from "../../sim/errors.js";
import { intFlag, parseArgs } from "../args.js";
import type { Command } from "../command.js";

/** Sends `line`, resolves with the one answer line. */
export function sendControlLine(port: number, line: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let buffered = "";
    socket.setEncoding("utf8");
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.on("connect", () => socket.write(`${line}\n`));
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      const nl = buffered.indexOf("\n");
      if (nl >= 0) {
        socket.end();
        resolve(buffered.slice(0, nl));
      }
    });
    socket.on("error", reject);
  });
}

export const ctl: Command = {
  name: "ctl",
  args: "[--port 2180] <command>",
  help: "send a fault command (crash s2, 'partition s1 | s2 s3', heal, pause s2 for 4s, status…; see docs/faults.md) to a running `zksim serve`\non its control port (the first client port − 1, unless serve was given --control-port)",
  async run(argv) {
    const args = parseArgs(argv, { port: "int" }, "ctl");
    const line = args.positionals.join(" ").trim();
    if (line === "") throw new UserInputError(`ctl: give a command, e.g. \`zksim ctl crash s2\` (\`zksim ctl help\` lists them)`);
    const port = intFlag(args, "port") ?? 2180;
    if (port < 1 || port > 65535) throw new UserInputError(`ctl: --port must be a TCP port from 1 to 65535, got ${port}`);
    let answer: string;
    try {
      answer = await sendControlLine(port, line);
    } catch (err) {
      console.error(`ctl: no zksim serve answered on 127.0.0.1:${port}: ${err instanceof Error ? err.message : String(err)}`);
      return 5;
    }
    console.log(answer);
    return answer.startsWith("ok") ? 0 : 2;
  },
};
