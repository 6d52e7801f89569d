/**
 * `zksim serve --scenario`: what of a scenario applies to a served ensemble (its shape, settings
 * and faults; not its clients, script or checkers, each a warning), its faults fired on the
 * wall clock with a status line each, and a bad scenario file as one line and exit 2.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { parseScenario } from "../../src/scenario/parse.js";
import { serveScenarioOf } from "../../src/serve/serve-scenario.js";
import { startServe, type ServeSession } from "../../src/serve/serve-session.js";
import { OpCode } from "../../src/zk/proto/op-code.js";
import { Code } from "../../src/zk/proto/error-code.js";
import { RawZkClient, leaderServing } from "./raw-zk-client.js";
import { OutputWatch } from "../helpers/output.js";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));

function scenario(doc: Record<string, unknown>) {
  return parseScenario({ name: "t", durationMs: 2000, workload: { kind: "zk", script: "recipe-lock", servers: 3, clients: 4 }, ...doc }, "t.json");
}

let session: ServeSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe("serve: scenario", () => {
  it("serve: scenario: a zk scenario gives its shape and settings, its faults, and warnings for what does not run", () => {
    const s = serveScenarioOf(loadScenario("recipe-lock"), 1, 2181);
    expect(s.settings.members.map((m) => `${m.node}:${m.clientPort}`)).toEqual(["s1:2181", "s2:2182", "s3:2183"]);
    expect(s.scenario.faults.map((f) => f.fault.kind)).toEqual(["cut", "heal", "pause", "resume", "crash", "restart"]);
    expect(s.scenario.endAllAtMs).toBe(loadScenario("recipe-lock").durationMs);
    expect(s.warnings.some((w) => /script "recipe-lock" and its \d+ simulated client\(s\) do not run under serve/.test(w))).toBe(true);
    const t = serveScenarioOf(scenario({ workload: { kind: "zk", script: "recipe-lock", servers: 5, observers: 1, tickTimeMs: 500, syncLimitTicks: 3 }, convergence: false }), 1, 3000);
    expect(t.settings.members.map((m) => m.observer)).toEqual([false, false, false, false, false, true]);
    expect([t.settings.tickTimeMs, t.settings.syncLimitTicks, t.scenario.endAllAtMs]).toEqual([500, 3, undefined]);
  });

  it("serve: scenario: names serve has no node for leave the faults, a fault left empty is dropped", () => {
    const s = serveScenarioOf(
      scenario({
        faults: [
          { atMs: 100, kind: "cut", from: ["s2"], to: ["s1", "c3", "c4"] },
          { atMs: 200, kind: "pause", node: "c4" },
          { atMs: 300, kind: "partition", groups: [["s1", "c4"], ["s2", "s3"]] },
        ],
      }),
      1,
      2181,
    );
    expect(s.scenario.faults.map((f) => [f.index, f.fault])).toEqual([
      [0, { atMs: 100, kind: "cut", from: ["s2"], to: ["s1", "c3"], oneWay: false }],
      [2, { atMs: 300, kind: "partition", groups: [["s1"], ["s2", "s3"]] }],
    ]);
    expect(s.warnings.some((w) => /serve has no node c4 /.test(w))).toBe(true);
  });

  it("serve: scenario: a swarm scenario's shape comes from the seed; its nemesis's faults anchored on the fault phase are kept, other workload waits dropped", () => {
    const s = serveScenarioOf(loadScenario("zab-random-faults"), 7, 2181);
    expect([3, 5]).toContain(s.settings.members.filter((m) => !m.observer).length);
    expect(s.scenario.faults.length).toBeGreaterThan(0);
    expect(s.scenario.recordsFaultPhase).toBe(true);
    expect(s.warnings.some((w) => /wait on the scenario's workload events/.test(w))).toBe(false);
    const other = serveScenarioOf(scenario({ faults: [{ atMs: 0, kind: "crash", node: "s1", when: [{ after: "workload.phase", fields: { phase: "heal" } }] }, { atMs: 0, kind: "crash", node: "s2", when: [{ after: "workload.phase", fields: { phase: "faults" } }] }] }), 1, 2181);
    expect(other.scenario.faults.map((f) => f.index)).toEqual([1]);
    expect(other.warnings.some((w) => /1 of 2 fault\(s\) wait on the scenario's workload events/.test(w))).toBe(true);
    expect(() => serveScenarioOf(loadScenario("paxos-basic"), 1, 2181)).toThrow(/workload "paxos" is not a ZooKeeper deployment/);
  });

  it("serve: scenario: serve records the swarm's fault-phase anchor at the first leader, arming the nemesis's faults (N=3 or 5)", async () => {
    const { settings, scenario: sc } = serveScenarioOf(loadScenario("zab-random-faults"), 7, 2181);
    const out = new OutputWatch();
    session = await startServe({ settings: { ...settings, members: settings.members.map((m) => ({ ...m, clientPort: 0 })) }, seed: 7, out: out.line, scenario: sc });
    await out.until("fault phase begins");
    const lines = out.lines;
    const leader = lines.findIndex((l) => / leader s\d established/.test(l));
    const anchor = lines.findIndex((l) => /scenario zab-random-faults: fault phase begins/.test(l));
    expect(leader).toBeGreaterThanOrEqual(0);
    expect(anchor).toBeGreaterThan(leader);
    expect(lines.filter((l) => /scenario zab-random-faults faults\[\d+\] \(\d+\/\d+\): armed: /.test(l)).length).toBeGreaterThan(0);
  }, 20_000);

  it("serve: scenario: faults fire on the wall clock with a status line each; a client of another server keeps being served (N=3)", async () => {
    const { settings, scenario: sc } = serveScenarioOf(
      scenario({ durationMs: 1600, faults: [{ atMs: 1300, kind: "crash", node: "s3" }, { atMs: 1400, kind: "cut", from: ["c1"], to: ["s1"] }] }),
      1,
      2181,
    );
    const out = new OutputWatch();
    session = await startServe({ settings: { ...settings, members: settings.members.map((m) => ({ ...m, clientPort: 0 })) }, seed: 1, out: out.line, scenario: sc });
    await leaderServing(session);
    await out.until("are over");
    const lines = out.lines;
    const mine = lines.filter((l) => l.includes("scenario t"));
    expect(mine[0]).toMatch(/^\[1\.3\d\ds\] scenario t faults\[0\] \(1\/2\): crash s3$/);
    expect(mine[1]).toMatch(/^\[1\.4\d\ds\] scenario t faults\[1\] \(2\/2\): cut c1 <-> s1$/);
    expect(mine[2]).toMatch(/^\[1\.6\d\ds\] scenario t: its 1600 ms are over; every fault still in force ends/);
    expect(lines.some((l) => /\] restart s3$/.test(l))).toBe(true);
    await leaderServing(session);
    const client = await RawZkClient.connect(session.clientPorts.get("s1")!);
    try {
      client.sendConnect();
      await client.next("connect");
      client.sendRequest(1, OpCode.exists, { kind: "ExistsRequest", path: "/", watch: false });
      expect(await client.next("reply")).toMatchObject({ header: { xid: 1, err: Code.OK } });
    } finally {
      client.close();
    }
  }, 20_000);

  it("serve: scenario: a bad scenario file is one line naming it, exit 2", () => {
    const dir = mkdtempSync(join(tmpdir(), "zksim-serve-scenario-"));
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ name: "x", durationMs: 1000, workload: { kind: "zk", script: "recipe-lock", servers: 3 }, faults: [{ atMs: 1, kind: "crash", node: "s9" }] }));
    for (const [args, message] of [
      [["--scenario", bad], /^zksim: --scenario .*bad\.json: faults\[0\]\.node: unknown node "s9"/],
      [["--scenario", join(dir, "missing.json")], /^zksim: scenario file not found: /],
      [["--scenario", "paxos-basic"], /is not a ZooKeeper deployment/],
      [["--scenario", "recipe-lock", "--servers", "5"], /--servers and --scenario exclude each other/],
    ] as const) {
      const r = spawnSync(process.execPath, [BIN, "serve", ...args], { encoding: "utf8", timeout: 20_000 });
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(message);
    }
  });

  it("serve: scenario: the serve modules load first in a fresh process (as `npm run conformance` loads them): no import cycle reaches the swarm workload before the zk workload is defined", () => {
    for (const module of ["serve/serve-session.js", "serve/serve-scenario.js"]) {
      const url = new URL(`../../dist/${module}`, import.meta.url).href;
      const r = spawnSync(process.execPath, ["--input-type=module", "-e", `await import(${JSON.stringify(url)})`], { encoding: "utf8", timeout: 30_000 });
      expect(r.stderr, module).toBe("");
      expect(r.status, module).toBe(0);
    }
  });
});

