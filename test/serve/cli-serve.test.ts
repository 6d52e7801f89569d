/**
 * `zksim serve` and `zksim ctl` as a user runs them, in child processes: the banner, a fault
 * applied through `ctl`, bad input exiting 2, and SIGTERM stopping the server cleanly. Every
 * child is bounded in time and killed at the end.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { freePortRun } from "./raw-zk-client.js";
import { OutputWatch } from "../helpers/output.js";
import { freePort } from "../../src/conformance/real-zookeeper.js";
import { askFourLetterWord } from "../../src/conformance/runner.js";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));

function zksim(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 20_000 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
});

describe("serve: cli", () => {
  it("serve: cli: serve prints its ports, ctl applies a crash, SIGTERM stops it with exit 0", async () => {
    const base = (await freePortRun(4)) + 1;
    child = spawn(process.execPath, [BIN, "serve", "--base-port", String(base), "--seed", "9"], { stdio: ["pipe", "pipe", "pipe"] });
    const out = OutputWatch.of(child.stdout!);
    await out.until("leader");
    expect(out.text).toContain(`zksim serve: seed 9; s1 127.0.0.1:${base}, s2 127.0.0.1:${base + 1}, s3 127.0.0.1:${base + 2}; timing loopback`);
    const crash = zksim("ctl", "--port", String(base - 1), "crash", "s2");
    expect(crash.stdout).toBe("ok: crash s2\n");
    expect(crash.status).toBe(0);
    const bad = zksim("ctl", "--port", String(base - 1), "crash", "s9");
    expect(bad.status).toBe(2);
    expect(bad.stdout).toMatch(/^error: .*unknown node "s9"/);
    const exited = new Promise<number | null>((resolve) => child!.on("close", (code) => resolve(code))); // close: its output read to the end
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(out.text).toMatch(/crash s2\n/);
    expect(out.text).toContain("zksim serve: stopped; 0 violation(s)");
  }, 30_000);

  it.each(["SIGINT", "SIGTERM"] as const)("serve: cli: %s prints the stop summary and keeps the --record recording as its replay file", async (signal) => {
    const base = (await freePortRun(4)) + 1;
    const record = join(mkdtempSync(join(tmpdir(), "zksim-serve-")), "session.json");
    child = spawn(process.execPath, [BIN, "serve", "--base-port", String(base), "--seed", "4", "--record", record], { stdio: ["pipe", "pipe", "pipe"] });
    const out = OutputWatch.of(child.stdout!);
    await out.until("leader");
    expect(zksim("ctl", "--port", String(base - 1), "crash", "s1").status).toBe(0);
    const exited = new Promise<number | null>((resolve) => child!.on("close", (code) => resolve(code)));
    child.kill(signal);
    expect(await exited).toBe(0);
    expect(out.text).toContain("zksim serve: stopped; 0 violation(s)");
    const file = JSON.parse(readFileSync(record, "utf8")) as { zksim: string; scenario: { faults: { kind: string }[] } };
    expect(file.zksim).toBe("replay/1");
    expect(file.scenario.faults.map((f) => f.kind)).toContain("crash");
    expect(existsSync(`${record}.partial`)).toBe(false);
  }, 30_000);

  it("serve: cli: -Dzookeeper.4lw.commands.whitelist on the command line sets the whitelist; zoo.cfg's key wins over it, as in 3.8", async () => {
    const answers = async (port: number, args: string[]) => {
      child = spawn(process.execPath, [BIN, "serve", ...args, "--no-record", "--control-port", String(await freePort())], { stdio: ["pipe", "pipe", "pipe"] });
      let out = "";
      child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
      const deadline = Date.now() + 10_000;
      while (!out.includes(`127.0.0.1:${port}`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const got = [await askFourLetterWord({ host: "127.0.0.1", port }, "ruok"), await askFourLetterWord({ host: "127.0.0.1", port }, "envi")];
      child.kill("SIGKILL");
      return got.map((a) => (a.includes("not in the whitelist") ? "refused" : a.split("\n")[0]));
    };
    const port = await freePort();
    expect(await answers(port, ["--servers", "1", "--base-port", String(port), "-Dzookeeper.4lw.commands.whitelist=ruok"])).toEqual(["imok", "refused"]);
    const cfg = join(mkdtempSync(join(tmpdir(), "zksim-serve-")), "zoo.cfg");
    const cfgPort = await freePort();
    writeFileSync(cfg, `clientPort=${cfgPort}\n4lw.commands.whitelist=envi\n`);
    expect(await answers(cfgPort, ["--config", cfg, "-Dzookeeper.4lw.commands.whitelist=ruok"])).toEqual(["refused", "Environment:"]);
  }, 40_000);

  it("serve: cli: a bad zoo.cfg or flag is one line and exit 2; ctl with no serve is exit 5", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zksim-serve-"));
    writeFileSync(join(dir, "zoo.cfg"), "tickTime=2000\nsyncLimit=soon\n");
    const cfg = zksim("serve", "--config", join(dir, "zoo.cfg"));
    expect(cfg.status).toBe(2);
    expect(cfg.stderr.trim()).toMatch(/^zksim: .*zoo\.cfg:2: syncLimit: expected a whole number, got "soon"$/);
    expect(zksim("serve", "--servers", "3", "--config", join(dir, "zoo.cfg")).status).toBe(2);
    const timing = zksim("serve", "--timing", "wan", "--no-record");
    expect(timing.status).toBe(2);
    expect(timing.stderr.trim()).toBe("zksim: serve: --timing wan: no such timing profile (profiles: loopback, lan)");
    const startup = zksim("serve", "--leader-startup-ms", "20000000", "--no-record");
    expect(startup.status).toBe(2);
    expect(startup.stderr.trim()).toBe("zksim: serve: --leader-startup-ms 20000000: expected a whole number of ms in [0, 10000000]");
    // A joiner's zoo.cfg that declares no server outside the ensemble's config.
    writeFileSync(join(dir, "joiner.cfg"), "server.1=127.0.0.1:2888:3888;2181\nserver.2=127.0.0.1:2889:3889;2182\n");
    const joiner = zksim("serve", "--servers", "3", "--reconfig-enabled", "--joiner", join(dir, "joiner.cfg"), "--no-record");
    expect(joiner.status).toBe(2);
    expect(joiner.stderr.trim()).toMatch(/^zksim: --joiner .*joiner\.cfg: every server\.N line is in the ensemble's config; a joiner's zoo\.cfg adds its own \(server\.N=host:peerPort:electionPort:participant\|observer;clientPort\)$/);
    const none = zksim("ctl", "--port", String(await freePort()), "heal");
    expect(none.status).toBe(5);
  });
});
