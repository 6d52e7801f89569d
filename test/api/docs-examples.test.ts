/**
 * The API's docs stay true: docs/api.md names every export of the package's main entry
 * (src/api/index.ts), and every JavaScript block in docs/api.md and the tutorial is a verbatim
 * excerpt of a file under examples/ — the files
 * that test/api/example-project.test.ts type-checks against the packed package and runs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const read = (path: string): string => readFileSync(join(ROOT, path), "utf8");

/** The names `export { a, type B } from …` and `export type { C } from …` statements export. */
function exportedNames(source: string): string[] {
  const names: string[] = [];
  for (const m of source.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
    for (const part of m[1]!.split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()!.trim();
      if (name !== "") names.push(name);
    }
  }
  return names;
}

/** The bodies of the ```js blocks of a Markdown text. */
function jsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]!.replace(/\n$/, ""));
}

function exampleFiles(): string[] {
  const files: string[] = [];
  for (const dir of ["examples/src", "examples/test"]) for (const f of readdirSync(join(ROOT, dir))) if (f.endsWith(".js")) files.push(read(`${dir}/${f}`));
  return files;
}

describe("docs/api.md", () => {
  test("names every export of the main entry", () => {
    const names = exportedNames(read("src/api/index.ts"));
    expect(names.length).toBeGreaterThan(30);
    const doc = read("docs/api.md");
    expect(names.filter((n) => !doc.includes(`\`${n}\``) && !doc.includes(`\`${n}(`))).toEqual([]);
  });

  test("the export parser sees what it must (so the check above can fail)", () => {
    expect(exportedNames('export { a, type B as C } from "x";\nexport type { D } from "y";')).toEqual(["a", "C", "D"]);
  });
});

describe("code blocks are verbatim excerpts of the type-checked example", () => {
  const files = exampleFiles();
  const docs: [string, string][] = [
    ["docs/api.md", read("docs/api.md")],
    ["docs/tutorial-user-scripts.md", read("docs/tutorial-user-scripts.md")],
  ];
  test.each(docs)("%s", (_name, text) => {
    const blocks = jsBlocks(text);
    expect(blocks.length).toBeGreaterThan(0);
    expect(blocks.filter((b) => !files.some((f) => f.includes(b)))).toEqual([]);
  });

  test("an edited block is caught", () => {
    const [block] = jsBlocks(read("docs/api.md"));
    expect(files.some((f) => f.includes(block!.replace("trustingLock", "trustingLok")))).toBe(false);
  });
});
