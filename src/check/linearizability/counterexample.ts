/**
 * Shrinking a non-linearizable partition to a small window, and saying why it fails.
 *
 * 1. Earliest failing cut. Cutting a history at time T (ops invoked after T dropped, ops still
 *    running at T made indeterminate) preserves linearizability, so "the history up to T is
 *    not linearizable" is monotone in T: a binary search over completion times finds the op
 *    whose completion breaks it.
 * 2. Relaxation (delta debugging, earliest ops first, halving chunks). Dropping a read and
 *    turning a definite write into an "optional" one (may have taken effect or not, before its
 *    completion) only removes constraints, so if the relaxed history still fails, so does the
 *    original: every relaxation kept is sound. The window is what stays definite.
 * 3. The deepest point the search reached on the window: the state there and, for every
 *    operation that could have come next, why it cannot (the model's own words).
 *
 * Steps 1 and 2 run many small searches; each gets a budget, and one that runs out counts as
 * "not shown to fail" (the relaxation is not kept), so the window is always a verified one.
 */
import { formatOperation, isReadOnly, type Operation } from "../history/history.js";
import type { Partition, SequentialModel } from "./model.js";
import { OPTIONAL, STRICT, UNKNOWN, search, type Deepest, type OpKind, type Problem } from "./search.js";

export interface CounterexampleOptions {
  minimize: boolean;
  /** Original operations by id (the report shows what the history recorded). */
  originals: ReadonlyMap<number, Operation>;
}

export interface Counterexample {
  minimalWindow: Operation[];
  failedAtUs: number | undefined;
  explanation: string;
}

const MIN_BUDGET_STEPS = 50_000;
const MAX_SHRINK_SEARCHES = 400;
/** All shrinking searches together: beyond this the window found so far is reported. */
const MAX_SHRINK_STEPS = 1_000_000;

export function explainViolation<S>(
  problem: Problem<S>,
  model: SequentialModel<S>,
  part: Partition,
  options: CounterexampleOptions,
): Counterexample {
  const budget = { steps: MIN_BUDGET_STEPS, searches: 0, spent: 0 };
  const fails = (p: Problem<S>) => {
    budget.searches++;
    const r = search(p, model, budget.steps);
    budget.spent += r.steps;
    if (budget.spent > MAX_SHRINK_STEPS) budget.searches = MAX_SHRINK_SEARCHES;
    return !r.ok && !r.exhausted;
  };
  const zxidOnly = problem.useZxid && search({ ...problem, useZxid: false }, model, budget.steps).ok;
  let window = problem;
  let cut: { atUs: number; op: Operation } | undefined;
  let relaxed = 0;
  if (options.minimize) {
    cut = earliestFailingCut(problem, fails);
    if (cut !== undefined) window = cutAt(problem, cut.atUs);
    const shrunk = relax(window, fails, budget);
    window = shrunk.problem;
    relaxed = shrunk.relaxed;
  }
  const deepest = search(window, model, budget.steps * 4, true).deepest;
  const shown = windowOps(window).map((op) => options.originals.get(op.id) ?? op);
  const explanation = [
    headline(part, problem, cut),
    windowText(window, shown.length, relaxed, options.minimize),
    deepest ? deepestText(window, model, deepest) : "",
    zxidOnly ? zxidText() : "",
  ]
    .filter((s) => s !== "")
    .join(" ");
  return { minimalWindow: shown, failedAtUs: cut?.atUs, explanation: `${explanation}\n${shown.map((op) => "  " + formatOperation(op)).join("\n")}` };
}

// ---- 1. the earliest failing cut ---------------------------------------------------------------

function earliestFailingCut<S>(p: Problem<S>, fails: (p: Problem<S>) => boolean): { atUs: number; op: Operation } | undefined {
  const times = [...new Set(p.ops.filter((_, i) => p.kinds[i] === STRICT).map((op) => op.completeUs!))].sort((a, b) => a - b);
  let lo = 0;
  let hi = times.length - 1; // the whole history fails; find the first cut that does
  if (hi < 0) return undefined;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (fails(cutAt(p, times[mid]!))) hi = mid;
    else lo = mid + 1;
  }
  const atUs = times[lo]!;
  const op = p.ops.find((o, i) => p.kinds[i] === STRICT && o.completeUs === atUs)!;
  return { atUs, op };
}

/** The history as seen at `atUs`: later invocations dropped, ops still running made unknown. */
function cutAt<S>(p: Problem<S>, atUs: number): Problem<S> {
  const ops: Operation[] = [];
  const kinds: OpKind[] = [];
  p.ops.forEach((op, i) => {
    if (op.invokeUs > atUs) return;
    if (p.kinds[i] !== UNKNOWN && op.completeUs! > atUs) {
      if (isReadOnly(op) || op.outcome === "fail") return;
      ops.push({ ...op, outcome: "unknown", completeUs: undefined });
      kinds.push(UNKNOWN);
      return;
    }
    ops.push(op);
    kinds.push(p.kinds[i]!);
  });
  return { ...p, ops, kinds };
}

// ---- 2. relaxation -------------------------------------------------------------------------------

