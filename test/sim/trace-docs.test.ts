/**
 * docs/trace.md is held to the trace schema, read from the types themselves (the TypeScript
 * compiler over `src/sim/trace-schema.ts` and every file that adds kinds to `TraceAnnotations`;
 * src/check/trace-kinds.ts lists the same kinds as a value):
 * every kind is documented, with each of its fields named in its row (or in its section's
 * preamble, for the fields a whole family starts with), and the page documents no kind, and
 * declares no field (`name: type`), that the schema does not have.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { TRACE_KINDS } from "../../src/check/trace-kinds.js";

const ROOT = join(import.meta.dirname, "..", "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith(".ts") ? [path] : [];
  });
}

/** Kind → its field names (every member's, for a kind whose fields are a union), from the types. */
function schemaKinds(): Map<string, Set<string>> {
  const files = sourceFiles(join(ROOT, "src")).filter((f) => /interface (TraceAnnotations|KernelTraceEvents)\b/.test(readFileSync(f, "utf8")));
  const program = ts.createProgram(files, { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const schema = program.getSourceFile(join(ROOT, "src/sim/trace-schema.ts"))!;
  const kinds = new Map<string, Set<string>>();
  for (const name of ["KernelTraceEvents", "TraceAnnotations"]) {
    const decl = schema.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name)!;
    const type = checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(decl.name)!);
    for (const kind of checker.getPropertiesOfType(type)) {
      const fieldsType = checker.getNonNullableType(checker.getTypeOfSymbol(kind));
      const members = fieldsType.isUnion() ? fieldsType.types : [fieldsType];
      const fields = new Set(members.flatMap((m) => (m.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection) ? checker.getPropertiesOfType(m).map((p) => p.name) : [])));
      kinds.set(kind.name, fields);
    }
  }
  return kinds;
}

interface DocumentedKind {
  /** The row's text, and its section's text before the first table (fields a family shares). */
  row: string;
  preamble: string;
}

/** Kind → where docs/trace.md documents it: the first cell of a table row names one or more kinds. */
function documentedKinds(): Map<string, DocumentedKind> {
  const out = new Map<string, DocumentedKind>();
  for (const section of readFileSync(join(ROOT, "docs/trace.md"), "utf8").split(/^## /m).slice(1)) {
    const preamble = section.split(/^\|/m)[0]!;
    for (const line of section.split("\n")) {
      const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
      if (cells.length < 3 || cells[1] === "Kind" || /^-+$/.test(cells[1]!)) continue;
      for (const [, kind] of cells[1]!.matchAll(/`([a-z0-9][a-z0-9.-]*)`/g)) out.set(kind!, { row: line, preamble });
    }
  }
  return out;
}

const SCHEMA = schemaKinds();
const DOCS = documentedKinds();
/** The one-event table documents the event's own properties, not kinds. */
const EVENT_PROPERTIES = new Set(["index", "atUs", "kind", "node", "peer", "id", "detail", "fields", "conn"]);

describe("docs/trace.md against the schema", () => {
  it("reads a schema of the expected size", () => {
    expect(SCHEMA.size).toBeGreaterThan(100);
    expect([...SCHEMA.get("zab.log")!]).toEqual(["sid", "zxid", "txn"]);
  });

  it("TRACE_KINDS, the run-time list defineChecker checks kinds against, is the schema's kinds", () => {
    expect([...TRACE_KINDS].sort()).toEqual([...SCHEMA.keys()].sort());
  });

  it("documents every kind", () => {
    expect([...SCHEMA.keys()].filter((k) => !DOCS.has(k))).toEqual([]);
  });

  it("documents no kind the schema lacks", () => {
    expect([...DOCS.keys()].filter((k) => !SCHEMA.has(k) && !EVENT_PROPERTIES.has(k))).toEqual([]);
  });

  it("names every field of every kind", () => {
    const missing = new Set<string>();
    for (const [kind, fields] of SCHEMA) {
      const doc = DOCS.get(kind);
      if (doc === undefined) continue;
      for (const f of fields) if (!new RegExp(`\\b${f}\\b`).test(doc.row) && !doc.preamble.includes(`\`${f}`)) missing.add(`${kind}.${f}`);
    }
    expect([...missing]).toEqual([]);
  });

  it("declares no field a kind lacks (`name: type` in its row)", () => {
    const extra: string[] = [];
    for (const [kind, doc] of DOCS) {
      const fields = SCHEMA.get(kind);
      if (fields === undefined) continue;
      const declared = [...doc.row.matchAll(/`([a-zA-Z][a-zA-Z0-9]*)\??: /g)].map((m) => m[1]!);
      for (const f of declared) if (!fields.has(f)) extra.push(`${kind}.${f}`);
    }
    expect(extra).toEqual([]);
  });
});
