#!/usr/bin/env node
/**
 * `npm run fuzz`: mutated inputs over every input surface of zksim, deterministic from a seed
 * (docs/reliability.md). Every input must end with an exit code its command may give (never 3,
 * V8's 134 or a signal), exit 2 with one stderr line and no stack trace, within a wall-clock bound,
 * and an input the fuzzer knows is invalid must not exit 0.
 *
 *   node scripts/fuzz.mjs [--seed N] [--inputs N] [--smoke] [--surfaces a,b] [--json] [--keep DIR]
 *
 * --inputs: the total (default 2,400), shared among the surfaces by their weights; --smoke: the
 * quick set npm test runs (about 120 inputs, no serve). Exit 0 when nothing was found, 1 with
 * findings (each printed with the command that reproduces it), 2 on bad arguments.
 * Runs the built CLI (dist/): `npm run build` first.
 */
import { fork, spawn } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const dist = (p) => pathToFileURL(join(ROOT, "dist", p)).href;

// ---------------------------------------------------------------------------------------------
// Options

function options(argv) {
  const o = { seed: 1, inputs: 2400, smoke: false, surfaces: undefined, json: false, keep: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) bad(`${a} needs a value`);
      return v;
    };
    if (a === "--seed") o.seed = int(value(), a);
    else if (a === "--inputs") o.inputs = int(value(), a);
    else if (a === "--smoke") o.smoke = true;
    else if (a === "--json") o.json = true;
    else if (a === "--surfaces") o.surfaces = value().split(",");
    else if (a === "--keep") o.keep = value();
    else bad(`unknown option ${a} (options: --seed N, --inputs N, --smoke, --surfaces a,b, --json, --keep DIR)`);
  }
  if (o.smoke && !argv.includes("--inputs")) o.inputs = 120;
  return o;
}
function int(v, flag) {
  if (!/^\d{1,9}$/.test(v)) bad(`${flag} must be a whole number, got "${v}"`);
  return Number(v);
}
function bad(message) {
  console.error(`fuzz: ${message}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// A seeded random source (xorshift128+ over 32-bit halves: no Math.random, the same inputs for a seed)

class Rng {
  constructor(seed) {
    this.s = [seed ^ 0x9e3779b9, seed * 2654435761, 0x6d2b79f5, ~seed];
    for (let i = 0; i < 12; i++) this.u32();
  }
  u32() {
    const s = this.s;
    let t = s[3];
    const x = s[0];
    s[3] = s[2];
    s[2] = s[1];
    s[1] = x;
    t ^= t << 11;
    t ^= t >>> 8;
    s[0] = (t ^ x ^ (x >>> 19)) >>> 0;
    return s[0];
  }
  below(n) {
    return this.u32() % n;
  }
  pick(xs) {
    return xs[this.below(xs.length)];
  }
  chance(p) {
    return this.u32() / 2 ** 32 < p;
  }
}

// ---------------------------------------------------------------------------------------------
// Mutation operators over JSON documents. Each returns { doc?, text?, op, invalid }: `invalid` when
// the result is known to be wrong input (it must not exit 0).

/** Every [parent, key] of a document's tree, the root's children first. */
function slots(doc) {
  const out = [];
  const walk = (v, path) => {
    if (v === null || typeof v !== "object") return;
    for (const k of Array.isArray(v) ? v.keys() : Object.keys(v)) {
      out.push({ parent: v, key: k, path: [...path, k] });
      walk(v[k], [...path, k]);
    }
  };
  walk(doc, []);
  return out;
}
const clone = (x) => JSON.parse(JSON.stringify(x));
const typeOf = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** A key read as a duration: milliseconds, microseconds or seconds in its name. */
const isDurationKey = (k) => typeof k === "string" && /(Ms|Us|MsMax|MsMin|Seconds|S)$/.test(k) && !/^(ms|us)$/i.test(k);
/** Durations that may be negative (an offset, a clock skew) or that are positions, not lengths. */
const signedDuration = (k) => /offset|skew|drift/i.test(k);

const OTHER_TYPE = { number: ["7", true, null, [], {}], string: [7, true, null, [], {}], boolean: [1, "yes", null, []], array: [{}, "x", 3], object: [[], "x", 3], null: [] };
const NUMBERS = [0, 1, -1, 0.5, 2, 3, 1000, 2 ** 31, 2 ** 53, -(2 ** 31), 1e300, -1e300, 1e-300];
const STRINGS = ["", " ", "s99", "x".repeat(5000), "é\u0000\u202e", "../../../../etc/passwd", "NaN", "1e300", "__proto__", "constructor"];
/** Absurd durations: none of them is a length any field may take. */
const ABSURD_DURATIONS = [1e300, "1e999", 2 ** 63, 1e20];

const JSON_OPS = {
  /** A value of another type (a string where a number was…): wrong input, unless it is optional and null. */
  retype(rng, doc) {
    const s = rng.pick(slots(doc));
    const options = OTHER_TYPE[typeOf(s.parent[s.key])];
    if (options.length === 0) return undefined;
    const v = clone(rng.pick(options));
    s.parent[s.key] = v;
    return { op: `retype ${s.path.join(".")}→${typeOf(v)}`, invalid: v !== null };
  },
  /** A field the format does not have: refused (unknown fields are errors, not silently dropped). */
  unknownField(rng, doc) {
    const objects = [doc, ...slots(doc).map((s) => s.parent[s.key])].filter((v) => typeOf(v) === "object");
    const o = rng.pick(objects);
    o[rng.pick(["fuzzExtra", "durationMS", "Seed", "kindd"])] = rng.pick([1, "x", null, {}]);
    return { op: "unknown field", invalid: true };
  },
  /** A field removed: may be optional, so no verdict is expected. */
  drop(rng, doc) {
    const s = rng.pick(slots(doc));
    if (Array.isArray(s.parent)) s.parent.splice(s.key, 1);
    else delete s.parent[s.key];
    return { op: `drop ${s.path.join(".")}`, invalid: false };
  },
  /** A number at a boundary (0, -1, 2^53, 1e300…): the parser decides. */
  boundary(rng, doc) {
    const nums = slots(doc).filter((s) => typeof s.parent[s.key] === "number");
    if (nums.length === 0) return undefined;
    const s = rng.pick(nums);
    const v = rng.pick(NUMBERS);
    s.parent[s.key] = v;
    const dur = isDurationKey(s.key) && !signedDuration(s.key);
    return { op: `boundary ${s.path.join(".")}=${v}`, invalid: dur && (v > 1e15 || v < 0) };
  },
  /** An absurd duration (1e300 ms, Infinity, 2^63) in a field named for a duration: always refused. */
  absurdDuration(rng, doc) {
    const durs = slots(doc).filter((s) => isDurationKey(s.key) && typeof s.parent[s.key] === "number");
    if (durs.length === 0) return undefined;
    const s = rng.pick(durs);
    const v = rng.pick(ABSURD_DURATIONS);
    s.parent[s.key] = v === "1e999" ? Infinity : v;
    return { op: `absurd duration ${s.path.join(".")}=${v}`, invalid: true };
  },
  /** A string replaced (empty, huge, control characters, a path): the parser decides. */
  string(rng, doc) {
    const strs = slots(doc).filter((s) => typeof s.parent[s.key] === "string");
    if (strs.length === 0) return undefined;
    const s = rng.pick(strs);
    s.parent[s.key] = rng.pick(STRINGS);
    return { op: `string ${s.path.join(".")}`, invalid: false };
  },
  /** A list emptied, an element repeated, or the list reversed. */
  list(rng, doc) {
    const lists = slots(doc).filter((s) => Array.isArray(s.parent[s.key]) && s.parent[s.key].length > 0);
    if (lists.length === 0) return undefined;
    const s = rng.pick(lists);
    const xs = s.parent[s.key];
    const how = rng.pick(["empty", "repeat", "reverse"]);
    if (how === "empty") s.parent[s.key] = [];
    else if (how === "repeat") xs.push(clone(rng.pick(xs)));
    else xs.reverse();
    return { op: `list ${how} ${s.path.join(".")}`, invalid: false };
  },
};

/** Operators that may undo what another did: they run before the others. */
const MAY_UNDO = new Set(["drop", "list", "string", "boundary"]);

/** Operators on the text: each result that no longer parses as JSON is known invalid. */
const TEXT_OPS = {
  truncate: (rng, t) => t.slice(0, rng.below(t.length)),
  flipByte: (rng, t) => {
    const b = Buffer.from(t);
    const i = rng.below(b.length);
    b[i] = rng.pick([0x00, 0x22, 0x7b, 0x7d, 0x5b, 0x2c, 0xff, b[i] ^ 0x20]);
    return b.toString("latin1");
  },
  bom: (_rng, t) => `\ufeff${t}`,
  nest: (_rng, t) => `${"[".repeat(20000)}${t}${"]".repeat(20000)}`,
  empty: () => "",
  binary: (rng) => Buffer.from(Array.from({ length: 64 + rng.below(256) }, () => rng.below(256))).toString("latin1"),
};

/** 1–3 mutations of a JSON document's text (mostly structural, some textual). */
function mutateJson(rng, text, ops = JSON_OPS) {
  if (rng.chance(0.15)) {
    const name = rng.pick(Object.keys(TEXT_OPS));
    const out = TEXT_OPS[name](rng, text);
    let parses = true;
    try {
      JSON.parse(out);
    } catch {
      parses = false;
    }
    return { text: out, ops: [name], invalid: !parses };
  }
  const doc = JSON.parse(text);
  const applied = [];
  let invalid = false;
  const n = 1 + rng.below(3);
  // The operators that may remove or replace what another one did run first, so that an input
  // made invalid stays invalid (a "drop" after an "unknownField" could take the field away again).
  const names = Array.from({ length: n * 3 }, () => rng.pick(Object.keys(ops))).sort((a, b) => Number(!MAY_UNDO.has(a)) - Number(!MAY_UNDO.has(b)));
  for (const name of names) {
    if (applied.length >= n) break;
    const r = ops[name](rng, doc);
    if (r === undefined) continue;
    applied.push(r.op);
    invalid ||= r.invalid;
  }
  return { text: JSON.stringify(doc, null, 1), ops: applied, invalid };
}

/** A JSON-lines file (a serve journal): a line mutated, moved, duplicated or removed. */
function mutateLines(rng, text, lineOps) {
  const lines = text.split("\n").filter((l) => l !== "");
  const how = rng.pick(["json", "json", "json", "swap", "dup", "drop", "garbage", "position", "position"]);
  const i = 1 + rng.below(Math.max(1, lines.length - 1));
  if (how === "json" && lines.length > 0) {
    const k = rng.below(lines.length);
    const m = mutateJson(rng, lines[k]);
    lines[k] = m.text.replace(/\n/g, "");
    // A line left blank is no line (a journal skips blank lines).
    const skipped = lines[k].trim() === "";
    return { text: lines.join("\n") + "\n", ops: [`line ${k + 1}: ${m.ops.join(", ")}`], invalid: m.invalid && !skipped };
  }
  if (how === "position") return lineOps.position(rng, lines);
  if (how === "swap" && lines.length > 2) {
    const j = 1 + rng.below(lines.length - 1);
    [lines[i], lines[j]] = [lines[j], lines[i]];
    return { text: lines.join("\n") + "\n", ops: [`swap lines ${i + 1}, ${j + 1}`], invalid: false };
  }
  if (how === "dup") lines.splice(i, 0, lines[i] ?? lines[0]);
  else if (how === "drop") lines.splice(i, 1);
  else lines.splice(i, 0, rng.pick(["{", "[]", "null", "42", '"x"', "{}"]));
  return { text: lines.join("\n") + "\n", ops: [`${how} line ${i + 1}`], invalid: how === "garbage" && i === 0 };
}

// ---------------------------------------------------------------------------------------------
// The runner (scripts/fuzz-runner.mjs) and the checks on each outcome

class Runner {
  constructor() {
    this.next = 1;
    this.restarts = 0;
  }
  async start() {
    const child = fork(join(ROOT, "scripts/fuzz-runner.mjs"), [], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe", "ipc"], execArgv: ["--max-old-space-size=1024", "--no-warnings"], env: { ...process.env, FORCE_COLOR: "0" } });
    this.child = child;
    this.childErr = "";
    this.child.stderr.on("data", (d) => (this.childErr = (this.childErr + d).slice(-4000)));
    this.pending = undefined;
    this.child.on("message", (m) => {
      if (m.ready) return this.ready?.();
      const p = this.pending;
      if (p !== undefined && (m.id === p.id || m.id === -1)) {
        this.pending = undefined;
        p.resolve(m);
      }
    });
    this.child.on("exit", (code, signal) => {
      // A runner killed for a hang may report its exit after the next one started.
      if (this.child !== child) return;
      const p = this.pending;
      this.pending = undefined;
      this.child = undefined;
      p?.resolve({ status: signal !== null ? `signal ${signal}` : code, stdout: "", stderr: this.childErr, died: true });
    });
    await new Promise((r) => (this.ready = r));
  }
  /** One input: {status, stdout, stderr, ms} or {hang: true} after `boundMs`. */
  async run(message, boundMs) {
    if (this.child === undefined) {
      this.restarts++;
      await this.start();
    }
    const id = this.next++;
    const t0 = performance.now();
    const result = await new Promise((resolve) => {
      this.pending = { id, resolve };
      const timer = setTimeout(() => {
        if (this.pending?.id !== id) return;
        this.pending = undefined;
        this.child?.kill("SIGKILL");
        this.child = undefined;
        resolve({ hang: true });
      }, boundMs);
      this.pending.resolve = (m) => {
        clearTimeout(timer);
        resolve(m);
      };
      this.child.send({ id, ...message });
    });
    return { ...result, ms: performance.now() - t0 };
  }
  stop() {
    this.child?.kill("SIGKILL");
  }
}

/** What is wrong with one outcome (undefined: nothing). */
function judge(input, r) {
  if (r.hang) return `hang: no answer within ${input.boundMs / 1000} s`;
  const allowed = input.allowed ?? [0, 1, 2];
  if (!allowed.includes(r.status)) return `exit ${r.status} (allowed: ${allowed.join(", ")})${r.died ? " — the process died" : ""}: ${firstLines(r.stderr)}`;
  if (/internal error|\n\s+at .+:\d+:\d+\)?/.test(r.stderr)) return `a stack trace on stderr: ${firstLines(r.stderr)}`;
  if (r.status === 2) {
    const lines = r.stderr.trim().split("\n");
    if (lines.length !== 1 || !lines[0].startsWith("zksim: ")) return `exit 2 without one "zksim: …" line on stderr: ${firstLines(r.stderr)}`;
    if (input.mentions !== undefined && !input.mentions.test(lines[0])) return `exit 2, but the line does not name ${input.mentions}: ${lines[0]}`;
  }
  if (input.invalid && r.status === 0) return `exit 0 on an input known to be invalid (${input.ops.join("; ")})`;
  return undefined;
}
const firstLines = (s) => s.trim().split("\n").slice(0, 3).join(" ⏎ ").slice(0, 400);

// ---------------------------------------------------------------------------------------------
// The base corpus: one valid input of each kind, made by the CLI itself

const SCENARIO_BASES = ["paxos-basic", "multipaxos-gap-fill", "2pc-commit", "3pc-crashes-keep-atomicity", "watch-semantics", "kernel-smoke", "zab-random-faults", "api-swarm-ensemble", "recipe-lock", "ensemble-session-expiry"];

/** A built-in scenario made short (the fuzzer wants many inputs, not long runs). */
function shortScenario(name) {
  const doc = JSON.parse(readFileSync(join(ROOT, "scenarios", `${name}.json`), "utf8"));
  doc.durationMs = Math.min(doc.durationMs, 3000);
  if (doc.workload?.traffic?.untilMs !== undefined) doc.workload.traffic.untilMs = Math.min(doc.workload.traffic.untilMs, 3000);
  if (doc.convergence === undefined && !["paxos", "multi-paxos", "two-phase-commit", "three-phase-commit"].includes(doc.workload.kind)) doc.convergence = { budgetMs: 3000 };
  return doc;
}

const USER_SCRIPT = (api, body) => `import { defineUserScript, Ids, CreateMode } from ${JSON.stringify(api)};
export const fuzzScript = defineUserScript({
  module: import.meta.url,
  export: "fuzzScript",
  async run(world) {
${body}
  },
});
`;
const GOOD_BODY = `    const zk = await world.client("c1").connect();
    await zk.create("/f", "0", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    await zk.close();`;

/**
 * User modules that misbehave: each must end in a clear error (exit 2, or a replay that does not
 * reproduce, 4), never a hang, a crash of zksim, or a pass.
 */
const BAD_MODULES = {
  "throws at load": () => `throw new Error("fuzz: top level");\n`,
  "syntax error": () => `export const fuzzScript = {;\n`,
  "loops at load": () => `for (;;) {}\n`,
  "never settles": () => `await new Promise(() => {});\n`,
  "exits at load": () => `process.exit(0);\n`,
  "no such export": () => `export const other = 1;\n`,
  "export not a script": () => `export const fuzzScript = 42;\n`,
  "export a function": () => `export const fuzzScript = () => undefined;\n`,
  "run throws": (api) => USER_SCRIPT(api, `    throw new Error("fuzz: run");`),
  "run throws a non-error": (api) => USER_SCRIPT(api, `    throw { not: "an error" };`),
  "run loops": (api) => USER_SCRIPT(api, `    for (;;) {}`),
  "run never settles": (api) => USER_SCRIPT(api, `    await new Promise(() => {});`),
  "run exits": (api) => USER_SCRIPT(api, `    process.exit(0);`),
  "run recurses": (api) => USER_SCRIPT(api, `    const f = (n) => f(n + 1) + 1; f(0);`),
  "bad fault": (api) => USER_SCRIPT(api, `    world.fault({ kind: "crash", node: "nobody", forMs: 1e300 });`),
  "bad sleep": (api) => USER_SCRIPT(api, `    await world.sleepMs(1e300);`),
  "negative sleep": (api) => USER_SCRIPT(api, `    await world.sleepMs(-5);`),
  "bad client": (api) => USER_SCRIPT(api, `    await world.client(42).connect();`),
  "unhandled rejection": (api) => USER_SCRIPT(api, `    Promise.reject(new Error("fuzz: unhandled"));\n    await world.sleepMs(10);\n    throw new Error("fuzz: after");`),
  "fails an expectation": (api) => USER_SCRIPT(api, `    world.expect(false, "fuzz: an expectation the script breaks");`),
};

const SLOW_MODULES = new Set(["loops at load", "run loops", "run recurses"]);

async function makeCorpus(dir, runner) {
  const c = { dir };
  const must = async (args, what) => {
    const r = await runner.run({ kind: "cli", args }, 120_000);
    if (r.hang || ![0, 1].includes(r.status)) throw new Error(`fuzz: making the corpus (${what}: zksim ${args.join(" ")}) failed: ${r.hang ? "hang" : r.status} ${r.stderr}`);
    return r;
  };
  // Scenario files, one per workload kind (and more of the zk kind's scripts).
  c.scenarios = SCENARIO_BASES.map((name) => {
    const p = join(dir, `${name}.json`);
    writeFileSync(p, JSON.stringify(shortScenario(name), null, 1));
    return p;
  });
  // Replay files: a built-in's failing case (explore's shards, which are the merge surface too).
  for (const shard of ["1/2", "2/2"]) await must(["explore", "paxos-basic", "--variant", "ignore-promised-values", "--seeds", "4", "--shard", shard, "--workers", "1", "--save-dir", join(dir, `merge-${shard[0]}`)], "explore shards");
  c.mergeDirs = [join(dir, "merge-1"), join(dir, "merge-2")];
  c.replays = [join(dir, "merge-1", "paxos-basic-seed-1.json")];
  await must(["run", c.scenarios[2], "--seed", "4", "--canary", "coordinator-forgets-decision", "--save", join(dir, "replay-2pc.json")], "2pc replay").catch(() => undefined);
  if (existsSync(join(dir, "replay-2pc.json"))) c.replays.push(join(dir, "replay-2pc.json"));
  // A learn session.
  c.session = join(dir, "session.json");
  await must(["learn", "paxos", "--plain", "--script", "step 6", "--save", c.session], "learn session");
  // A user script's module, its replay file (the other kind) and its scenario alone.
  const api = dist("api/index.js");
  c.api = api;
  c.userModule = join(dir, "user-good.mjs");
  writeFileSync(c.userModule, USER_SCRIPT(api, GOOD_BODY));
  const { runUserScript } = await import(dist("api/index.js"));
  const { fuzzScript } = await import(pathToFileURL(c.userModule).href);
  c.userReplay = (await runUserScript(fuzzScript, { seed: 3, replayDir: dir })).replayFile;
  c.userScenario = join(dir, "user-scenario.json");
  writeFileSync(c.userScenario, JSON.stringify(JSON.parse(readFileSync(c.userReplay, "utf8")).scenario));
  return c;
}

// ---------------------------------------------------------------------------------------------
// The surfaces. Each makes its inputs from the rng: {args | zooCfg, ops, invalid, allowed, boundMs}.

/**
 * A mutation may leave a valid scenario that runs longer than its base (a dropped "convergence"
 * restores the 40 s default): on a loaded 2-core machine such a run took over 60 s of wall time,
 * so the bound on inputs that run simulations is generous; a real hang still ends in it.
 */
const RUN_BOUND_MS = 240_000;
const QUICK_BOUND_MS = 20_000;

function fileInput(rng, c, base, name, ext = "json", mutate = mutateJson) {
  const m = mutate(rng, readFileSync(base, "latin1"));
  const p = join(c.dir, "in", `${name}-${c.serial++}.${ext}`);
  writeFileSync(p, m.text, "latin1");
  return { path: p, ops: m.ops, invalid: m.invalid };
}

const SURFACES = {
  /** Scenario files of every workload kind, run (and swept, determinism-checked) as `run FILE`. */
  scenario: {
    weight: 7,
    make(rng, c) {
      const base = rng.pick(c.scenarios);
      const f = fileInput(rng, c, base, "scenario");
      const cmd = rng.pick(["run", "run", "run", "explore", "determinism"]);
      const args = cmd === "explore" ? ["explore", f.path, "--seeds", "2", "--workers", "1"] : [cmd, f.path, "--seed", String(rng.below(50))];
      return { ...f, args, boundMs: RUN_BOUND_MS };
    },
  },
  /** Replay files of both kinds: a built-in's case and a user script's (with its module). */
  replay: {
    weight: 3,
    make(rng, c) {
      if (rng.chance(0.25)) {
        const f = fileInput(rng, c, c.userReplay, "user-replay");
        return { ...f, args: ["replay", f.path, "--module", c.userModule, "--user-code-limit-s", "5"], allowed: [0, 1, 2, 4], boundMs: RUN_BOUND_MS };
      }
      const f = fileInput(rng, c, rng.pick(c.replays), "replay");
      const args = rng.chance(0.15) ? ["shrink", f.path, "--out", join(c.dir, "out", `shrunk-${c.serial}.json`), "--max-runs", "3"] : ["replay", f.path];
      return { ...f, args, allowed: [0, 1, 2, 4], boundMs: RUN_BOUND_MS };
    },
  },
  /** Saved learn sessions, replayed and re-opened. */
  session: {
    weight: 3,
    make(rng, c) {
      const f = fileInput(rng, c, c.session, "session");
      const args = rng.chance(0.5) ? ["replay", f.path] : ["learn", "--open", f.path, "--plain", "--script", rng.pick(["step 2", "back; step", "q"])];
      return { ...f, args, allowed: [0, 1, 2, 4], boundMs: QUICK_BOUND_MS * 2 };
    },
  },
  /** A serve session's journal (the .partial left by a crash) and its replay file. */
  journal: {
    weight: 3,
    needs: "served",
    make(rng, c) {
      if (c.servedReplay !== undefined && rng.chance(0.3)) {
        const f = fileInput(rng, c, c.servedReplay, "served-replay", "json", (r, t) => mutateJson(r, t, { ...JSON_OPS, position: (rr, d) => impossiblePosition(rr, d.scenario?.workload?.inputs, d.scenario?.durationMs) }));
        return { ...f, args: ["replay", f.path], allowed: [0, 1, 2, 4], boundMs: RUN_BOUND_MS };
      }
      const f = fileInput(rng, c, c.journal, "journal", "json.partial", (r, t) => mutateLines(r, t, { position: journalPosition }));
      return { ...f, args: ["replay", f.path], allowed: [0, 1, 2, 4], boundMs: RUN_BOUND_MS };
    },
  },
  /** explore --merge over the shards' directories, one report mutated. */
  merge: {
    weight: 3,
    make(rng, c) {
      const d = join(c.dir, "in", `merge-${c.serial++}`);
      const dirs = c.mergeDirs.map((m, i) => {
        const to = join(d, String(i));
        cpSync(m, to, { recursive: true });
        return to;
      });
      const which = rng.below(dirs.length);
      const report = join(dirs[which], readdirSync(dirs[which]).find((n) => n.startsWith("explore-report")));
      const m = mutateJson(rng, readFileSync(report, "utf8"), { ...JSON_OPS, planned: plannedMismatch, foreignSeed });
      writeFileSync(report, m.text, "latin1");
      return { args: ["explore", "--merge", ...dirs, ...(rng.chance(0.3) ? ["--json"] : [])], ops: m.ops, invalid: m.invalid, boundMs: QUICK_BOUND_MS };
    },
  },
  /** zoo.cfg texts, parsed as `serve --config` parses them. */
  zooCfg: {
    weight: 2,
    make(rng) {
      return { zooCfg: mutateZooCfg(rng), ops: ["zoo.cfg"], invalid: false, boundMs: QUICK_BOUND_MS };
    },
  },
  /** The argument vectors of every command. */
  argv: {
    weight: 6,
    make(rng, c) {
      return mutateArgv(rng, c);
    },
  },
  /** User modules that misbehave, under run --module and replay --module. */
  userModule: {
    weight: 1,
    make(rng, c) {
      // The smoke leaves out the modules that cost the whole limit (a loop is stopped only by it).
      const name = rng.pick(Object.keys(BAD_MODULES).filter((m) => !c.smoke || !SLOW_MODULES.has(m)));
      const p = join(c.dir, "in", `user-${c.serial++}.mjs`);
      writeFileSync(p, BAD_MODULES[name](c.api));
      const args = rng.chance(0.5) ? ["replay", c.userReplay, "--module", p, "--user-code-limit-s", "2"] : ["run", c.userScenario, "--module", p, "--user-code-limit-s", "2"];
      // A module that is not the recorded script: a replay may report "did not reproduce" (4).
      return { args, ops: [`module: ${name}`], invalid: true, allowed: [1, 2, 4], boundMs: RUN_BOUND_MS };
    },
  },
};

/** A served input moved where no session could have put it (before 0, after the end, out of order). */
function impossiblePosition(rng, inputs, durationMs) {
  if (!Array.isArray(inputs) || inputs.length === 0) return undefined;
  const k = rng.below(inputs.length);
  const how = rng.pick(["negative", "beyond", "order", "events"]);
  if (how === "negative") inputs[k].atUs = -1 - rng.below(1000);
  else if (how === "beyond") inputs[k].atUs = (typeof durationMs === "number" ? durationMs : 1000) * 1000 + 1 + rng.below(10 ** 6);
  else if (how === "events") inputs[k].events = -1;
  else if (inputs.length > 1) {
    const j = (k + 1) % inputs.length;
    inputs[j].atUs = inputs[k].atUs;
    inputs[k].atUs += 1 + rng.below(1000);
    if (j > k) [inputs[j].atUs, inputs[k].atUs] = [inputs[j].atUs, inputs[k].atUs];
    // k before j in the list, but later in time.
    const [a, b] = j > k ? [k, j] : [j, k];
    inputs[a].atUs = inputs[b].atUs + 1 + rng.below(1000);
  } else return undefined;
  return { op: `impossible position (${how}) of input ${k}`, invalid: true };
}
function journalPosition(rng, lines) {
  const rows = lines.map((l) => {
    try {
      return JSON.parse(l);
    } catch {
      return undefined;
    }
  });
  const inputs = rows.slice(1).filter((r) => r !== undefined && typeof r.atUs === "number");
  const how = rng.pick(["negative", "order", "events"]);
  if (inputs.length === 0) return { text: lines.join("\n") + "\n", ops: ["(no input to move)"], invalid: false };
  const r = rng.pick(inputs);
  if (how === "negative") r.atUs = -1 - rng.below(1000);
  else if (how === "events") r.events = -1;
  else if (inputs.length > 1) {
    const i = inputs.indexOf(r);
    const other = inputs[(i + 1) % inputs.length];
    const [first, second] = i + 1 < inputs.length ? [r, other] : [other, r];
    first.atUs = second.atUs + 1 + rng.below(1000);
  }
  const text = [lines[0], ...rows.slice(1).map((row, n) => (row === undefined ? lines[n + 1] : JSON.stringify(row)))].join("\n") + "\n";
  return { text, ops: [`journal: impossible position (${how})`], invalid: how !== "order" || inputs.length > 1 };
}
/** An explore report whose seedsRun is more than its shard planned. */
function plannedMismatch(rng, doc) {
  if (typeof doc.seedsPlanned !== "number") return undefined;
  doc.seedsRun = doc.seedsPlanned + 1 + rng.below(5);
  return { op: "seedsRun > seedsPlanned", invalid: true };
}
/** A failing seed outside the report's shard. */
function foreignSeed(_rng, doc) {
  if (!Array.isArray(doc.failures) || doc.failures.length === 0) return undefined;
  doc.failures[0].seed = doc.from + doc.count + 7;
  return { op: "failing seed outside the shard", invalid: true };
}

const ZOO_CFG = `tickTime=2000
initLimit=10
syncLimit=5
dataDir=/var/lib/zookeeper
clientPort=2181
maxClientCnxns=60
4lw.commands.whitelist=ruok,stat,mntr
server.1=127.0.0.1:2888:3888
server.2=127.0.0.1:2889:3889
server.3=127.0.0.1:2890:3890;2183
`;
function mutateZooCfg(rng) {
  const lines = ZOO_CFG.trim().split("\n");
  const n = 1 + rng.below(3);
  for (let i = 0; i < n; i++) {
    const k = rng.below(lines.length);
    const [key, value = ""] = lines[k].split("=");
    const how = rng.pick(["value", "value", "key", "drop", "dup", "garbage"]);
    if (how === "value") lines[k] = `${key}=${rng.pick(["", "-1", "0", "1e300", "abc", "99999999999999999999", "2.5", "127.0.0.1:x:y", "999.1.1.1:1:2", " ", value + value])}`;
    else if (how === "key") lines[k] = `${rng.pick(["server.0", "server.-1", "server.99999999999", "server.x", "=", "tickTime ", "initLimit"])}=${value}`;
    else if (how === "drop") lines.splice(k, 1);
    else if (how === "dup") lines.push(lines[k]);
    else lines.splice(k, 0, rng.pick(["\u0000", "=====", "server.4", "a".repeat(10000), "server.1=127.0.0.1:2888:3888:observer:extra"]));
  }
  return lines.join("\n") + "\n";
}

/** Every command's valid argument vectors (quick ones), and which flags take numbers. */
function argvBases(c) {
  return [
    ["run", "paxos-basic", "--seed", "3"],
    ["run", "2pc-commit", "--json", "--seed", "1"],
    ["explore", "paxos-basic", "--seeds", "2", "--workers", "1"],
    ["replay", c.replays[0]],
    ["shrink", c.replays[0], "--out", join(c.dir, "out", "argv-shrunk.json"), "--max-runs", "2"],
    ["list"],
    ["bugs", "--json"],
    ["determinism", "paxos-basic", "--seed", "2"],
    ["check", "paxos", "--depth", "3", "--time", "5"],
    ["learn", "paxos", "--plain", "--script", "step 2"],
    ["help", "run"],
    ["demo", "--seed", "1"],
    // Invalid-only bases: these would run for long (bench) or serve until stopped, so every
    // mutation of them must leave them wrong.
    ["bench", "kernel", "--json"],
    ["serve", "--base-port", "26700", "--control-port", "26699", "--no-record"],
    ["ctl", "--port", "26698", "crash", "s2"],
  ];
}
const LONG_RUNNING = new Set(["bench", "serve", "demo"]);
const NUMBER_FLAGS = new Set(["--seed", "--seeds", "--from", "--workers", "--max-runs", "--depth", "--states", "--time", "--hold-ms", "--converge-ms", "--reorders", "--user-code-limit-s", "--port", "--base-port", "--control-port", "--servers", "--observers", "--top"]);
/** Flags whose value is a duration (or a count bounded the same way): absurd values are refused. */
const DURATION_FLAGS = new Set(["--time", "--hold-ms", "--converge-ms", "--user-code-limit-s", "--port", "--base-port", "--control-port", "--workers", "--max-runs", "--depth", "--servers", "--observers"]);
const ABSURD_VALUES = ["-1", "1e300", "NaN", "Infinity", "abc", "", "99999999999999999999", "0x10", "1.5", "9007199254740993"];
const ABSURD_BUT_WHOLE = ["9007199254740991", "100000000000"];

function mutateArgv(rng, c) {
  const bases = argvBases(c);
  const base = [...rng.pick(bases)];
  const command = base[0];
  const ops = [];
  let invalid = false;
  const invalidOnly = LONG_RUNNING.has(command);
  const valuedNow = () => base.map((a, i) => (NUMBER_FLAGS.has(a) && i + 1 < base.length ? i : -1)).filter((i) => i >= 0);
  const valued = valuedNow();
  const choices = ["unknownFlag", "absurd", "absurd", "garbagePositional", ...(invalidOnly ? [] : ["drop", "dup", "equals", "noise"])];
  const n = 1 + rng.below(2);
  // Drops and repeats first, so that they cannot take away what made the vector wrong.
  const hows = Array.from({ length: n }, () => rng.pick(choices)).sort((a, b) => Number(!["drop", "dup", "equals"].includes(a)) - Number(!["drop", "dup", "equals"].includes(b)));
  for (const how of hows) {
    const valued = valuedNow();
    if (how === "unknownFlag") {
      base.splice(1 + rng.below(base.length), 0, rng.pick(["--frobnicate", "--seedz", "--SEED", "--json=1", "--=", "---"]));
      ops.push("unknown flag");
      invalid = true;
    } else if (how === "absurd" && valued.length > 0) {
      const i = rng.pick(valued);
      const whole = DURATION_FLAGS.has(base[i]) && rng.chance(0.3);
      base[i + 1] = whole ? rng.pick(ABSURD_BUT_WHOLE) : rng.pick(ABSURD_VALUES);
      ops.push(`${base[i]} ${base[i + 1]}`);
      invalid = true;
    } else if (how === "garbagePositional") {
      base.splice(1 + rng.below(base.length), 0, rng.pick(["no-such-thing", "-", "\u0000", "x".repeat(3000), "/dev/zero", "/proc/self/mem"]));
      ops.push("garbage positional");
      invalid = !["learn", "ctl"].includes(command) || invalid;
    } else if (how === "drop" && base.length > 1) {
      base.splice(1 + rng.below(base.length - 1), 1);
      ops.push("drop an argument");
    } else if (how === "dup" && base.length > 1) {
      const i = 1 + rng.below(base.length - 1);
      base.splice(i, 0, base[i]);
      ops.push("repeat an argument");
    } else if (how === "equals" && valued.length > 0) {
      const i = rng.pick(valued);
      base.splice(i, 2, `${base[i]}=${base[i + 1]}`);
      ops.push("--flag=value");
    } else if (how === "noise") {
      base.push(rng.pick(["--json", "--help", "-h", "--strict", "--seed", "--seed=", "--"]));
      ops.push("flag appended");
    }
  }
  if (invalidOnly && !invalid) {
    base.push("--frobnicate");
    ops.push("unknown flag");
    invalid = true;
  }
  // `--help` anywhere is a request for help (exit 0), whatever else is wrong.
  if (base.slice(1).some((a) => a === "--help" || a === "-h")) invalid = false;
  return { args: base, ops, invalid, allowed: command === "ctl" ? [0, 1, 2, 5] : command === "replay" || command === "shrink" ? [0, 1, 2, 4] : [0, 1, 2], boundMs: LONG_RUNNING.has(command) ? QUICK_BOUND_MS : RUN_BOUND_MS };
}

// ---------------------------------------------------------------------------------------------
// The Jute wire protocol against one running serve

const SERVE_PORT = 26_800;
const CONTROL_PORT = 26_799;

async function startServe(dir) {
  const record = join(dir, "served.json");
  const child = spawn(process.execPath, [join(ROOT, "bin/zksim.js"), "serve", "--servers", "3", "--base-port", String(SERVE_PORT), "--control-port", String(CONTROL_PORT), "--record", record, "--seed", "7"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: "0" } });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise((r) => child.on("exit", (code, signal) => r({ code, signal })));
  for (let i = 0; i < 600 && !(await answers(SERVE_PORT)); i++) await sleep(100);
  return { child, record, exited, output: () => ({ out, err }) };
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** A server answers `srvr` (the one four-letter word 3.8 whitelists by default) with its mode. */
const answers = async (port) => /Mode: /.test(await fourLetter(port, "srvr"));

function fourLetter(port, word) {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    let text = "";
    const done = () => resolve(text);
    s.on("connect", () => s.write(word));
    s.on("data", (d) => (text += d));
    s.on("close", done);
    s.on("error", () => done());
    s.setTimeout(3000, () => s.destroy());
  });
}

/** Sends bytes on one connection, reads until the server closes or `waitMs` passes. */
function exchange(port, chunks, waitMs) {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    let bytes = 0;
    let closed = false;
    s.on("connect", async () => {
      for (const c of chunks) {
        if (closed) break;
        s.write(c);
        await sleep(5);
      }
      setTimeout(() => s.destroy(), waitMs);
    });
    s.on("data", (d) => (bytes += d.length));
    s.on("close", () => {
      closed = true;
      resolve({ bytes });
    });
    s.on("error", () => undefined);
  });
}

async function wireFrames() {
  const { encodeClientFrame } = await import(dist("zk/proto/codec.js"));
  const { frame } = await import(dist("zk/proto/codec-framing.js"));
  const { OpCode } = await import(dist("zk/proto/op-code.js"));
  const { Ids } = await import(dist("zk/proto/records.js"));
  const enc = (f) => Buffer.from(frame(encodeClientFrame(f)));
  const text = (s) => new TextEncoder().encode(s);
  const connect = enc({ kind: "connect", request: { kind: "ConnectRequest", protocolVersion: 0, lastZxidSeen: 0n, timeOut: 10_000, sessionId: 0n, passwd: new Uint8Array(16), readOnly: false } });
  const requests = [
    enc({ kind: "request", header: { xid: 1, type: OpCode.create }, request: { kind: "CreateRequest", path: "/fz", data: text("x"), acl: Ids.OPEN_ACL_UNSAFE, flags: 0 } }),
    enc({ kind: "request", header: { xid: 2, type: OpCode.getData }, request: { kind: "GetDataRequest", path: "/fz", watch: true } }),
    enc({ kind: "request", header: { xid: 3, type: OpCode.setData }, request: { kind: "SetDataRequest", path: "/fz", data: text("y"), version: -1 } }),
    enc({ kind: "request", header: { xid: 4, type: OpCode.getChildren2 ?? OpCode.getChildren }, request: { kind: "GetChildren2Request", path: "/", watch: false } }),
    enc({ kind: "request", header: { xid: 5, type: OpCode.delete }, request: { kind: "DeleteRequest", path: "/fz", version: -1 } }),
  ];
  return { connect, requests };
}

function mutateFrames(rng, frames) {
  const chunks = [Buffer.from(frames.connect), ...frames.requests.slice(0, 1 + rng.below(frames.requests.length)).map((b) => Buffer.from(b))];
  const ops = [];
  const n = 1 + rng.below(3);
  for (let i = 0; i < n; i++) {
    const k = rng.below(chunks.length);
    const b = chunks[k];
    const how = rng.pick(["flip", "flip", "length", "truncate", "opcode", "stringLength", "garbage", "split", "fourLetter"]);
    if (how === "flip") b[4 + rng.below(Math.max(1, b.length - 4))] ^= 1 << rng.below(8);
    else if (how === "length" && b.length >= 4) b.writeInt32BE(rng.pick([0, -1, 1, 2 ** 31 - 1, b.length * 4, 0x7fffff]), 0);
    else if (how === "truncate") chunks[k] = b.subarray(0, rng.below(b.length));
    else if (how === "opcode" && b.length >= 12) b.writeInt32BE(rng.pick([-11, -1, 0, 99, 2 ** 31 - 1, 101, 14, 16, 19, 20, 22]), 8);
    else if (how === "stringLength" && b.length >= 16) b.writeInt32BE(rng.pick([-2, 2 ** 30, 65536]), 12);
    else if (how === "garbage") chunks.splice(k, 0, Buffer.from(Array.from({ length: 1 + rng.below(64) }, () => rng.below(256))));
    else if (how === "split") chunks.splice(k, 1, b.subarray(0, 1), b.subarray(1));
    else chunks.splice(0, chunks.length, Buffer.from(rng.pick(["ruok", "stat", "mntr", "dump", "kill", "srst", "crst", "wchp", "envi", "isro", "xxxx"])));
    ops.push(`${how} frame ${k}`);
  }
  return { chunks, ops };
}

// ---------------------------------------------------------------------------------------------
// Main

async function fuzz(o) {
  const dir = o.keep ?? mkdtempSync(join(tmpdir(), "zksim-fuzz-"));
  mkdirSync(join(dir, "in"), { recursive: true });
  mkdirSync(join(dir, "out"), { recursive: true });
  const t0 = performance.now();
  const runner = new Runner();
  await runner.start();
  const findings = [];
  const stats = {};
  const rng = new Rng(o.seed);
  const wanted = (name) => (o.surfaces === undefined ? !(o.smoke && (name === "wire" || name === "journal")) : o.surfaces.includes(name));
  try {
    const c = await makeCorpus(dir, runner);
    c.serial = 0;
    c.smoke = o.smoke;
    const weights = { ...Object.fromEntries(Object.entries(SURFACES).map(([k, s]) => [k, s.weight])), wire: 4 };
    const names = Object.keys(weights).filter(wanted);
    const total = names.reduce((s, n) => s + weights[n], 0);
    const quota = Object.fromEntries(names.map((n) => [n, Math.max(1, Math.round((o.inputs * weights[n]) / total))]));
    const note = (surface, input, r, problem) => {
      const s = (stats[surface] ??= { inputs: 0, invalid: 0, exits: {}, wallMs: 0 });
      s.inputs++;
      if (input.invalid) s.invalid++;
      const code = r.hang ? "hang" : String(r.status);
      s.exits[code] = (s.exits[code] ?? 0) + 1;
      s.wallMs += r.ms ?? 0;
      if (problem !== undefined) findings.push({ surface, problem, ops: input.ops, args: input.args, zooCfg: input.zooCfg });
      if (!o.json) process.stderr.write(problem !== undefined ? `\n[${surface}] ${problem}\n  zksim ${(input.args ?? ["(zoo.cfg)"]).join(" ")}\n` : ".");
    };
    if (names.includes("wire") || names.includes("journal")) {
      const serve = await startServe(dir);
      try {
        const frames = await wireFrames();
        // A clean session first, so the journal has inputs of every kind.
        await exchange(SERVE_PORT, [frames.connect, ...frames.requests], 400);
        await sleep(300);
        c.journal = join(dir, "journal.json.partial");
        copyFileSync(`${serve.record}.partial`, c.journal);
        for (let i = 0; names.includes("wire") && i < quota.wire; i++) {
          const m = mutateFrames(rng, frames);
          const port = SERVE_PORT + rng.below(3);
          const t = performance.now();
          const ex = await Promise.race([exchange(port, m.chunks, 150), sleep(10_000).then(() => ({ hang: true }))]);
          const alive = await answers(SERVE_PORT + rng.below(3));
          const input = { args: [`(wire to port ${port})`], ops: m.ops, invalid: false };
          const r = { status: 0, ms: performance.now() - t, hang: ex.hang };
          note("wire", input, r, ex.hang ? "the connection neither answered nor closed within 10 s" : !alive ? `serve stopped answering ruok after: ${m.ops.join(", ")}` : undefined);
          if (!alive) break;
        }
      } finally {
        serve.child.kill("SIGTERM");
        const end = await Promise.race([serve.exited, sleep(60_000).then(() => ({ code: "hang" }))]);
        const { out, err } = serve.output();
        const input = { args: ["serve (stopped by SIGTERM after the wire inputs)"], ops: [], invalid: false };
        const problem = end.code === "hang" ? "serve did not stop within 60 s of SIGTERM" : ![0, 1].includes(end.code) ? `serve exited ${end.code ?? end.signal}: ${firstLines(err)}` : /internal error|\n\s+at /.test(err) ? `serve printed a stack trace: ${firstLines(err)}` : !/trace hash|stopped/.test(out + err) ? `serve printed no stop summary: ${firstLines(out + err)}` : undefined;
        if (end.code === "hang") serve.child.kill("SIGKILL");
        if (problem !== undefined) findings.push({ surface: "wire", problem, ops: [], args: input.args });
        if (existsSync(serve.record)) c.servedReplay = serve.record;
      }
    }
    for (const name of names) {
      if (name === "wire") continue;
      const surface = SURFACES[name];
      for (let i = 0; i < quota[name]; i++) {
        const input = surface.make(rng, c);
        if (input === undefined) continue;
        const r = await runner.run(input.zooCfg !== undefined ? { kind: "zooCfg", text: input.zooCfg } : { kind: "cli", args: input.args }, input.boundMs);
        note(name, input, r, judge(input, r));
      }
    }
  } finally {
    runner.stop();
    if (o.keep === undefined && findings.length === 0) rmSync(dir, { recursive: true, force: true });
  }
  const summary = { seed: o.seed, inputs: Object.values(stats).reduce((s, x) => s + x.inputs, 0), wallS: Math.round((performance.now() - t0) / 100) / 10, runnerRestarts: runner.restarts, surfaces: stats, findings };
  if (o.json) console.log(JSON.stringify(summary));
  else {
    console.log(`\nfuzz seed ${o.seed}: ${summary.inputs} inputs in ${summary.wallS} s, ${findings.length} finding${findings.length === 1 ? "" : "s"}`);
    for (const [name, s] of Object.entries(stats)) console.log(`  ${name.padEnd(11)} ${String(s.inputs).padStart(5)} inputs (${s.invalid} known invalid)  exits ${JSON.stringify(s.exits)}  ${(s.wallMs / 1000).toFixed(1)} s`);
    for (const f of findings) console.log(`  FINDING [${f.surface}] ${f.problem}\n    zksim ${(f.args ?? []).join(" ")}${f.zooCfg !== undefined ? `\n    zoo.cfg: ${JSON.stringify(f.zooCfg)}` : ""}`);
  }
  return findings.length === 0 ? 0 : 1;
}

process.exitCode = await fuzz(options(process.argv.slice(2)));
