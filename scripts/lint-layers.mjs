#!/usr/bin/env node
// Layer lint: imports point down the layer map of docs/architecture.md ("Layers"), never sideways
// or up. Each source file belongs to the layer of its folder; each relative import must land in
// a layer its own layer may use. A new folder under src/ must be given a layer here first.
//
//   cli/ tui/ (and serve/ runtime/ conformance/)           entry points: may use everything below
//   api/                                       the public API (a user's scripts): scenario/, property/, runtime/'s TCP client and below
//   search/                                    the model checker (zksim check): explores the stepper's worlds (above stepper/ and check/)
//   scenario/  property/                       siblings: scenario format and runner; fast-check properties
//   stepper/                                   the teaching stepper and its learn adapters (a run one choice at a time)
//   check/                                     checkers: values from zk/proto, sim/, base/; only types from above those
//   recipes/   protocols/                      ZooKeeper recipes (through the client only); teaching models (on world/)
//   zk/client/  zk/server/                     client library; server and ZAB quorum (on world/)
//   zk/proto/                                  records, codes, Jute codec
//   sim/                                       the kernel: one implementation of world/ (runtime/ is the other)
//   world/                                     the interfaces a process sees: clock, timers, random stream, network, disk
//   base/                                      errors and assertions, deferreds, the structural hash
//
// Files directly in src/ are the package's entry points: they may use everything but cli/ and tui/.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = new URL("..", import.meta.url).pathname;
// An optional argument names another source tree (the lint's own test uses it).
const SRC = process.argv[2] ? join(process.cwd(), process.argv[2]) : join(ROOT, "src");

// What protocol code (zk/client, zk/server, protocols/) sees of the world: the interfaces of
// world/ (node context, timers, connections, datagrams, disk, random stream) and nothing of the
// kernel that implements them — never the scheduler, the trace, the fault injector or the kernel
// classes. `sim/trace-schema` is types only: the trace contract every layer adds its annotation
// kinds to.
const WORLD = ["world", "sim/trace-schema", "base"];

// `zk/trace-events` is types only: the ZooKeeper layers' trace kinds, which every reader above them reads.
const BELOW_SCENARIO = ["stepper", "check", "recipes", "protocols", "zk/client", "zk/server", "zk/proto", "zk/trace-events", "sim", "world", "base"];

/** layer -> what it may import: `values` (any import) and `types` (only `import type`). */
export const LAYERS = {
  cli: { values: ["*"] },
  tui: { values: ["scenario", "property", ...BELOW_SCENARIO] },
  serve: { values: ["scenario", "property", ...BELOW_SCENARIO] },
  runtime: { values: ["scenario", "property", ...BELOW_SCENARIO] },
  // The conformance suite: op scripts through runtime/'s TCP client, against a real ZooKeeper and serve/.
  conformance: { values: ["serve", "runtime", "scenario", "property", ...BELOW_SCENARIO] },
  "": { values: ["scenario", "property", ...BELOW_SCENARIO] },
  // The public API (`import … from "zksim"`): builds scenarios of a user's script and runs them.
  api: { values: ["scenario", "property", "runtime", ...BELOW_SCENARIO] },
  scenario: { values: ["property", ...BELOW_SCENARIO] },
  // The model checker: searches the stepper's worlds; the CLI drives it.
  search: { values: BELOW_SCENARIO },
  property: { values: ["scenario", ...BELOW_SCENARIO] },
  // The teaching stepper: drives the kernel, the protocols and the ZooKeeper ensemble one choice at a time.
  stepper: { values: ["check", "recipes", "protocols", "zk/client", "zk/server", "zk/proto", "sim", "world", "base"], types: ["zk/trace-events"] },
  check: { values: ["zk/proto", "sim", "base"], types: ["recipes", "protocols", "zk/client", "zk/server", "zk/trace-events"] },
  recipes: { values: ["zk/client", "zk/proto", "sim/trace-schema", "base"] },
  protocols: { values: WORLD },
  // zk/ itself holds only the ZooKeeper layers' trace annotation types (zk/trace-events.ts).
  zk: { values: ["zk/proto", "sim/trace-schema", "base"] },
  "zk/client": { values: ["zk/proto", "zk/trace-events", ...WORLD] },
  "zk/server": { values: ["zk/proto", "zk/trace-events", ...WORLD] },
  "zk/proto": { values: ["base"] },
  sim: { values: ["world", "base"] },
  // The interfaces only (and the torn-record marker a disk read returns); the annotation kinds are the trace contract's.
  world: { values: ["base"], types: ["sim/trace-schema"] },
  base: { values: [] },
};

