/**
 * A lean install: the library (`import … from "zksim"`, `"zksim/property"`) never loads the
 * terminal UI's packages, ink and react (optional dependencies, for `zksim learn`), and whatever
 * needs them says in one line what to install when they are absent. (The packed example runs
 * without them installed at all: test/api/example-project.test.ts.)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "zksim-lean-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The packages (node_modules/<name>) whose modules a resolved-URL log names. */
function packagesIn(log: string): Set<string> {
  const names = readFileSync(log, "utf8")
    .split("\n")
    .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
    .filter((n): n is string => n !== undefined);
  return new Set(names);
}

test('import "zksim" and "zksim/property" load neither ink nor react', () => {
  const log = join(dir, "resolved.txt");
  const hooks = join(ROOT, "test/api/fixtures/record-resolved.mjs");
  const child = spawnSync(process.execPath, ["--import", pathToFileURL(hooks).href, "--input-type=module", "-e", 'await import("zksim"); await import("zksim/property");'], { cwd: ROOT, encoding: "utf8", env: { ...process.env, RESOLVED_LOG: log } });
  expect(child.status, child.stderr).toBe(0);
  const loaded = packagesIn(log);
  // The record is complete: the library's own dependencies are in it.
  expect([...loaded]).toEqual(expect.arrayContaining(["fast-check", "seedrandom"]));
  expect(loaded.has("ink")).toBe(false);
  expect(loaded.has("react")).toBe(false);
}, 60_000);

test("the terminal UI without ink or react: one line naming what to install", () => {
  // Modules importing ink, and a package that is nowhere, where no node_modules has them: Node's
  // own "Cannot find package" errors (in a plain node process: vitest's resolver would find ink).
  writeFileSync(join(dir, "screen.mjs"), 'import { render } from "ink";\nexport { render };\n');
  writeFileSync(join(dir, "other.mjs"), 'import "left-pad-not-here";\n');
  const script = `
    const { loadTerminalUi } = await import(${JSON.stringify(pathToFileURL(join(ROOT, "dist/tui/terminal-ui.js")).href)});
    for (const m of ["screen.mjs", "other.mjs"]) {
      await loadTerminalUi("zksim learn", () => import(new URL(m, ${JSON.stringify(pathToFileURL(`${dir}/`).href)}).href)).catch((err) => console.log(err.name + ": " + err.message.split("\\n")[0]));
    }`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, encoding: "utf8" });
  expect(child.status, child.stderr).toBe(0);
  const [ink, other] = child.stdout.trim().split("\n");
  expect(ink).toBe("UserInputError: zksim learn needs ink and react (optional dependencies of zksim; ink is not installed): npm install ink react");
  // Any other failure is not dressed up as a missing package.
  expect(other).toMatch(/^Error: Cannot find package 'left-pad-not-here'/);
}, 60_000);
