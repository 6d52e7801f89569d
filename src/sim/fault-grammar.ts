/**
 * The fault grammar: one table (`FAULT_SPECS`) lists, for every fault kind, its parameters in
 * the order the one-line text form writes them. From it come
 * - the validator of a fault as data (`validateFaultAction`: the JSON entries of scenario and
 *   replay files, through `parseFaultSchedule` in faults.ts),
 * - the parser of the text form (`parseFaultText`) that `zksim ctl`, serve's stdin and learn's
 *   `:` line share — it builds the data entry and hands it to the same validator, so the two
 *   forms accept and refuse the same faults with the same messages,
 * - the printer (`printFault`), the inverse of the parser: `parseFaultText(printFault(a))` is `a`
 *   for every valid action (test/sim/fault-grammar.test.ts draws them from this table),
 * - the synopsis of each kind (`faultSynopsis`), which docs/faults.md must list.
 *
 * The text form, word by word (words split on spaces; node lists also on commas):
 *   crash s2 | restart s2 | start s2 | pause s2 | resume s2
 *   partition s1 | s2 s3             groups split by "|"; unlisted nodes form one more group
 *   cut s1 -> s3  /  cut s1 <-> s3   one way / both ways (either side may list several nodes)
 *   heal [s1 -> s3]                  every link, or some
 *   clog s1 -> s2 200ms  /  unclog [s1 -> s2]  /  clog-node s2 200ms (every link of s2, both ways)
 *   loss 0.1 [s1 -> s2] | duplicate 0.1 [...] | reorder 0.1 [...] [extra 20ms] | delay 5ms 20ms [...]
 *   clock s2 1.5 | disk s2 slow-fsync 200ms | disk s2 full | disk s2 ok
 * and after any undoable fault, `for 4s`: undo it that long after (the entry's `forMs`).
 * Durations are `200ms`, `4s` or `1.5s`.
 */
import { UserInputError } from "./errors.js";
import type { FaultAction } from "./faults.js";
import { checkNodeRef } from "./fault-when.js";

/** One parameter of a fault kind. */
export type FaultParam =
  /** `node`: one node name (or a trace reference like `$leader` in a schedule). */
  | { p: "node" }
  /** `groups`: a partition's groups of node names. */
  | { p: "groups" }
  /** `from`, `to`, `oneWay`: the links a network fault applies to (optional: every link). */
  | { p: "links"; optional: boolean }
  /** A number in [min, max]. */
  | { p: "number"; key: string; min: number; max: number }
  /** Milliseconds ≥ 0; with `keyword`, optional and written `keyword DURATION`. */
  | { p: "duration"; key: string; keyword?: string }
  /** One of several words, each with parameters of its own (`disk s1 slow-fsync 200ms`). */
  | { p: "choice"; key: string; options: Readonly<Record<string, readonly FaultParam[]>> };

export interface FaultSpec {
  readonly params: readonly FaultParam[];
  /** Checks between fields, after each field is valid on its own. */
  check?(fault: Record<string, unknown>, at: string): void;
}

const NODE: FaultParam = { p: "node" };
const LINKS: FaultParam = { p: "links", optional: false };
const SOME_LINKS: FaultParam = { p: "links", optional: true };
const RATE: FaultParam = { p: "number", key: "rate", min: 0, max: 1 };

/**
 * A clock fault's rate, [min, max]: a node's timers fire `rate` times as often, so its events
 * grow with the rate (at 1000 a run crawls; near 1e18 its local time leaves the safe integers).
 */
export const CLOCK_RATE_BOUNDS = [0.01, 100] as const;

/** Every fault kind and its parameters, one a line (a new kind: one line here; see docs/extending.md). */
export const FAULT_SPECS = {
  crash: { params: [NODE] },
  restart: { params: [NODE] },
  start: { params: [NODE] },
  pause: { params: [NODE] },
  resume: { params: [NODE] },
  partition: { params: [{ p: "groups" }] },
  cut: { params: [LINKS] },
  heal: { params: [SOME_LINKS] },
  clog: { params: [LINKS, { p: "duration", key: "extraDelayMs" }] },
  unclog: { params: [SOME_LINKS] },
  "clog-node": { params: [NODE, { p: "duration", key: "extraDelayMs" }] },
  loss: { params: [RATE, SOME_LINKS] },
  duplicate: { params: [RATE, SOME_LINKS] },
  reorder: { params: [RATE, SOME_LINKS, { p: "duration", key: "extraDelayMs", keyword: "extra" }] },
  delay: { params: [{ p: "duration", key: "minMs" }, { p: "duration", key: "maxMs" }, SOME_LINKS], check: checkDelayBounds },
  clock: { params: [NODE, { p: "number", key: "rate", min: 0, max: Infinity }], check: checkClockRate },
  disk: { params: [NODE, { p: "choice", key: "fault", options: { "slow-fsync": [{ p: "duration", key: "fsyncLatencyMs" }], full: [], ok: [] } }] },
} as const satisfies Record<FaultAction["kind"], FaultSpec>;