/** Packages that belong to one layer only (the UI's React, the kernel's seeded generator). */
const PACKAGES = { ink: ["tui", "cli"], react: ["tui", "cli"], "ink-testing-library": [], seedrandom: ["sim", "cli"] };

/** The layer of a path relative to src/ ("zk/server/quorum/leader.ts" -> "zk/server"). */
function layerOf(rel) {
  const parts = rel.split("/");
  if (parts.length === 1) return "";
  if (parts[0] === "zk") return parts.length > 2 ? `zk/${parts[1]}` : "zk";
  return parts[0];
}

/** Whether `target` (relative to src/, no extension) is inside one of the entries of `list`. */
function covers(list, target) {
  return list.some((e) => e === "*" || target === e || target.startsWith(e + "/"));
}

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (/\.(ts|tsx|js|mjs)$/.test(name) && !name.endsWith(".d.ts")) yield p;
  }
}

/** Every import of a file: its specifier, its line, and whether it is type-only. */
function importsOf(text) {
  const found = [];
  const lineAt = (offset) => text.slice(0, offset).split("\n").length;
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " ")).replace(/\/\/[^\n]*/g, "");
  for (const m of code.matchAll(/\b(import|export)\s+(type\s+)?([^;'"]*?)\s*from\s*["']([^"']+)["']/g)) {
    const clause = m[3];
    const named = /^\{([\s\S]*)\}$/.exec(clause.trim());
    const allTypeSpecifiers = named !== null && named[1].split(",").map((s) => s.trim()).filter((s) => s !== "").every((s) => s.startsWith("type "));
    found.push({ spec: m[4], line: lineAt(m.index), typeOnly: m[2] !== undefined || allTypeSpecifiers });
  }
  for (const m of code.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)) found.push({ spec: m[1], line: lineAt(m.index), typeOnly: false });
  for (const m of code.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) found.push({ spec: m[1], line: lineAt(m.index), typeOnly: false });
  return found;
}

const describe = (rule) => [...rule.values, ...(rule.types ?? []).map((t) => `${t} (types only)`)].join(", ") || "nothing";

/** Lints the tree at SRC: every problem on stderr, exit 1 if there is one. */
function lint() {
  const problems = [];
  for (const file of walk(SRC)) {
    const rel = relative(SRC, file);
    const layer = layerOf(rel);
    const rule = layer === undefined ? undefined : LAYERS[layer];
    if (rule === undefined) {
      problems.push(`src/${rel}:1: not in the layer map; give its folder a layer in scripts/lint-layers.mjs`);
      continue;
    }
    for (const imp of importsOf(readFileSync(file, "utf8"))) {
      const where = `src/${rel}:${imp.line}`;
      if (!imp.spec.startsWith(".")) {
        const pkg = imp.spec.startsWith("@") ? imp.spec.split("/").slice(0, 2).join("/") : imp.spec.split("/")[0];
        const owners = PACKAGES[pkg];
        if (owners !== undefined && !owners.includes(layer)) problems.push(`${where}: the package "${pkg}" belongs to ${owners.join("/") || "the tests"}, not ${layer || "src/"}`);
        continue;
      }
      const target = relative(SRC, resolve(dirname(file), imp.spec)).replace(/\.(js|ts|tsx|mjs)$/, "");
      if (target.startsWith("..")) {
        problems.push(`${where}: imports "${imp.spec}", outside src/`);
        continue;
      }
      const targetLayer = layerOf(target + ".ts");
      if (targetLayer === layer) continue;
      if (covers(rule.values, target) || (imp.typeOnly && covers(rule.types ?? [], target))) continue;
      const hint = !imp.typeOnly && covers(rule.types ?? [], target) ? " (only `import type` is allowed there)" : "";
      problems.push(`${where}: ${layer || "src/"} may not import ${target}${hint}; ${layer || "src/"} may import: ${describe(rule)}`);
    }
  }

  if (problems.length > 0) {
    console.error(`layer lint: ${problems.length} problem(s)\n${problems.join("\n")}`);
    process.exit(1);
  }
  console.log("layer lint: ok");
}

// Run as a script (npm run build); imported (the docs test reads LAYERS), it only defines.
if (import.meta.url === pathToFileURL(process.argv[1]).href) lint();
