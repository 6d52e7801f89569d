/**
 * Runs the Debian package's `zkCli.sh` (ZooKeeper 3.8.0's own Java client) with a script on
 * stdin, for the tests that point a client we did not write at `zksim serve`.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

export const ZKCLI = "/usr/share/zookeeper/bin/zkCli.sh";
export const zkCliInstalled = existsSync(ZKCLI);

/** Runs zkCli.sh with `script` on stdin; resolves with its stdout (bounded by `timeoutMs`). `env` adds variables (CLIENT_JVMFLAGS). */
export function zkCli(server: string, script: string, timeoutMs = 30_000, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(ZKCLI, ["-server", server], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
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