export type FaultKind = keyof typeof FAULT_SPECS;

export const FAULT_KINDS = Object.keys(FAULT_SPECS) as readonly FaultKind[];

const SPECS: Readonly<Record<string, FaultSpec>> = FAULT_SPECS;

export function isFaultKind(kind: unknown): kind is FaultKind {
  return typeof kind === "string" && Object.hasOwn(SPECS, kind);
}

function checkDelayBounds(f: Record<string, unknown>, at: string): void {
  if ((f.maxMs as number) < (f.minMs as number)) throw new UserInputError(`${at}: "maxMs" (${String(f.maxMs)}) is below "minMs" (${String(f.minMs)})`);
}

function checkClockRate(f: Record<string, unknown>, at: string): void {
  const rate = f.rate as number;
  if (rate <= 0) throw new UserInputError(`${at}.rate: a clock rate must be > 0`);
  if (rate < CLOCK_RATE_BOUNDS[0] || rate > CLOCK_RATE_BOUNDS[1]) throw new UserInputError(`${at}.rate: a clock rate must be in [${CLOCK_RATE_BOUNDS.join(", ")}] (a node's timers fire rate times as often), got ${rate}`);
}

// ---------------------------------------------------------------------------------------------
// Data: a fault entry's fields, validated.

/** Checks a node name (or reference) found at `field` of the entry; returns it. */
export type NodeCheck = (v: unknown, field: string) => string;

/** Names of these nodes only (a line typed at a running world: `zksim ctl`, serve's stdin). */
export function knownNodes(nodes: readonly string[], at: string): NodeCheck {
  const known = new Set(nodes);
  return (v, field) => checkNodeRef(v, known, [], 0, `${at}.${field}`);
}

/** Any name (the caller checks the nodes when it applies the fault: learn's `:` line). */
export const anyNode: NodeCheck = (v, field) => {
  if (typeof v !== "string" || v === "") throw new UserInputError(`${field}: expected a node name, got ${JSON.stringify(v)}`);
  return v;
};

/**
 * The action an entry describes (`e.kind` and its fields; other fields of `e` are the caller's),
 * validated: every mistake a UserInputError naming `at` and the field.
 */
export function validateFaultAction(e: Readonly<Record<string, unknown>>, nodeName: NodeCheck, at: string, scheduleKeys: readonly string[] = []): FaultAction {
  const kind = e.kind;
  if (!isFaultKind(kind)) throw new UserInputError(`${at}: unknown fault kind ${JSON.stringify(kind)} (expected one of ${FAULT_KINDS.join(", ")})`);
  const spec: FaultSpec = FAULT_SPECS[kind];
  const out: Record<string, unknown> = { kind };
  readParams(spec.params, e, out, nodeName, at);
  spec.check?.(out, at);
  // A field the kind does not read (a misspelt "durationMS", a "node" on a heal) is an error, not ignored.
  for (const key of Object.keys(e)) {
    if (!(key in out) && !scheduleKeys.includes(key)) throw new UserInputError(`${at}: unknown field "${key}" for a "${kind}" fault (allowed: ${[...Object.keys(out), ...scheduleKeys].join(", ")})`);
  }
  // The fields were read from the spec of `kind`, the spec its union member satisfies.
  return out as FaultAction;
}

