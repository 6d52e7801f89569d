/**
 * What users install is what is tested: `npm pack` of this project, unpacked into a temporary
 * copy of examples/ as `node_modules/zksim`, the example's own files type-checked against the
 * packed declarations, the example's vitest suite run, and the replay command it prints run
 * with the packed CLI — it must reproduce the violation (exit 1).
 *
 * Offline and quick on a fresh clone after `npm ci`: no registry. The tarball is unpacked rather
 * than `npm install`ed (that would resolve zksim's dependencies through the registry or a warm
 * cache), and the example's other modules (vitest, typescript, zksim's own dependencies) are
 * links to this project's node_modules. So the test proves the tarball's contents (files list,
 * exports, types, bin), not npm's dependency resolution. About 12 s of CPU in all; the timeouts
 * leave room for a loaded machine.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
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
    if (name === "zksim" || name.startsWith(".")) continue;
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

test("the example's suite finds the lock bug, and its replay command reproduces it", () => {
  const suite = spawnSync(process.execPath, [join(example, "node_modules/vitest/vitest.mjs"), "run", "test/lock.test.js"], { cwd: example, encoding: "utf8", env: { ...process.env, CI: "1", NO_COLOR: "1" } });
  const out = suite.stdout + suite.stderr;
  expect(suite.status, out).toBe(0);
  expect(out).toMatch(/\[example\.lock-exclusive\]/);
  const line = /replay: npx zksim replay (\S+) --module (\S+)/.exec(out);
  expect(line, out).not.toBeNull();
  const [, file, module] = line!;
  const replay = spawnSync(process.execPath, [join(example, "node_modules/zksim/bin/zksim.js"), "replay", file!, "--module", module!], { cwd: example, encoding: "utf8" });
  expect(replay.stdout, replay.stderr).toMatch(/^reproduced: [0-9a-f]+ \(still fails: .*example\.lock-exclusive/m);
  expect(replay.status).toBe(1);
}, 120_000);
