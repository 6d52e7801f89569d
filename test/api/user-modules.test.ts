/**
 * A user's own modules through every command that loads one: a TypeScript module (`.mts`, with
 * types, an interface, `satisfies`) is replayed (`zksim replay --module`, `replayUserCase`),
 * shrunk (`zksim shrink --module`), run and drawn (`zksim run --module --trace`) as it is; a module that cannot be loaded is named with the reason, and one whose
 * top-level await never settles ends with a timeout and exit 2, never exit 0.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { replayUserCase, runUserScript, UserInputError, type UserRunResult } from "../../src/api/index.js";
import { importUserModule } from "../../src/api/files.js";
import { typedStale } from "./fixtures/typed-scripts.mjs";

const ROOT = resolve(import.meta.dirname, "../..");
const TYPED = "test/api/fixtures/typed-scripts.mts";
const dir = mkdtempSync(join(tmpdir(), "zksim-modules-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const zksim = (...args: string[]) => spawnSync(process.execPath, ["bin/zksim.js", ...args], { cwd: ROOT, encoding: "utf8" });

let failing: UserRunResult;
beforeAll(async () => {
  failing = await runUserScript(typedStale, { seed: 5, replayDir: dir, replayCommand: "node bin/zksim.js", faults: [{ atMs: 3000, kind: "crash", node: "s1" }, { atMs: 6000, kind: "restart", node: "s1" }] });
}, 60_000);

describe("a TypeScript module, as it is", () => {
  test("replayUserCase loads the .mts module the file records and reproduces the hash", async () => {
    expect(failing.verdict).toBe("fail");
    expect(failing.replayCommand).toBe(`node bin/zksim.js replay ${failing.replayFile} --module ./${TYPED}`);
    const r = await replayUserCase(failing.replayFile!);
    expect(r.comparison.reproduced).toBe(true);
    expect(r.result.traceHash).toBe(failing.traceHash);
  });

  test("zksim replay --module FILE.mts reproduces in a fresh process, and --trace draws it as a ShiViz log", () => {
    const log = join(dir, "replay.shiviz");
    const r = zksim("replay", failing.replayFile!, "--module", TYPED, "--trace", log);
    expect(r.stdout, r.stderr).toContain(`reproduced: ${failing.traceHash} (still fails: `);
    expect(r.stdout).toContain(`trace written to ${log}`);
    expect(r.status).toBe(1);
    const shiviz = readFileSync(log, "utf8");
    // One line per event, host first with its vector clock: every node of the world took part.
    for (const node of ["s1", "s2", "s3", "c1"]) expect(shiviz).toMatch(new RegExp(`^${node} \\{"${node}":\\d+`, "m"));
  });

  test("zksim shrink --module drops the fault the bug does not need, and prints a replay line that reproduces", () => {
    const out = join(dir, "shrunk.json");
    const s = zksim("shrink", failing.replayFile!, "--module", TYPED, "--out", out, "--max-runs", "12");
    expect(s.status, s.stdout + s.stderr).toBe(0);
    expect(s.stdout).toMatch(/faults: {5}2 → 0/);
    const line = /replay: zksim replay (\S+) --module (\S+)/.exec(s.stdout);
    expect(line, s.stdout).not.toBeNull();
    const again = zksim("replay", line![1]!, "--module", line![2]!);
    expect(again.stdout, again.stderr).toMatch(/^reproduced: [0-9a-f]+ \(still fails: .*fixture\.reads-own-write/m);
    expect(again.status).toBe(1);
  });

  test("zksim run --module runs a scenario of the user's script and draws it", () => {
    const scenario = join(dir, "typed.json");
    const recorded = JSON.parse(readFileSync(failing.replayFile!, "utf8")) as { scenario: unknown };
    writeFileSync(scenario, JSON.stringify(recorded.scenario));
    const html = join(dir, "run.html");
    const r = zksim("run", scenario, "--seed", "5", "--module", TYPED, "--trace", html);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain(`trace hash ${failing.traceHash}`);
    // The replay line names the file run, not its scenario's name: the file is what reproduces.
    expect(r.stdout).toContain(`replay: zksim run ${scenario} --seed 5 --module ${TYPED}`);
    expect(readFileSync(html, "utf8")).toContain("fixture.reads-own-write");
  });
});

describe("a module that cannot be loaded", () => {
  test("a missing module, a syntax error, a missing export: the file and the reason, no flag that was not used", async () => {
    await expect(replayUserCase(failing.replayFile!, { module: "test/api/fixtures/missing.mts" })).rejects.toThrow(/^module test\/api\/fixtures\/missing\.mts: cannot load it \(Cannot find module/);
    const broken = join(dir, "broken.mts");
    writeFileSync(broken, "export const broken: number = ;\n");
    // esbuild names the file as tsx hands it over (broken.ts for broken.mts).
    await expect(importUserModule(broken)).rejects.toThrow(new RegExp(`^module ${broken}: cannot load it \\(${join(dir, "broken")}\\.m?ts:1:30: ERROR: Unexpected ";"\\)$`));
    await expect(replayUserCase(failing.replayFile!, { module: "test/api/fixtures/scripts.mjs" })).rejects.toThrow(/^module test\/api\/fixtures\/scripts\.mjs: no export "typedStale" made by defineUserScript \(its user scripts: writeRead, staleRead/);
  });

  test("a module whose top-level await never settles: a timeout naming it, exit 2 (not a silent exit 0)", async () => {
    const at = "test/api/fixtures/never-settles.mjs";
    await expect(replayUserCase(failing.replayFile!, { module: at, moduleTimeoutMs: 200 })).rejects.toThrow(new UserInputError(`module ${at}: did not finish loading within 200 ms (a top-level await that never settles?)`));
    const s = zksim("shrink", failing.replayFile!, "--module", at, "--out", join(dir, "never.json"));
    expect(s.status).toBe(2);
    expect(s.stderr).toMatch(/never-settles\.mjs: the user code stopped without finishing/);
  });
});