function relax<S>(p: Problem<S>, fails: (p: Problem<S>) => boolean, budget: { searches: number }): { problem: Problem<S>; relaxed: number } {
  const items = p.kinds.flatMap((k, i) => (k === STRICT ? [i] : []));
  const isRelaxed = new Uint8Array(p.ops.length);
  const build = (extra: readonly number[]): Problem<S> => {
    const ops: Operation[] = [];
    const kinds: OpKind[] = [];
    const extraSet = new Set(extra);
    p.ops.forEach((op, i) => {
      if (!isRelaxed[i] && !extraSet.has(i)) {
        ops.push(op);
        kinds.push(p.kinds[i]!);
      } else if (!isReadOnly(op) && op.outcome === "ok") {
        ops.push(op);
        kinds.push(OPTIONAL);
      }
    });
    return { ...p, ops, kinds };
  };
  let relaxed = 0;
  for (let chunk = Math.max(1, Math.ceil(items.length / 2)); ; chunk = Math.ceil(chunk / 2)) {
    for (let start = 0; start < items.length && budget.searches < MAX_SHRINK_SEARCHES; start += chunk) {
      const group = items.slice(start, start + chunk).filter((i) => !isRelaxed[i]);
      if (group.length === 0 || group.length === items.length - relaxed) continue;
      if (fails(build(group))) {
        for (const i of group) isRelaxed[i] = 1;
        relaxed += group.length;
      }
    }
    if (chunk === 1) break;
  }
  return { problem: build([]), relaxed };
}

function windowOps<S>(p: Problem<S>): Operation[] {
  const strict = p.ops.filter((_, i) => p.kinds[i] === STRICT);
  const from = strict.length > 0 ? Math.min(...strict.map((o) => o.invokeUs)) : 0;
  return p.ops.filter((op, i) => p.kinds[i] === STRICT || op.invokeUs >= from);
}

// ---- 3. words ---------------------------------------------------------------------------------------

function headline<S>(part: Partition, p: Problem<S>, cut: { atUs: number; op: Operation } | undefined): string {
  const unknown = p.kinds.filter((k) => k === UNKNOWN).length;
  const pre = part.preamble.length > 0 ? `, after ${part.preamble.length} earlier operation(s) it depends on` : "";
  const head = `Not linearizable: the ${p.ops.length} operations on ${part.label} (${unknown} with unknown outcome${pre}) have no linearization.`;
  if (cut === undefined) return head;
  return `${head} It breaks when #${cut.op.id} (${cut.op.client} ${cut.op.op} ${cut.op.path}) completes at ${cut.atUs}µs: the history up to then has no linearization, every earlier cut has one.`;
}

function windowText<S>(p: Problem<S>, shown: number, relaxed: number, minimized: boolean): string {
  const strict = p.kinds.filter((k) => k === STRICT).length;
  const unknown = p.kinds.filter((k) => k === UNKNOWN).length;
  const order = p.orderKey !== undefined ? ", but before any later request of their session that took effect (a session's requests run in order)" : "";
  const maybe = unknown > 0 ? ` Operations with unknown outcome (${unknown}) may take effect at any time after their invocation${order}, or never.` : "";
  if (!minimized) return `The window is the whole partition (${shown} operations listed).${maybe}`;
  const rel = relaxed > 0 ? `; the other ${relaxed} earlier operations were relaxed (reads dropped, writes allowed to have taken effect or not) and it still fails` : "";
  return `The smallest window found keeps ${strict} operation(s) definite${rel}.${maybe}`;
}

function deepestText<S>(p: Problem<S>, model: SequentialModel<S>, d: Deepest<S>): string {
  const order = d.order.map((i) => `#${p.ops[i]!.id}${d.skipped.has(i) ? " (not taken)" : ""}`);
  const shown = order.length <= 8 ? order.join(", ") : `${order.length} operations (…, ${order.slice(-6).join(", ")})`;
  const start = order.length === 0 ? "No operation can be linearized first" : `The search got furthest after linearizing ${shown}`;
  const focus = d.pending.find((i) => p.kinds[i] !== UNKNOWN) ?? d.order[d.order.length - 1];
  const state = focus !== undefined ? ` (state: ${model.describe(d.state, p.ops[focus]!)})` : "";
  const reasons = d.pending
    .filter((i) => p.kinds[i] !== UNKNOWN)
    .slice(0, 6)
    .map((i) => reason(p, model, d, i));
  const then = reasons.length > 0 ? `; from there: ${reasons.join("; ")}.` : ".";
  return `${start}${state}${then}`;
}

function reason<S>(p: Problem<S>, model: SequentialModel<S>, d: Deepest<S>, i: number): string {
  const op = p.ops[i]!;
  const blocker = d.blockedBy.get(i);
  if (blocker !== undefined) {
    const w = p.ops[blocker]!;
    return `#${op.id} must follow #${w.id} (zxid 0x${w.zxid!.toString(16)}), which cannot come next`;
  }
  const inTheWay = d.orderBlockedBy.get(i);
  if (inTheWay !== undefined) {
    const o = p.ops[inTheWay]!;
    return o.id > op.id // ids are submission order
      ? `#${op.id} cannot come next: #${o.id}, submitted after it in the same session, already took effect (a session's requests run in order)`
      : `#${op.id} must follow #${o.id}, submitted before it in the same session`;
  }
  const fence = d.fenceBlockedBy.get(i);
  if (fence !== undefined) {
    const o = p.ops[fence]!;
    return p.fence?.(o)?.ends === true
      ? `#${op.id} cannot come next: #${o.id} already ended its session (no write of a session takes effect after its closeSession)`
      : `#${op.id} ends its session, so it must follow #${o.id}, a write of that session`;
  }
  const stepOp = p.kinds[i] === OPTIONAL ? { ...op, outcome: "unknown" as const } : op;
  if (model.step(d.state, stepOp) === undefined) return `#${op.id}: ${model.explain(d.state, op)}`;
  return `#${op.id} fits here, but every continuation after it fails`;
}

function zxidText(): string {
  return (
    "Ignoring zxids the partition would be linearizable: the violation is that the order the zxids give " +
    "(writes in zxid order, each read after every write with a zxid up to its own) contradicts what the clients observed."
  );
}
