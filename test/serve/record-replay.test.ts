/**
 * Record and replay of real traffic: a `zksim serve` session with a real TCP client (ops, a
 * watch, a crash through the fault command path) is recorded as a replay file; replaying it —
 * in process, and with `zksim replay` in a fresh process — gives the same trace hash and
 * verdict. A session whose checker finds a violation (the follower-ack-before-fsync canary)
 * replays to the same violation and shrinks to a smaller file that still fails. A malformed or
 * truncated file is one clear line and exit 2; a journal left by a crash replays.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startServe, type ServeOptions, type ServeSession } from "../../src/serve/serve-session.js";
import { settingsFromFlags, type ServeSettings } from "../../src/serve/zoo-cfg.js";
import { OpCode } from "../../src/zk/proto/op-code.js";
import { Ids } from "../../src/zk/proto/records.js";
import { parseReplayFile } from "../../src/scenario/replay-file.js";
import { compareReplay, runReplayCase } from "../../src/scenario/replay.js";
import { shrinkCase } from "../../src/scenario/shrink.js";
import { servedCaseFromJournal } from "../../src/serve/serve-recorder.js";
import { SERVE_REGISTRY } from "../../src/serve/served-workload.js";
import { parseScenario } from "../../src/scenario/parse.js";
import { serveScenarioOf } from "../../src/serve/serve-scenario.js";
import { RawZkClient, freePortRun, leaderServing, serveFixture, untilSim } from "./raw-zk-client.js";
import { OutputWatch } from "../helpers/output.js";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));
const text = (s: string) => new TextEncoder().encode(s);
// A recorded session names the "served" workload: its replays look it up there.
const served = { registry: SERVE_REGISTRY };

function zksim(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 60_000 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Three servers on free ports; a short tick so elections and expiries take little wall time. */
function settings(): ServeSettings {
  const s = settingsFromFlags(3, 0, 2181);
  return { ...s, tickTimeMs: 200, members: s.members.map((m) => ({ ...m, clientPort: 0 })) };
}

const fx = serveFixture();

async function serve(extra: Partial<ServeOptions> = {}): Promise<ServeSession> {
  fx.session = await startServe({ settings: settings(), seed: 7, controlPort: 0, out: () => undefined, ...extra });
  await leaderServing(fx.session);
  return fx.session;
}

