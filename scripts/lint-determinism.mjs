#!/usr/bin/env node
// Determinism lint: simulated code (everything under src/ except the CLI, the UI and the
// real-time runtime) must not read ambient time or entropy, use real timers, or do real I/O.
// The kernel's one microtask-drain yield (src/sim/microtasks.ts) is the only exemption.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = new URL("..", import.meta.url).pathname;
// An optional argument names another source tree (the lint's own test uses it).
const SRC = process.argv[2] ? join(process.cwd(), process.argv[2]) : join(ROOT, "src");
/** Folders of src/ that may touch the real world: entry points and the real-time runtime. */
export const EXEMPT_FOLDERS = ["cli", "tui", "runtime", "serve", "conformance"];
const EXEMPT_DIRS = EXEMPT_FOLDERS.map((d) => join(SRC, d) + "/");
// assert-simulation.ts writes the shrunk case's replay file (the property harness's one I/O edge, like cli/).
// api/files.ts writes a user run's replay file and imports a user's module to replay it.
// scenario/heap-guard.ts reads V8's heap and node's flags (it can only stop a run, never change one).
export const EXEMPT_FILE_PATHS = ["sim/microtasks.ts", "property/assert-simulation.ts", "api/files.ts", "scenario/heap-guard.ts"];
const EXEMPT_FILES = new Set(EXEMPT_FILE_PATHS.map((f) => join(SRC, f)));

const RULES = [
  [/\bDate\.now\s*\(/, "Date.now() reads the real clock: use the node's virtual clock (ctx.nowMs())"],
  [/\bnew Date\s*\(/, "new Date() reads the real clock"],
  [/\bMath\.random\s*\(/, "Math.random() is ambient entropy: use a named Rng stream (rng.fork(...))"],
  [/\bperformance\.now\s*\(/, "performance.now() reads the real clock"],
  [/\bprocess\.hrtime\b/, "process.hrtime reads the real clock"],
  [/\bset(Timeout|Interval|Immediate)\s*\(/, "real timers: use ctx.setTimer / sim.schedule"],
  [/\b(randomBytes|randomUUID|getRandomValues|randomInt)\s*\(/, "crypto randomness is ambient entropy"],
  [/from\s+["']node:(fs|net|http|https|dgram|child_process|worker_threads|readline|dns|tls)(\/promises)?["']/, "real I/O module imported into simulated code"],
  [/from\s+["'](fs|net|http|https|dgram|child_process|worker_threads|readline|dns|tls)(\/promises)?["']/, "real I/O module imported into simulated code"],
  [/\bprocess\.(stdout|stderr|stdin|argv|env|exit)\b/, "process I/O belongs in cli/"],
];

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (/\.(ts|tsx|js|mjs)$/.test(name)) yield p;
  }
}

/** Lints the tree at SRC: every problem on stderr, exit 1 if there is one. */
function lint() {
  const problems = [];
  for (const file of walk(SRC)) {
    if (EXEMPT_FILES.has(file) || EXEMPT_DIRS.some((d) => file.startsWith(d))) continue;
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, "");
      if (/^\s*\*/.test(code)) return; // inside a block comment
      for (const [re, why] of RULES) {
        if (re.test(code)) problems.push(`${relative(ROOT, file)}:${i + 1}: ${why}\n    ${line.trim()}`);
      }
    });
  }

  if (problems.length > 0) {
    console.error(`determinism lint: ${problems.length} problem(s)\n${problems.join("\n")}`);
    process.exit(1);
  }
  console.log("determinism lint: ok");
}

// Run as a script (npm run build, npm test); imported (the docs test reads the exemptions), it only defines.
if (import.meta.url === pathToFileURL(process.argv[1]).href) lint();
