/**
 * The public API (src/api/): a user's script runs deterministically (same seed, same trace hash,
 * in this process and, through `zksim replay --module`, in a fresh one); a user's checker sees
 * the user's events and catches a deliberately broken variant; options are validated eagerly
 * with errors naming the field.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { defineChecker, defineUserScript, runUserScript, userScriptProperty, UserInputError } from "../../src/api/index.js";
import { worldScenario } from "../../src/api/world-options.js";
// @ts-expect-error: a plain JavaScript module (what a user writes), without declarations
import { staleRead, writeRead } from "./fixtures/scripts.mjs";

const ROOT = resolve(import.meta.dirname, "../..");
const FIXTURE = "test/api/fixtures/scripts.mjs";
const dir = mkdtempSync(join(tmpdir(), "zksim-api-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("runUserScript", () => {
  test("same seed, same trace hash; another seed, another run", async () => {
    const a = await runUserScript(writeRead, { seed: 11 });
    const b = await runUserScript(writeRead, { seed: 11 });
    const c = await runUserScript(writeRead, { seed: 12 });
    expect(a.verdict, JSON.stringify(a.violations)).toBe("pass");
    expect(a.narrative.some((l) => l.startsWith("c2 saw the change"))).toBe(true);
    expect(b.traceHash).toBe(a.traceHash);
    expect(c.traceHash).not.toBe(a.traceHash);
  });

  test("the user's checker catches the broken variant, and a fresh process replays it to the same hash", async () => {
    const r = await runUserScript(staleRead, { seed: 11, replayDir: dir, replayCommand: "node bin/zksim.js" });
    expect(r.verdict).toBe("fail");
    expect(r.violations.map((v) => v.checker)).toEqual(["fixture.reads-last-write"]);
    expect(r.replayCommand).toBe(`node bin/zksim.js replay ${r.replayFile} --module ./${FIXTURE}`);
    const replay = spawnSync(process.execPath, ["bin/zksim.js", "replay", r.replayFile!, "--module", FIXTURE], { cwd: ROOT, encoding: "utf8" });
    expect(replay.stdout, replay.stderr).toContain(`reproduced: ${r.traceHash} (still fails: 1× fixture.reads-last-write)`);
    expect(replay.status).toBe(1);
    const recorded = JSON.parse(readFileSync(r.replayFile!, "utf8")) as { scenario: { workload: Record<string, unknown> } };
    expect(recorded.scenario.workload).toMatchObject({ kind: "user", module: `./${FIXTURE}`, export: "staleRead" });
  });

  test("a passing run replays in a fresh process with exit 0", async () => {
    const r = await runUserScript(writeRead, { seed: 3, replayDir: dir });
    const json = execFileSync(process.execPath, ["bin/zksim.js", "replay", r.replayFile!, "--module", FIXTURE, "--json"], { cwd: ROOT, encoding: "utf8" });
    expect(JSON.parse(json)).toMatchObject({ reproduced: true, actual: r.traceHash, verdict: "pass" });
    // Without --module: the module the file records, relative to the working directory.
    const recorded = execFileSync(process.execPath, ["bin/zksim.js", "replay", r.replayFile!, "--json"], { cwd: ROOT, encoding: "utf8" });
    expect(JSON.parse(recorded)).toMatchObject({ reproduced: true, actual: r.traceHash });
  });

  test("replay says which module it cannot import", () => {
    const r = spawnSync(process.execPath, ["bin/zksim.js", "replay", join(dir, "staleRead-seed11.json"), "--module", "test/api/fixtures/missing.mjs"], { cwd: ROOT, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--module not found: test\/api\/fixtures\/missing\.mjs/);
  });
});

describe("the world", () => {
  test("the built-in checkers are on: kernel, ZAB on an ensemble (standalone durability alone), client histories", () => {
    const ensemble = worldScenario(writeRead, {}, "t", "./m.js").checkers;
    expect(ensemble).toEqual(expect.arrayContaining(["zab.leadership", "zab.liveness", "client.linearizability", "client.sessions", "client.watches", "kernel.connection-fifo"]));
    const standalone = worldScenario(writeRead, { servers: 1 }, "t", "./m.js").checkers;
    expect(standalone).toContain("zk.standalone-durability");
    expect(standalone.some((c) => c.startsWith("zab."))).toBe(false);
  });

  test("waitFor gives up after its timeout, and a failed expect is a user.expect violation", async () => {
    const script = defineUserScript({
      module: import.meta.url,
      export: "waits",
      async run(world) {
        const t0 = world.nowMs();
        const held = await world.waitFor(() => false, { timeoutMs: 200, pollMs: 50 });
        world.expect(held, `never held (waited ${world.nowMs() - t0} ms)`);
      },
    });
    const r = await runUserScript(script, { servers: 1, clients: 1, durationMs: 1000 });
    expect(r.violations.map((v) => `${v.checker}: ${v.message}`)).toEqual(["user.expect: never held (waited 200 ms)"]);
  });
});

describe("eager validation names the bad field", () => {
  const bad: [string, () => Promise<unknown>, RegExp][] = [
    ["servers", () => runUserScript(writeRead, { servers: 2.5 }), /runUserScript: options\.servers must be a whole number/],
    ["unknown option", () => runUserScript(writeRead, { sever: 3 } as never), /runUserScript: unknown option "sever"/],
    ["observers on a standalone", () => runUserScript(writeRead, { servers: 1, observers: 1 }), /options\.observers needs an ensemble/],
    ["a fault's node", () => runUserScript(writeRead, { faults: [{ atMs: 10, kind: "crash", node: "s9" }] }), /faults\[0\]\.node/],
    ["network field", () => runUserScript(writeRead, { network: { maxDelay: 5 } as never }), /network.*unknown field "maxDelay"/],
    ["numRuns", () => userScriptProperty(writeRead, { numRuns: 0, seed: 1, outDir: dir }), /userScriptProperty: options\.numRuns/],
    ["fault kinds", () => userScriptProperty(writeRead, { numRuns: 1, seed: 1, outDir: dir, faults: { kinds: ["earthquake" as never] } }), /unknown disruption kind "earthquake"/],
  ];
  test.each(bad)("%s", async (_what, run, message) => {
    const err = await run().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(UserInputError);
    expect((err as Error).message).toMatch(message);
  });

  test("defineUserScript and defineChecker check their specs", () => {
    expect(() => defineUserScript({ module: "file:///x.js", export: "not a name", run: async () => {} })).toThrow(/export must be the name/);
    expect(() => defineChecker({ name: "NoDot", kinds: ["user.event"], start: () => 0, onEvent: () => {} })).toThrow(/name must be a dotted lower-case name/);
    expect(() => defineChecker({ name: "my.check", kinds: [], start: () => 0, onEvent: () => {} })).toThrow(/kinds must be a non-empty list/);
  });

  test("a bad fault inside a script fails the run with the field named", async () => {
    const script = defineUserScript({ module: import.meta.url, export: "badFault", run: async (world) => world.fault({ kind: "pause", node: "c7" }) });
    const r = await runUserScript(script, { durationMs: 1000 });
    expect(r.violations.map((v) => v.message)).toEqual([expect.stringMatching(/world\.fault\.node: .*c7/)]);
  });
});

describe("defineChecker", () => {
  test("an exception in onEvent is a violation naming the event, not a silent pass", async () => {
    const throwing = defineChecker({ name: "my.throws", kinds: ["user.event"], start: () => 0, onEvent: () => { throw new Error("cannot read it"); } });
    const script = defineUserScript({ module: import.meta.url, export: "oneEvent", checkers: [throwing], run: async (world) => world.client("c1").record("hello") });
    const r = await runUserScript(script, { servers: 1, clients: 1, durationMs: 1000 });
    expect(r.violations.map((v) => v.message)).toEqual([expect.stringMatching(/^onEvent threw on user\.event event #\d+: cannot read it$/)]);
  });
});
