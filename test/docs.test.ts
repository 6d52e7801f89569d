/**
 * Docs that cannot drift: the README's walkthrough prints what the README says (its commands
 * are run, and the event numbers, times and hashes of the text compared with the output); the
 * README stays a five-minute read; docs/commands.md's synopsis has every command and its flags;
 * the docs name files and registries that exist; the lints' folder lists and the layer diagram
 * of docs/architecture.md match src/. (The API docs' code blocks: test/api/docs-examples.test.ts.)
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../src/cli/commands/index.js";
import { EXEMPT_FILE_PATHS, EXEMPT_FOLDERS } from "../scripts/lint-determinism.mjs";
import { LAYERS } from "../scripts/lint-layers.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const BIN = join(ROOT, "bin/zksim.js");
const read = (path: string): string => readFileSync(join(ROOT, path), "utf8");
const DOCS = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);

/** Whitespace runs (line breaks of wrapped text included) as one space. */
const flat = (text: string): string => text.replace(/\s+/g, " ").trim();

/** The README section under `## title`, up to the next `## `. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`## ${title}`);
  expect(start, `no "## ${title}" section`).toBeGreaterThanOrEqual(0);
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/**
 * Where the pieces of `expected` (the text between its `…` elisions) are found in `output`,
 * in order; the first piece that is not, as a message.
 */
function missingPiece(expected: string, output: string): string | undefined {
  const text = flat(output);
  let at = 0;
  for (const piece of expected.split("…").map(flat).filter((p) => p !== "")) {
    const found = text.indexOf(piece, at);
    if (found < 0) return `not in the output (after position ${at}): "${piece}"\n--- output ---\n${output}`;
    at = found + piece.length;
  }
  return undefined;
}

/** Runs `npx zksim …` as the README reader would, in `cwd`. */
function zksimIn(cwd: string, commandLine: string): { status: number; stdout: string } {
  const args = commandLine.replace(/^npx zksim\s+/, "").split(/\s+/);
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } });
  return { status: r.status ?? -1, stdout: r.stdout };
}

const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"];

describe("README", () => {
  const readme = read("README.md");

  it("is a five-minute read: at most 160 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(160);
  });

  it("its quick start is what package.json runs", () => {
    const quick = section(readme, "Two commands");
    expect(quick).toMatch(/^npm install && npm start\b/m);
    expect(quick).toMatch(/^npm test\b/m);
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toMatch(/bin\/zksim\.js demo$/);
    expect(scripts.prestart).toBe("npm run build");
    expect(scripts.test).toContain("vitest run");
  });

  it("its first failure prints the event numbers, times and hashes the text says", { timeout: 240_000 }, () => {
    const walk = section(readme, "Your first failure, in five steps");
    const cwd = mkdtempSync(join(tmpdir(), "zksim-readme-"));

    // The transcript: `$ command`, then its output with `…` where the README leaves lines out.
    const block = /```sh\n\$ (npx zksim [^\n]+)\n([\s\S]*?)```/.exec(walk);
    expect(block, "the walkthrough's transcript").not.toBeNull();
    const [, command, transcript] = block!;
    expect(transcript!.split("…").length).toBeGreaterThan(2);
    const first = zksimIn(cwd, command!);
    expect(first.status).toBe(1);
    expect(missingPiece(transcript!, first.stdout)).toBeUndefined();

    // The steps' claims, in order: `npx zksim …` → `what it prints`, `and more`.
    const claims = [...walk.matchAll(/`(npx zksim [^`]+)` → ((?:`[^`]+`(?:,\s*)?)+)/g)];
    expect(claims.map((c) => c[1]!.split(" ")[2])).toEqual(["replay", "shrink"]);
    for (const [, claimed, printed] of claims) {
      const r = zksimIn(cwd, claimed!);
      for (const [, piece] of printed!.matchAll(/`([^`]+)`/g)) expect(missingPiece(piece!, r.stdout), claimed).toBeUndefined();
    }

    // Step 5: without the bug the scenario passes, and the zoo holds the number of defects named.
    expect(walk).toContain("`npx zksim run bug-1154`. ");
    const pass = zksimIn(cwd, "npx zksim run bug-1154");
    expect(pass.status).toBe(0);
    expect(pass.stdout).toMatch(/^verdict: PASS/m);
    const others = /lists the other (\w+) historical defects/.exec(walk);
    expect(others).not.toBeNull();
    const zoo = zksimIn(cwd, "npx zksim bugs --json").stdout.trim().split("\n").pop()!;
    expect(NUMBER_WORDS[(JSON.parse(zoo) as unknown[]).length - 1]).toBe(others![1]);
  });

  it("a transcript with a changed number is caught", () => {
    const output = "verdict: FAIL (2 violations)\n  [x] at 1.5ms (event #836): a b c\nsaved";
    expect(missingPiece("verdict: FAIL (2 violations)\n  [x] at 1.5ms (event #836): a …\nsaved", output)).toBeUndefined();
    expect(missingPiece("verdict: FAIL (2 violations)\n  [x] at 1.5ms (event #828): a …\nsaved", output)).toMatch(/#828/);
    expect(missingPiece("saved … verdict", output)).toMatch(/verdict/);
  });
});

describe("docs/commands.md", () => {
  const synopsis = /```sh\n([\s\S]*?)```/.exec(read("docs/commands.md"))![1]!;
  const lines = synopsis.split("\n").filter((l) => l.startsWith("zksim "));

  it.each(COMMANDS.map((c) => [c.name, c.args] as const))("its synopsis has zksim %s with every flag", (name, args) => {
    const own = lines.filter((l) => l.split(/\s+/)[1] === name).join(" ");
    expect(own, `no "zksim ${name}" line`).not.toBe("");
    const flags = [...args.matchAll(/(?<![\w-])--?[a-zA-Z][\w-]*/g)].map((m) => m[0]);
    expect(flags.filter((f) => !own.includes(f))).toEqual([]);
  });

  it("its synopsis names no command that does not exist", () => {
    const names = new Set(COMMANDS.map((c) => c.name));
    expect(lines.map((l) => l.split(/\s+/)[1]!).filter((n) => !names.has(n))).toEqual([]);
  });
});

describe("the docs name what exists", () => {
  /** `src/…`-like paths in backquotes; templates (`<name>`, `bug-NNNN`) are left out. */
  const pathsIn = (text: string): string[] =>
    [...text.matchAll(/`((?:src|test|scripts|scenarios|docs|examples|bin)\/[\w./-]+)`/g)].map((m) => m[1]!.replace(/\.$/, "")).filter((p) => !/NNNN/.test(p));

  it.each(["README.md", "docs/extending.md", "docs/architecture.md", "docs/testing.md", "docs/commands.md", "docs/faults.md", "docs/trace.md"])("%s: every file it names exists", (doc) => {
    const paths = pathsIn(read(doc));
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it("docs/extending.md names files, the walk-throughs' subject", () => {
    expect(pathsIn(read("docs/extending.md")).length).toBeGreaterThan(20);
  });

  it.each(["README.md", ...DOCS])("%s: every relative link lands on a file", (doc) => {
    const links = [...read(doc).matchAll(/\]\(([\w./-]+)(?:#[\w-]*)?\)/g)].map((m) => m[1]!);
    expect(links.filter((l) => !existsSync(join(ROOT, dirname(doc), l)))).toEqual([]);
  });

  it.each(["README.md", ...DOCS])("%s: a name said to be in a file is in it", (doc) => {
    const claims = [...read(doc).matchAll(/`([A-Za-z_]\w*)(?:\(\))?`,? (?:in|of|from|to) `((?:src|scripts)\/[^`]+\.(?:ts|tsx|mjs))`/g)];
    const wrong = claims.filter(([, name, path]) => !existsSync(join(ROOT, path!)) || !new RegExp(`\\b${name}\\b`).test(read(path!)));
    expect(wrong.map((c) => c[0])).toEqual([]);
  });
});

