/**
 * What users install is what is tested: `npm pack` of this project, unpacked into a temporary
 * copy of examples/ as `node_modules/zksim`, the example's own files type-checked against the
 * packed declarations, the example's vitest suites run (the JavaScript lock, the TypeScript
 * config store), and the commands they print run with the packed CLI as a user runs them: the
 * replay reproduces the violation (exit 1) with the trace hash the failing run reported;
 * for the TypeScript module (`--module ./src/classic.ts`, no build step), `zksim shrink` makes the
 * case smaller, and its printed replay line reproduces that with the hash shrink reported and
 * draws it (`--trace case.html`: the space-time diagram; the ShiViz log of a user's case is
 * test/api/user-modules.test.ts's).
 *
 * Offline and quick on a fresh clone after `npm ci`: no registry. The tarball is unpacked rather
 * than `npm install`ed (that would resolve zksim's dependencies through the registry or a warm
 * cache), and the example's other modules (vitest, typescript, zksim's own dependencies) are
 * links to this project's node_modules. So the test proves the tarball's contents (files list,
 * exports, types, bin), not npm's dependency resolution. ink and react, the terminal UI's optional
 * dependencies, are not linked: what a library user runs works without them. About 25 s of CPU
 * in all; the timeouts leave room for a heavily loaded machine.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
let work = "";
let example = "";

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "zksim-example-"));
  const packed = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], { cwd: ROOT, encoding: "utf8" }).trim().split("\n").pop()!;
  example = join(work, "example");
  cpSync(join(ROOT, "examples"), example, { recursive: true, filter: (src) => !/[/\\](node_modules|replay)$/.test(src) });
  const modules = join(example, "node_modules");
  mkdirSync(join(modules, "zksim"), { recursive: true });
  execFileSync("tar", ["xzf", join(work, packed), "-C", join(modules, "zksim"), "--strip-components=1"]);
  for (const name of readdirSync(join(ROOT, "node_modules"))) {
    // ink and react (the terminal UI's, optional) left out: the library runs without them.
    if (name === "zksim" || name === "ink" || name === "react" || name.startsWith(".")) continue;
    symlinkSync(join(ROOT, "node_modules", name), join(modules, name));
  }
}, 120_000);

afterAll(() => {
  if (work !== "") rmSync(work, { recursive: true, force: true });
});

test("the example type-checks against the packed declarations", () => {
  const tsc = spawnSync(process.execPath, [join(example, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: example, encoding: "utf8" });
  expect(tsc.stdout + tsc.stderr).toBe("");
  expect(tsc.status).toBe(0);
}, 120_000);

/** The example's failing tests (`-t`: the passing ones cost time and prove nothing here), in one vitest run. */
let suiteOut = "";
beforeAll(() => {
  const failing = ["trusting lock holder is caught", "config read without sync is caught"].join("|");
  const suite = spawnSync(process.execPath, [join(example, "node_modules/vitest/vitest.mjs"), "run", "-t", failing], { cwd: example, encoding: "utf8", env: { ...process.env, CI: "1", NO_COLOR: "1" } });
  suiteOut = suite.stdout + suite.stderr;
  expect(suite.status, suiteOut).toBe(0);
}, 300_000);

/** `npx zksim …` in the example: the packed CLI. */
const zksim = (...args: string[]) => spawnSync(process.execPath, [join(example, "node_modules/zksim/bin/zksim.js"), ...args], { cwd: example, encoding: "utf8" });

/** The failure a test printed for `script`: the trace hash it reported, its replay file and module. */
function reported(script: string): { hash: string; file: string; module: string } {
  const m = new RegExp(`shrunk case: the user's script ${script} .*; trace hash ([0-9a-f]+);[^]*?replay: npx zksim replay (\\S+) --module (\\S+)`).exec(suiteOut);
  expect(m, suiteOut).not.toBeNull();
  return { hash: m![1]!, file: m![2]!, module: m![3]! };
}

test("the JavaScript lock: the suite finds the bug, and its replay command reproduces it with the reported hash", () => {
  expect(suiteOut).toMatch(/\[example\.lock-exclusive\]/);
  const { hash, file, module } = reported("trustingLock");
  const replay = zksim("replay", file, "--module", module);
  expect(replay.stdout, replay.stderr).toMatch(new RegExp(`^reproduced: ${hash} \\(still fails: .*example\\.lock-exclusive`, "m"));
  expect(replay.status).toBe(1);
}, 120_000);

test("the TypeScript config store: fails, shrinks, replays by the printed command and draws its case", () => {
  const { file, module } = reported("staleConfig");
  expect(module).toBe("./src/classic.ts");
  // zksim shrink on the user's TypeScript module: a smaller case, and the line that replays it.
  const shrink = zksim("shrink", file, "--module", module, "--max-runs", "4");
  expect(shrink.status, shrink.stdout + shrink.stderr).toBe(0);
  const [faults, duration] = ["faults", "durationMs"].map((what) => new RegExp(`${what}: +(\\d+) → (\\d+)`).exec(shrink.stdout)!.slice(1).map(Number));
  expect(faults![1]!).toBeLessThanOrEqual(faults![0]!);
  expect(duration![1]!).toBeLessThanOrEqual(duration![0]!);
  expect(faults![1]! < faults![0]! || duration![1]! < duration![0]!, shrink.stdout).toBe(true);
  const shrunkHash = /shrunk case fails with: client\.read-after-confirmed-write; trace hash ([0-9a-f]+)/.exec(shrink.stdout)![1]!;
  const line = /^replay: zksim replay (\S+) --module (\S+)$/m.exec(shrink.stdout);
  expect(line, shrink.stdout).not.toBeNull();

  // The printed replay line reproduces the shrunk case, and --trace draws it: the space-time diagram of that very run.
  const again = zksim("replay", line![1]!, "--module", line![2]!, "--trace", "case.html");
  expect(again.stdout, again.stderr).toMatch(new RegExp(`^reproduced: ${shrunkHash} \\(still fails: .*client\\.read-after-confirmed-write`, "m"));
  expect(again.status).toBe(1);
  const html = readFileSync(join(example, "case.html"), "utf8");
  expect(html).toContain(`trace hash <code>${shrunkHash}</code>`);
  expect(html).toMatch(/verdict <b class="fail">FAIL<\/b>/);
  for (const node of ["s1", "s2", "s3", "c1", "c2"]) expect(html).toContain(`data-node="${node}"`);
  expect(html).toContain("violation: client.read-after-confirmed-write");
  expect(Number(/(\d+) messages drawn/.exec(html)![1])).toBeGreaterThan(0);
}, 300_000);