async function client(port: number): Promise<RawZkClient> {
  const c = await RawZkClient.connect(port);
  fx.clients.push(c);
  c.sendConnect(0n, new Uint8Array(16), 4000);
  expect((await c.next("connect")).kind).toBe("connect");
  return c;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client of a member that may still be syncing with its leader (its port then closes at once). */
async function clientWhenServing(port: number): Promise<RawZkClient> {
  for (let tries = 0; ; tries++) {
    try {
      return await client(port);
    } catch (err) {
      if (tries >= 40 || !(err instanceof Error) || err.message !== "connection closed") throw err;
      await sleep(250);
    }
  }
}

describe("serve: record and replay", () => {
  it("serve: record: a session with ops, a watch and a crash replays to the same trace hash and verdict, in process and in a fresh process", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zksim-rec-"));
    const file = join(dir, "session.json");
    const s = await serve({ record: file });
    expect(existsSync(`${file}.partial`)).toBe(true);
    const a = await client(s.clientPorts.get("s1")!);
    a.sendRequest(1, OpCode.create, { kind: "CreateRequest", path: "/app", data: text("v1"), acl: Ids.OPEN_ACL_UNSAFE, flags: 0 });
    expect((await a.next("reply")).kind).toBe("reply");
    a.sendRequest(2, OpCode.getData, { kind: "GetDataRequest", path: "/app", watch: true });
    await a.next("reply");
    const b = await client(s.clientPorts.get("s2")!);
    b.sendRequest(1, OpCode.setData, { kind: "SetDataRequest", path: "/app", data: text("v2"), version: -1 });
    await b.next("reply");
    expect(s.command("crash s3")).toBe("ok: crash s3");
    expect(s.command("pause s2 for 300ms")).toBe("ok: pause s2 for 300ms");
    await untilSim(s, "s2's resume, 300 ms on", (e) => e?.kind === "resume" && e.node === "s2");
    b.close(); // serve's close ends b's simulated connection if its gateway has not yet
    await b.closed;
    await s.close();
    const outcome = s.outcome()!;
    fx.session = undefined;
    expect(existsSync(`${file}.partial`)).toBe(false);
    const c = parseReplayFile(readFileSync(file, "utf8"), file, SERVE_REGISTRY);
    expect(c.scenario.workload.kind).toBe("served");
    expect(c.scenario.faults.map((f) => f.kind)).toEqual(["crash", "pause", "resume"]);
    const inputs = c.scenario.workload.params.inputs as { kind: string; address?: string }[];
    expect(inputs.filter((i) => i.kind === "connect")).toHaveLength(2);
    // The real client's address goes in with its connection (the server's `ip` identity), and is recorded.
    expect(inputs.filter((i) => i.kind === "connect").map((i) => i.address)).toEqual(["127.0.0.1", "127.0.0.1"]);
    expect(inputs.filter((i) => i.kind === "frame").length).toBeGreaterThanOrEqual(5);
    expect(c.expected.traceHash).toBe(outcome.traceHash);
    // Served with the default timing profile, a loopback ensemble's: the replay runs its links and fsyncs.
    expect([c.scenario.network, c.scenario.disk]).toEqual([{ minDelayUs: 20, maxDelayUs: 60 }, { fsyncLatencyUs: 120 }]);
    const again = await runReplayCase(c, served);
    expect(compareReplay(c, again)).toMatchObject({ reproduced: true });
    expect(again.counts["zk.session.established"]).toBeGreaterThanOrEqual(2);
    const child = zksim("replay", file, "--json");
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toMatchObject({ reproduced: true, actual: outcome.traceHash, verdict: "pass" });
  }, 60_000);

  it("serve: record: --timing lan serves a LAN's links and fsyncs (0.5–1.5 ms a hop, 2 ms), loopback a loopback's (20–60 µs, 0.12 ms, the real clients' links instant, the measured start-ups); each session replays with its own", async () => {
    const served1 = async (timing: "lan" | "loopback") => {
      const s = await serve({ timing });
      const { minDelayUs, maxDelayUs } = s.ensemble.sim.network.defaults;
      const fsyncUs = s.ensemble.sim.node("s1").disk.config.fsyncLatencyUs;
      const a = await client(s.clientPorts.get("s1")!);
      a.sendRequest(1, OpCode.create, { kind: "CreateRequest", path: "/t", data: text("x"), acl: Ids.OPEN_ACL_UNSAFE, flags: 0 });
      await a.next("reply");
      await s.close();
      const c = s.outcome()!.replayCase;
      fx.session = undefined;
      expect(compareReplay(c, await runReplayCase(c, served))).toMatchObject({ reproduced: true });
      const recordedSettings = c.scenario.workload.params.settings as { instantGatewayLinks?: boolean; quorumTiming?: Record<string, number> };
      const instant = recordedSettings.instantGatewayLinks ?? false;
      return { live: [{ minDelayUs, maxDelayUs }, { fsyncLatencyUs: fsyncUs }], recorded: [c.scenario.network, c.scenario.disk], instant, quorumTiming: recordedSettings.quorumTiming };
    };
    const lan = await served1("lan");
    expect(lan.live).toEqual([{ minDelayUs: 500, maxDelayUs: 1500 }, { fsyncLatencyUs: 2000 }]);
    expect(lan.recorded).toEqual(lan.live);
    const loopback = await served1("loopback");
    expect(loopback.live).toEqual([{ minDelayUs: 20, maxDelayUs: 60 }, { fsyncLatencyUs: 120 }]);
    expect(loopback.recorded).toEqual(loopback.live);
    // Loopback: the real clients' links take no simulated time (their real hop is the hop); a LAN's take a LAN hop.
    expect([loopback.instant, lan.instant]).toEqual([true, false]);
    // Loopback: the measured start-up of a new leader (to its bound quorum port) and learner (to its first connect), recorded with the session; a LAN has none.
    expect([loopback.quorumTiming, lan.quorumTiming]).toEqual([{ leaderStartupMs: 32, learnerStartupMs: 6, learnerSyncMs: 18, leaderServingStartupMs: 24 }, undefined]);
  }, 60_000);

  it("serve: record: a --scenario session (its network, disk and server settings, its timed faults and their end) replays to the same trace hash, from the file and from its journal", async () => {
    const doc = {
      name: "served-schedule",
      durationMs: 2200,
      network: { minDelayMs: 2, maxDelayMs: 4 },
      disk: { fsyncLatencyMs: 7 },
      workload: { kind: "zk", script: "recipe-lock", servers: 3, clients: 2, tickTimeMs: 200, snapCount: 5 },
      faults: [
        { atMs: 900, kind: "crash", node: "s2" },
        { atMs: 1400, kind: "cut", from: ["s1"], to: ["s3"] },
        { atMs: 1900, kind: "restart", node: "s2" },
      ],
    };
    const { settings: shaped, scenario } = serveScenarioOf(parseScenario(doc, "served-schedule.json"), 5, 2181);
    const dir = mkdtempSync(join(tmpdir(), "zksim-rec-"));
    const file = join(dir, "scheduled.json");
    const s = (fx.session = await startServe({ settings: { ...shaped, members: shaped.members.map((m) => ({ ...m, clientPort: 0 })) }, seed: 5, controlPort: 0, out: () => undefined, scenario, record: file }));
    await leaderServing(s);
    const journal = readFileSync(`${file}.partial`, "utf8");
    const a = await client(s.clientPorts.get("s1")!);
    for (let i = 1; i <= 8; i++) {
      a.sendRequest(i, OpCode.create, { kind: "CreateRequest", path: `/n${i}`, data: text("x"), acl: Ids.OPEN_ACL_UNSAFE, flags: 0 });
      await a.next("reply");
    }
    await untilSim(s, "the schedule's end", () => s.ensemble.sim.nowUs >= 2_400_000); // every fault has run
    expect(s.ensemble.sim.trace.kindCounts()["crash"]).toBeGreaterThanOrEqual(1);
    await s.close();
    const outcome = s.outcome()!;
    fx.session = undefined;
    const c = parseReplayFile(readFileSync(file, "utf8"), file, SERVE_REGISTRY);
    expect(c.scenario.workload.params.scenario).toMatchObject({ name: "served-schedule", faults: [{ index: 0 }, { index: 1 }, { index: 2 }] });
    expect(c.scenario.network).toEqual({ minDelayUs: 2000, maxDelayUs: 4000 });
    expect(c.scenario.faults).toEqual([]); // the schedule is the scenario's, not fault commands
    const again = await runReplayCase(c, served);
    expect(again.traceHash).toBe(outcome.traceHash);
    expect(compareReplay(c, again)).toMatchObject({ reproduced: true });
    // A journal's header carries the schedule too: the run it recovers is the same up to its last input.
    expect(JSON.parse(journal.split("\n")[0]!)).toMatchObject({ scenario: { name: "served-schedule" }, network: { minDelayMs: 2, maxDelayMs: 4 }, disk: { fsyncLatencyMs: 7 } });
    const recovered = servedCaseFromJournal(journal, "scheduled.json.partial");
    expect([recovered.scenario.network, recovered.scenario.disk]).toEqual([c.scenario.network, c.scenario.disk]);
    expect(recovered.scenario.workload.params.scenario).toEqual(c.scenario.workload.params.scenario);
  }, 60_000);

  it("serve: record: a canary session's violation replays to the same violation and shrinks to a smaller failing file", async () => {
    const s = await serve({ canary: "follower-ack-before-fsync" });
    const a = await client(s.clientPorts.get("s1")!);
    const b = await client(s.clientPorts.get("s3")!);
    a.sendRequest(1, OpCode.create, { kind: "CreateRequest", path: "/x", data: text("1"), acl: Ids.OPEN_ACL_UNSAFE, flags: 0 });
    await a.next("reply");
    expect(s.command("partition s1 | s2 s3")).toBe("ok: partition s1 | s2 s3");
    expect(s.command("heal")).toBe("ok: heal");
    b.sendRequest(1, OpCode.getData, { kind: "GetDataRequest", path: "/x", watch: false });
    await b.next("reply");
    await s.close();
    fx.session = undefined;
    const outcome = s.outcome()!;
    expect(outcome.violations.map((v) => v.checker)).toContain("zab.durable-ack");
    const c = outcome.replayCase;
    expect(c.expected.verdict).toBe("fail");
    const again = await runReplayCase(c, served);
    expect(compareReplay(c, again)).toMatchObject({ reproduced: true });
    const shrunk = await shrinkCase(c, 40, SERVE_REGISTRY);
    expect(shrunk).toBeDefined();
    const small = shrunk!.shrunk;
    const conns = (x: typeof c) => new Set((x.scenario.workload.params.inputs as { conn: number }[]).map((i) => i.conn)).size;
    expect(small.scenario.faults.length).toBeLessThan(c.scenario.faults.length);
    expect(conns(small)).toBeLessThan(conns(c));
    expect(small.expected.violations[0]!.checker).toBe(c.expected.violations[0]!.checker);
    expect(compareReplay(small, await runReplayCase(small, served))).toMatchObject({ reproduced: true });
  }, 90_000);

  it("serve: record: a journal left by a crash of serve replays its inputs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zksim-rec-"));
    const file = join(dir, "crashed.json");
    const s = await serve({ record: file });
    const a = await client(s.clientPorts.get("s2")!);
    a.sendRequest(1, OpCode.create, { kind: "CreateRequest", path: "/j", data: text("1"), acl: Ids.OPEN_ACL_UNSAFE, flags: 0 });
    await a.next("reply");
    // Every input that got a reply is in the journal already (flushed before each step).
    const journal = readFileSync(`${file}.partial`, "utf8");
    const c = servedCaseFromJournal(journal, `${file}.partial`);
    // A torn last line (serve killed mid-write) is left out, not an error.
    expect(servedCaseFromJournal(journal + '{"atUs": 12', "torn").scenario.workload.params.inputs).toEqual(c.scenario.workload.params.inputs);
    const inputs = c.scenario.workload.params.inputs as { kind: string }[];
    expect(inputs.map((i) => i.kind)).toEqual(["connect", "frame", "frame"]);
    const run = await runReplayCase(c, served);
    expect(run.counts["zk.session.established"]).toBe(1);
    const child = zksim("replay", `${file}.partial`);
    expect(child.stdout).toContain("journal");
    expect(child.status).toBe(0);
  }, 60_000);

  it("serve: record: the command line prints where it records, its trace hash and the replay line; a fresh process replays the file to that hash", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zksim-rec-"));
    const file = join(dir, "cli.json");
    const base = (await freePortRun(4)) + 1;
    const child = spawn(process.execPath, [BIN, "serve", "--base-port", String(base), "--seed", "11", "--record", file], { stdio: ["pipe", "pipe", "pipe"] });
    try {
      const out = OutputWatch.of(child.stdout);
      await out.until("leader");
      expect(out.text).toContain(`recording to ${file} (journal ${file}.partial while serving)`);
      const a = await clientWhenServing(base + 1);
      a.sendRequest(1, OpCode.create, { kind: "CreateRequest", path: "/cli", data: text("1"), acl: Ids.OPEN_ACL_UNSAFE, flags: 0 });
      await a.next("reply");
      // serve answers once the crash has run in the simulation.
      expect(zksim("ctl", "--port", String(base - 1), "crash", "s1").stdout).toBe("ok: crash s1\n");
      const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code))); // close: its output read to the end
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      const hash = /trace hash ([0-9a-f]+)/.exec(out.text)?.[1];
      expect(hash).toBeDefined();
      expect(out.text).toContain(`recorded ${file}; replay: zksim replay ${file}`);
      const replayed = zksim("replay", file, "--json");
      expect(replayed.status).toBe(0);
      expect(JSON.parse(replayed.stdout)).toMatchObject({ reproduced: true, actual: hash });
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);

  it("serve: record: a malformed or truncated record file is one clear line and exit 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zksim-rec-"));
    const s = await serve({ record: join(dir, "ok.json") });
    const a = await client(s.clientPorts.get("s1")!);
    a.sendRequest(1, OpCode.exists, { kind: "ExistsRequest", path: "/", watch: false });
    await a.next("reply");
    await s.close();
    fx.session = undefined;
    const good = readFileSync(join(dir, "ok.json"), "utf8");
    const truncated = join(dir, "truncated.json");
    writeFileSync(truncated, good.slice(0, Math.floor(good.length / 2)));
    const cut = zksim("replay", truncated);
    expect(cut.status).toBe(2);
    expect(cut.stderr.trim().split("\n")).toHaveLength(1);
    expect(cut.stderr).toContain("not valid JSON");
    const doc = JSON.parse(good) as { scenario: { workload: { inputs: Record<string, unknown>[] } } };
    doc.scenario.workload.inputs[1]!.base64 = "not base64!";
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify(doc));
    const r = zksim("replay", bad);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/workload\.inputs\[1\]\.base64/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
