/**
 * A client we did not write: the Debian package's `zkCli.sh` (ZooKeeper 3.8.0's own Java
 * client) runs a scripted session against `zksim serve`. Skipped, saying why, when the package
 * is not installed (`apt-get install -y zookeeper`).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startServe } from "../../src/serve/serve-session.js";
import { settingsFromFlags } from "../../src/serve/zoo-cfg.js";
import { leaderServing } from "./raw-zk-client.js";

const ZKCLI = "/usr/share/zookeeper/bin/zkCli.sh";
const installed = existsSync(ZKCLI);

/** Runs zkCli.sh with `script` on stdin; resolves with its stdout (bounded by `timeoutMs`). */
function zkCli(server: string, script: string, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(ZKCLI, ["-server", server], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`zkCli.sh did not finish within ${timeoutMs} ms; output so far:\n${out}`));
    }, timeoutMs);
    child.on("exit", () => {
      clearTimeout(timer);
      resolve(out);
    });
    child.stdin.end(script);
  });
}

describe.skipIf(!installed)(`serve: zkCli.sh${installed ? "" : ` (skipped: ${ZKCLI} not installed; apt-get install -y zookeeper)`}`, () => {
  it("serve: zkCli.sh: a scripted session creates, reads, lists and stats znodes (N=3)", async () => {
    const base = settingsFromFlags(3, 0, 2181);
    const session = await startServe({ settings: { ...base, members: base.members.map((m) => ({ ...m, clientPort: 0 })) }, seed: 5, out: () => undefined });
    try {
      await leaderServing(session);
      const hosts = [...session.clientPorts.values()].map((p) => `127.0.0.1:${p}`).join(",");
      const out = await zkCli(hosts, "create /app hello\nget /app\ncreate -e /app/eph x\nls /\nstat /app\nquit\n");
      expect(out, out).toContain("WatchedEvent state:SyncConnected type:None path:null");
      expect(out).toContain("\nhello\n");
      expect(out).toContain("[app, zookeeper]");
      expect(out).toMatch(/dataLength = 5\nnumChildren = 1\n/); // the ephemeral child exists
      expect(out).toContain("WatchedEvent state:Closed type:None path:null");
    } finally {
      await session.close();
    }
  }, 60_000);
});
