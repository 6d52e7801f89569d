/**
 * Runs the Debian package's `zkCli.sh` (ZooKeeper 3.8.0's own Java client) with a script on
 * stdin, for the tests that point a client we did not write at `zksim serve`.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { OutputWatch } from "../helpers/output.js";

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

/** A zkCli.sh kept open: commands are typed one at a time while the test acts between them. */
export interface ZkCliSession {
  /** Types one command line. */
  send(line: string): void;
  /** Resolves with the whole output once `pattern` matches the output after `from` (default: all of it). */
  waitFor(pattern: RegExp, from?: number, timeoutMs?: number): Promise<string>;
  /** The output so far. */
  output(): string;
  /** `quit`, then waits for the process to end. */
  quit(): Promise<void>;
}

export function zkCliSession(server: string): ZkCliSession {
  const child = spawn(ZKCLI, ["-server", server], { stdio: ["pipe", "pipe", "pipe"] });
  const out = OutputWatch.of(child.stdout);
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return {
    send: (line) => void child.stdin.write(`${line}\n`),
    output: () => out.text,
    async waitFor(pattern, from = 0, timeoutMs = 30_000) {
      await out.until(pattern, { from, timeoutMs });
      return out.text;
    },
    async quit() {
      child.stdin.end("quit\n");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
