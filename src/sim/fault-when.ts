/**
 * Trace conditions of a fault, as data: when a scheduled fault fires, and at whom, read from the
 * trace alone (never from live objects), so a whole schedule can be drawn before a run and
 * still aim at "the leader right after it established its epoch".
 *
 * A fault with `when` is armed at its `atMs`; then each step in turn waits for its `count`-th
 * trace event of kind `after` (on `node`, with `fields` equal) after the previous step matched,
 * and `delayMs` after that match the next step arms (after the last step: the fault fires). A
 * step that does not match within `withinMs` of arming abandons the fault. Example — crash the
 * leader when it logs its 3rd PROPOSAL of epoch 2:
 *   {"atMs": 0, "kind": "crash", "node": "$leader",
 *    "when": [{"after": "zab.propose", "node": "$leader", "fields": {"epoch": 2}, "count": 3}]}
 *
 * Node references, resolved from the trace when the step arms or the fault fires:
 * - a node name ("s2");
 * - `$<role>` ("$leader"): the one node that holds the role now (roles.ts-like data, `RoleRule`:
 *   which event kinds give a node the role and which take it away); no holder, or several, and
 *   the fault is abandoned;
 * - `$<i>`: the node of the event that step i matched;
 * - `$<i>.<field>`: the node named by that event's field — a node name, or a number that some
 *   node announced as its own id in an event's `sid` field.
 *
 * `forMs` (with or without `when`): the fault's undo (`undoOf`) lands that long after it fired —
 * a crashed node starts again, a paused one resumes, cut links heal, rates go back to 0.
 *
 * Invariants: parsing is strict (every mistake names the entry and field); a step may refer only
 * to earlier steps, a fault's target only to its own steps; the kernel knows no role names, the
 * layer above gives them (`RoleRule[]`).
 */
import { UserInputError } from "./errors.js";
import type { TraceKind } from "./trace-schema.js";

/** One step of a trace condition. */
export interface TraceStep {
  /** The trace event kind to wait for ("zab.propose", "disk.fsync", "crash"…). */
  after: string;
  /** Only events on this node (a name or a reference). */
  node?: string;
  /** Only events whose fields have these values. */
  fields?: Record<string, string | number | boolean>;
  /**
   * Only events whose `detail` is this: a message's type on `send` and `deliver` ("PROPOSAL",
   * "NEWLEADER", "fle.notification"), a timer's label on `timer`. With `after: "send"` and the
   * fault aimed at `$0`, a node crashes right after it sends such a message; with `deliver`,
   * right after it receives one.
   */
  detail?: string;
  /** The count-th such event (default 1). */
  count?: number;
  /** Arm the next step (or fire) this long after the match (default 0: right after the event). */
  delayMs?: number;
  /** Abandon the fault if no match within this long of arming (default: wait to the run's end). */
  withinMs?: number;
}

/** A role read from the trace: which event kinds give their node the role and which end it. */
export interface RoleRule {
  role: string;
  takenBy: readonly TraceKind[];
  endedBy: readonly TraceKind[];
}

const STEP_KEYS = ["after", "node", "fields", "detail", "count", "delayMs", "withinMs"];
const REF = /^\$(?:([a-z][a-z-]*)|(\d+)(?:\.([A-Za-z][A-Za-z0-9]*))?)$/;

/** A parsed node reference. */
export type NodeRef = { kind: "node"; name: string } | { kind: "role"; role: string } | { kind: "step"; step: number; field?: string };

export function parseRef(text: string): NodeRef {
  const m = REF.exec(text);
  if (m === null) return { kind: "node", name: text };
  if (m[1] !== undefined) return { kind: "role", role: m[1] };
  return { kind: "step", step: Number(m[2]), ...(m[3] !== undefined ? { field: m[3] } : {}) };
}

export const isRef = (text: string): boolean => text.startsWith("$");

/**
 * Checks a node name or reference at `at`: a known node, a role in `roles`, or a step below
 * `steps` (the steps matched before this point).
 */
export function checkNodeRef(v: unknown, known: ReadonlySet<string>, roles: readonly string[], steps: number, at: string): string {
  if (typeof v !== "string") throw new UserInputError(`${at}: expected a node name, got ${JSON.stringify(v)}`);
  if (!isRef(v)) {
    if (!known.has(v)) throw new UserInputError(`${at}: unknown node "${v}" (known: ${[...known].join(", ")})`);
    return v;
  }
  const ref = parseRef(v);
  if (ref.kind === "node") throw new UserInputError(`${at}: "${v}" is not a reference ($<role>, $<step> or $<step>.<field>)`);
  if (ref.kind === "role" && !roles.includes(ref.role)) throw new UserInputError(`${at}: unknown role "${v}" (known: ${roles.map((r) => `$${r}`).join(", ") || "none"})`);
  if (ref.kind === "step" && ref.step >= steps) {
    throw new UserInputError(`${at}: "${v}" refers to step ${ref.step}, but only ${steps} step${steps === 1 ? "" : "s"} matched before this point`);
  }
  return v;
}

/** Parses `when` (one step or a list of them). */
export function parseWhen(raw: unknown, known: ReadonlySet<string>, roles: readonly string[], at: string): TraceStep[] {
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0) throw new UserInputError(`${at}: expected a step or a non-empty list of steps like {"after": "zab.propose", "count": 3}`);
  return list.map((s, i) => parseStep(s, known, roles, i, Array.isArray(raw) ? `${at}[${i}]` : at));
}

function parseStep(raw: unknown, known: ReadonlySet<string>, roles: readonly string[], index: number, at: string): TraceStep {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserInputError(`${at}: expected an object like {"after": "zab.propose", "count": 3}`);
  const e = raw as Record<string, unknown>;
  for (const k of Object.keys(e)) if (!STEP_KEYS.includes(k)) throw new UserInputError(`${at}: unknown field "${k}" (allowed: ${STEP_KEYS.join(", ")})`);
  if (typeof e.after !== "string" || e.after === "") throw new UserInputError(`${at}.after: expected a trace event kind such as "zab.propose", got ${JSON.stringify(e.after)}`);
  const step: TraceStep = { after: e.after };
  if (e.node !== undefined) step.node = checkNodeRef(e.node, known, roles, index, `${at}.node`);
  if (e.fields !== undefined) step.fields = parseFields(e.fields, `${at}.fields`);
  if (e.detail !== undefined) {
    if (typeof e.detail !== "string" || e.detail === "") throw new UserInputError(`${at}.detail: expected a message type or timer label such as "PROPOSAL", got ${JSON.stringify(e.detail)}`);
    step.detail = e.detail;
  }
  if (e.count !== undefined) step.count = wholeNumber(e.count, 1, `${at}.count`);
  if (e.delayMs !== undefined) step.delayMs = wholeNumber(e.delayMs, 0, `${at}.delayMs`);
  if (e.withinMs !== undefined) step.withinMs = wholeNumber(e.withinMs, 1, `${at}.withinMs`);
  return step;
}

function parseFields(raw: unknown, at: string): Record<string, string | number | boolean> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserInputError(`${at}: expected an object of field values, e.g. {"epoch": 2}`);
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") throw new UserInputError(`${at}.${k}: expected a string, number or boolean, got ${JSON.stringify(v)}`);
    out[k] = v;
  }
  return out;
}

function wholeNumber(v: unknown, min: number, at: string): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw new UserInputError(`${at}: expected a whole number ≥ ${min}, got ${JSON.stringify(v)}`);
  return v;
}