function readParams(params: readonly FaultParam[], e: Readonly<Record<string, unknown>>, out: Record<string, unknown>, nodeName: NodeCheck, at: string): void {
  const nodeList = (key: string, v: unknown) => {
    if (!Array.isArray(v) || v.length === 0) throw new UserInputError(`${at}.${key}: expected a non-empty list of node names`);
    return v.map((n, j) => nodeName(n, `${key}[${j}]`));
  };
  for (const param of params) {
    switch (param.p) {
      case "node":
        out.node = nodeName(e.node, "node");
        break;
      case "groups":
        out.groups = readGroups(e.groups, nodeName, at);
        break;
      case "links": {
        if (param.optional && e.from === undefined && e.to === undefined) break;
        if (param.optional && (e.from === undefined || e.to === undefined)) throw new UserInputError(`${at}: give both "from" and "to", or neither (all links)`);
        out.from = nodeList("from", e.from);
        out.to = nodeList("to", e.to);
        if (e.oneWay !== undefined && typeof e.oneWay !== "boolean") throw new UserInputError(`${at}.oneWay: expected true or false`);
        out.oneWay = e.oneWay === true;
        break;
      }
      case "number":
      case "duration": {
        const v = e[param.key];
        if (v === undefined && param.p === "duration" && param.keyword !== undefined) break;
        const [min, max] = param.p === "number" ? [param.min, param.max] : [0, Infinity];
        if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max) {
          throw new UserInputError(`${at}.${param.key}: expected a number${max === Infinity ? ` ≥ ${min}` : ` in [${min}, ${max}]`}, got ${JSON.stringify(v)}`);
        }
        out[param.key] = v;
        break;
      }
      case "choice": {
        const v = e[param.key];
        const names = Object.keys(param.options);
        if (typeof v !== "string" || !Object.hasOwn(param.options, v)) {
          throw new UserInputError(`${at}.${param.key}: expected ${names.map((n) => JSON.stringify(n)).join(", ").replace(/, ([^,]*)$/, " or $1")}, got ${JSON.stringify(v)}`);
        }
        out[param.key] = v;
        readParams(param.options[v]!, e, out, nodeName, at);
        break;
      }
    }
  }
}

function readGroups(groups: unknown, nodeName: NodeCheck, at: string): string[][] {
  if (!Array.isArray(groups) || groups.length < 1) throw new UserInputError(`${at}.groups: expected a list of node groups, e.g. [["s1"],["s2","s3"]]`);
  const parsed = groups.map((g, j) => {
    if (!Array.isArray(g) || g.length === 0) throw new UserInputError(`${at}.groups[${j}]: expected a non-empty list of node names`);
    return g.map((n, k) => nodeName(n, `groups[${j}][${k}]`));
  });
  const seen = new Set<string>();
  for (const n of parsed.flat()) {
    if (seen.has(n)) throw new UserInputError(`${at}.groups: node "${n}" is in more than one group`);
    seen.add(n);
  }
  return parsed;
}

// ---------------------------------------------------------------------------------------------
// Text: one line, parsed into the data entry, and printed back.

/** A fault typed as a line: the action, and how long after it its undo runs (`for 4s`). */
export interface FaultLine {
  action: FaultAction;
  forMs?: number;
}

const ARROWS = new Set(["->", "<->"]);

/** "4s", "200ms", "1.5s" → ms (`what` names the field in the error). */
export function parseDurationMs(text: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?(?:e[+-]?\d+)?)(ms|s)$/.exec(text);
  if (m === null) throw new UserInputError(`${what}: expected a duration like 200ms or 4s, got "${text}"`);
  return m[2] === "s" ? Number(m[1]) * 1000 : Number(m[1]);
}

/** The words of a line; `|` is a word of its own even when written against a name. */
function wordsOf(line: string): string[] {
  return line.trim().split(/\s+|(?=\|)|(?<=\|)/).filter((w) => w !== "");
}

/**
 * Parses one line (`cut s1 -> s3 for 5s`) and validates it as the same entry in a scenario file
 * would be: node names against `nodeName` (a check that takes any name, when the caller knows the
 * nodes only later). Every mistake is one UserInputError line.
 */
export function parseFaultText(line: string, nodeName: NodeCheck): FaultLine {
  const words = wordsOf(line);
  const kind = words.shift();
  if (kind === undefined) throw new UserInputError("empty command");
  if (!isFaultKind(kind)) throw new UserInputError(`unknown command "${kind}" (faults: ${FAULT_KINDS.join(", ")})`);
  const spec: FaultSpec = FAULT_SPECS[kind];
  const raw: Record<string, unknown> = { kind };
  const forAt = words.indexOf("for");
  const tail = forAt < 0 ? [] : words.splice(forAt);
  takeParams(spec.params, words, raw, kind, keywordsOf(spec.params));
  if (words.length > 0) throw new UserInputError(`${kind}: unexpected "${words.join(" ")}" (expected: ${faultSynopsis(kind)})`);
  const action = validateFaultAction(raw, nodeName, kind);
  if (tail.length === 0) return { action };
  if (tail.length !== 2) throw new UserInputError(`${kind}: expected "for DURATION" at the end, got "${tail.join(" ")}"`);
  return { action, forMs: parseDurationMs(tail[1]!, `${kind} … for`) };
}

function keywordsOf(params: readonly FaultParam[]): Set<string> {
  return new Set(params.flatMap((p) => (p.p === "duration" && p.keyword !== undefined ? [p.keyword] : [])));
}

/** A word that names nodes (a name, a reference, a comma list), not a number, an arrow or a keyword. */
function isNodeWord(w: string | undefined, keywords: ReadonlySet<string>): w is string {
  return w !== undefined && !/^[\d.]/.test(w) && !ARROWS.has(w) && w !== "|" && !keywords.has(w);
}