describe("the lints' folder lists match the tree", () => {
  /** src/'s layer folders: each top folder, zk/ split into its sub-folders (zk/ keeps its own top files). */
  const folders = (): string[] => {
    const isDir = (p: string) => statSync(join(ROOT, "src", p)).isDirectory();
    const top = readdirSync(join(ROOT, "src")).filter(isDir);
    return [...top, ...readdirSync(join(ROOT, "src/zk")).filter((d) => isDir(`zk/${d}`)).map((d) => `zk/${d}`)].sort();
  };

  it("every folder of src/ has a layer, and every layer a folder", () => {
    const layered = Object.keys(LAYERS).filter((l) => l !== "").sort();
    expect(layered).toEqual(folders());
  });

  it("every folder a layer may import exists", () => {
    const targets = new Set(Object.values(LAYERS).flatMap((r) => [...r.values, ...(r.types ?? [])]).filter((t) => t !== "*"));
    expect([...targets].filter((t) => !existsSync(join(ROOT, "src", t)) && !existsSync(join(ROOT, "src", `${t}.ts`)))).toEqual([]);
  });

  it("the determinism lint exempts folders and files that exist", () => {
    expect(EXEMPT_FOLDERS.filter((f) => !existsSync(join(ROOT, "src", f)))).toEqual([]);
    expect(EXEMPT_FILE_PATHS.filter((f) => !existsSync(join(ROOT, "src", f)))).toEqual([]);
  });

  it("docs/architecture.md's layer diagram shows every layer once", () => {
    const diagram = /## Layers[\s\S]*?```\n([\s\S]*?)```/.exec(read("docs/architecture.md"))![1]!;
    const shown = diagram.split("\n").flatMap((line) => (/^((?:[a-z-]+\/)+(?:\s+|$))+/.exec(line)?.[0] ?? "").split(/\s+/)).filter((t) => t !== "").map((t) => t.replace(/\/$/, ""));
    expect([...shown].sort()).toEqual(folders().filter((f) => f !== "zk"));
  });

  it("the determinism lint's exemptions are the diagram's entry points", () => {
    const entry = /## Layers[\s\S]*?```\n([^\n]*)/.exec(read("docs/architecture.md"))![1]!;
    expect(entry.split(/\s+/).filter((t) => t.endsWith("/")).map((t) => t.replace(/\/$/, "")).sort()).toEqual([...EXEMPT_FOLDERS].sort());
  });
});
