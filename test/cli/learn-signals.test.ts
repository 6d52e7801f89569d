/**
 * `learn --save FILE` writes the session when SIGINT or SIGTERM ends it (src/tui/cli.ts
 * saveOnSignal), in plain mode (stdin a pipe) and in the ink app (a pseudo-terminal from
 * `script`), and the file it writes replays. Before, a signal ended learn with nothing saved.
 * Each test waits for a frame on stdout (drawn after the handlers are in place), never a sleep.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));
const hasScript = spawnSync("script", ["--version"]).status === 0;

/** Sends `signal` to `target` once stdout shows `ready`; resolves with the exit code, stdout and stderr. */
function signalWhen(child: ChildProcess, ready: RegExp, signal: NodeJS.Signals, target: () => number | undefined): Promise<{ code: number | null; out: string; err: string }> {
  let out = "";
  let err = "";
  let sent = false;
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    const pid = target();
    if (!sent && ready.test(out) && pid !== undefined) {
      sent = true;
      process.kill(pid, signal);
    }
  });
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out, err })));
}

function env(dir: string): NodeJS.ProcessEnv {
  return { ...process.env, CI: "false", XDG_CONFIG_HOME: dir, COLUMNS: "100" };
}

function replays(file: string): string {
  const r = spawnSync(process.execPath, [BIN, "replay", file], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe("learn --save keeps the session on SIGINT and SIGTERM", () => {
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    it(`plain mode, ${signal}: the file is written, exit ${code}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "zksim-learn-sig-"));
      const file = join(dir, "session.json");
      const child = spawn(process.execPath, [BIN, "learn", "zab", "--save", file], { stdio: ["pipe", "pipe", "pipe"], env: env(dir) });
      child.stdin!.write("step 3\n"); // stdin stays open: learn waits for more, as at a prompt
      const r = await signalWhen(child, /> step 3\n.+\n/, signal, () => child.pid);
      expect(r.code, r.err).toBe(code);
      expect(r.err).toMatch(new RegExp(`zksim: learn: ${signal}: session saved to .*session\\.json`));
      expect(replays(file)).toMatch(/step 3 .*reproduced/s);
    }, 60_000);
  }

  it.skipIf(!hasScript)("the ink app under a pseudo-terminal, SIGTERM: the file is written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zksim-learn-pty-"));
    const file = join(dir, "session.json");
    const pidFile = join(dir, "pid");
    // `script` gives learn a terminal; the shell records learn's own pid so that the signal reaches learn, not script.
    const command = `echo $$ > ${pidFile}; exec ${process.execPath} ${BIN} learn zab --lesson quorum-commit --save ${file} 2>${join(dir, "stderr")}`;
    const child = spawn("script", ["-qfc", command, "/dev/null"], { stdio: ["pipe", "pipe", "ignore"], env: env(dir) });
    const pid = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").trim()) || undefined : undefined);
    const r = await signalWhen(child, /LESSON A commit needs a quorum/, "SIGTERM", pid);
    expect(existsSync(file), r.out.slice(-400)).toBe(true);
    expect(readFileSync(join(dir, "stderr"), "utf8")).toMatch(/zksim: learn: SIGTERM: session saved/);
    expect(replays(file)).toMatch(/reproduced/);
  }, 60_000);
});