const splitNodes = (w: string) => w.split(",").filter((n) => n !== "");

function takeParams(params: readonly FaultParam[], words: string[], raw: Record<string, unknown>, kind: FaultKind, keywords: ReadonlySet<string>): void {
  for (const param of params) {
    switch (param.p) {
      case "node":
        raw.node = words.shift();
        if (raw.node === undefined) throw new UserInputError(`${kind}: expected a node (${faultSynopsis(kind)})`);
        break;
      case "groups":
        raw.groups = words.splice(0).join(" ").split("|").map((g) => g.split(/[\s,]+/).filter((n) => n !== ""));
        break;
      case "links":
        takeLinks(param.optional, words, raw, kind, keywords);
        break;
      case "number": {
        const w = words.shift();
        const n = Number(w);
        if (w === undefined || !Number.isFinite(n)) throw new UserInputError(`${kind}: expected a number for ${param.key}, got "${w ?? ""}"`);
        raw[param.key] = n;
        break;
      }
      case "duration":
        if (param.keyword !== undefined && words[0] !== param.keyword) break;
        if (param.keyword !== undefined) words.shift();
        raw[param.key] = parseDurationMs(words.shift() ?? "", `${kind} ${param.key}`);
        break;
      case "choice": {
        const w = words.shift();
        raw[param.key] = w;
        const more = w !== undefined && Object.hasOwn(param.options, w) ? param.options[w]! : [];
        takeParams(more, words, raw, kind, keywords);
        break;
      }
    }
  }
}

/** `A B -> C` (one way) or `A <-> C` (both ways): the node words on either side of one arrow. */
function takeLinks(optional: boolean, words: string[], raw: Record<string, unknown>, kind: FaultKind, keywords: ReadonlySet<string>): void {
  let n = 0;
  while (isNodeWord(words[n], keywords)) n++;
  const arrow = words[n];
  if (optional && n === 0 && (arrow === undefined || !ARROWS.has(arrow))) return;
  let m = n + 1;
  while (isNodeWord(words[m], keywords)) m++;
  if (n === 0 || arrow === undefined || !ARROWS.has(arrow) || m === n + 1) {
    throw new UserInputError(`${kind}: expected "A B -> C" (one way) or "A <-> C" (both ways), got "${words.join(" ")}"`);
  }
  const taken = words.splice(0, m);
  raw.from = taken.slice(0, n).flatMap(splitNodes);
  raw.to = taken.slice(n + 1).flatMap(splitNodes);
  raw.oneWay = arrow === "->";
}

/** A fault as the line that would apply it: `parseFaultText(printFault(a))` gives `a` back. */
export function printFault(action: FaultAction, forMs?: number): string {
  const fields = action as Readonly<Record<string, unknown>>;
  const words = [action.kind, ...printParams(FAULT_SPECS[action.kind].params, fields)];
  if (forMs !== undefined) words.push("for", `${forMs}ms`);
  return words.join(" ");
}

function printParams(params: readonly FaultParam[], f: Readonly<Record<string, unknown>>): string[] {
  return params.flatMap((param): string[] => {
    switch (param.p) {
      case "node":
        return [String(f.node)];
      case "groups":
        return [(f.groups as string[][]).map((g) => g.join(" ")).join(" | ")];
      case "links":
        return f.from === undefined ? [] : [(f.from as string[]).join(" "), f.oneWay === true ? "->" : "<->", (f.to as string[]).join(" ")];
      case "number":
        return [String(f[param.key])];
      case "duration":
        if (f[param.key] === undefined) return [];
        return [...(param.keyword !== undefined ? [param.keyword] : []), `${String(f[param.key])}ms`];
      case "choice": {
        const option = String(f[param.key]);
        return [option, ...printParams(param.options[option] ?? [], f)];
      }
    }
  });
}

/** The text form of a kind, for help lines and docs: `clog A -> B DURATION`. */
export function faultSynopsis(kind: FaultKind): string {
  return [kind, ...synopsisOf(FAULT_SPECS[kind].params)].join(" ");
}

function synopsisOf(params: readonly FaultParam[]): string[] {
  return params.map((param) => {
    switch (param.p) {
      case "node":
        return "NODE";
      case "groups":
        return "A B | C";
      case "links":
        return param.optional ? "[A -> B]" : "A -> B";
      case "number":
        return param.key.toUpperCase();
      case "duration":
        return param.keyword !== undefined ? `[${param.keyword} DURATION]` : "DURATION";
      case "choice":
        return Object.entries(param.options).map(([name, more]) => [name, ...synopsisOf(more)].join(" ")).join(" | ");
    }
  });
}
