/**
 * Linearizability over a long history, one window at a time.
 *
 * A history of hours holds hundreds of thousands of operations; searching it whole keeps them
 * all in memory, and one long-running op makes the search's memo grow without bound. But
 * ZooKeeper's structure lets the history be cut: at an instant T where no client operation is
 * open (every op invoked before T has completed: ok, failed or unknown) the ops before T and
 * the ops after T meet only through the data tree at T. So the checker judges the window
 * before T, learns *every* state the tree may be in at T (the window's end states), drops the
 * window, and starts the next one from those states.
 *
 * What may still happen after T is an indeterminate (unknown) write whose effect is not
 * settled. An unknown op of a session is settled when
 * - a later definite write of the same session completed in the window: ZooKeeper applies a
 *   session's requests in submission order, so the unknown op took effect before that write
 *   or never (the search already orders them so), or
 * - the session ended in the window (a closeSession op completed ok): a request of a session
 *   is never applied after the session's close txn (its zxid is smaller, or it fails).
 * An unsettled op is carried into the next window, exactly: each end state says which of the
 * carried ops it already applied, and the next window's search may place the others. The
 * checker prefers cut points with nothing to carry (it waits for the next quiet instant), and
 * carries only when a window grows past its limit.
 *
 * End states are found by the search in enumeration mode (`SearchLimits.onComplete`), with
 * exact state keys and no interchangeable-op shortcuts (two unknown creates of different data
 * end in different trees). A window is:
 * - "ok": some start state has a linearization; the end states are every state some
 *   linearization from some start ends in (with the carried ops each left pending);
 * - "refuted": no start state has one, and the starts were every state the previous windows
 *   allow: a violation, with a counterexample from the first start;
 * - "unknown": a budget (steps, memo size, number of end states) ran out, or it was refuted
 *   from starts known to be incomplete; its reason says which. The states found so far are
 *   passed on, marked incomplete: a later refutation from them is unknown, never a violation.
 *
 * Reads: in an ensemble only sync-ordered reads are checked (client/linearizability.ts); a
 * read whose sync lies in an earlier window is left out of its window (it cannot be placed
 * before the window's start), which weakens the check a little and never invents a violation.
 */
import { NO_SESSION, isReadOnly, type Operation } from "../history/history.js";
import { explainViolation } from "./counterexample.js";
import type { Partition, SequentialModel } from "./model.js";
import { DEFAULT_MAX_MEMO_CHARS, OPTIONAL, STRICT, UNKNOWN, search, sortForSearch, type OpKind, type Problem, type SearchResult } from "./search.js";
import { normalise, writeAfterEnd, type LinearizabilityViolation } from "./wgl.js";

/** A state a window may start in, with the carried unknown ops not applied by then. */
export interface WindowStart<S> {
  state: S;
  carried: readonly Operation[];
}

export interface WindowLimits {
  /** Model steps for one window, all its starts together. */
  maxSteps: number;
  /** The memo's size limit per search (characters of keys). */
  maxMemoChars: number;
  /** The most end states a window may pass on. */
  maxEnds: number;
  /** Shrink a refutation to a small counterexample. */
  minimize: boolean;
}

export const DEFAULT_WINDOW_LIMITS: WindowLimits = { maxSteps: 5_000_000, maxMemoChars: DEFAULT_MAX_MEMO_CHARS, maxEnds: 64, minimize: true };

export type WindowResult<S> =
  | { kind: "ok"; ends: WindowStart<S>[]; steps: number }
  | { kind: "refuted"; violation: LinearizabilityViolation; steps: number }
  | { kind: "unknown"; reason: string; ends: WindowStart<S>[]; steps: number };

/**
 * The unknown writes of `ops` (already normalised) and `carried` that may still take effect
 * after the window: neither followed by a definite write of their submission-order group nor
 * ended with their session.
 */
export function unsettledOps<S>(ops: readonly Operation[], carried: readonly Operation[], model: SequentialModel<S>): Operation[] {
  const orderKey = (op: Operation) => model.submissionOrderKey?.(op);
  const lastDefiniteWrite = new Map<string, number>(); // group → highest id of a definite write
  const endedSessions = new Set<string>();
  for (const op of ops) {
    if (op.outcome === "unknown") continue;
    if (op.op === "closeSession" && op.outcome === "ok") endedSessions.add(op.session);
    const g = orderKey(op);
    if (g !== undefined && !isReadOnly(op)) lastDefiniteWrite.set(g, Math.max(op.id, lastDefiniteWrite.get(g) ?? -1));
  }
  const pending: Operation[] = [];
  for (const op of [...carried, ...ops]) {
    if (op.outcome !== "unknown" || isReadOnly(op) || endedSessions.has(op.session)) continue;
    const g = orderKey(op);
    if (g !== undefined && (lastDefiniteWrite.get(g) ?? -1) > op.id) continue;
    pending.push(op);
  }
  return pending;
}

/**
 * Judges one window (`history`: its operations as recorded) from every start, and with
 * `enumerate` learns its end states (the last window of a run needs only a linearization).
 */
export function checkWindow<S>(
  history: readonly Operation[],
  starts: readonly WindowStart<S>[],
  startsComplete: boolean,
  model: SequentialModel<S>,
  label: string,
  limits: WindowLimits,
  enumerate: boolean,
): WindowResult<S> {
  const ops = normalise(history, true);
  const fenced = writeAfterEnd(ops, model, true, label);
  if (fenced !== undefined) return { kind: "refuted", violation: fenced, steps: 0 };
  const key = windowKey(model);
  const ends = new Map<string, WindowStart<S>>();
  let steps = 0;
  let exhausted: SearchResult<S>["exhaustedBy"];
  let anyOk = false;
  for (const start of starts) {
    const problem = windowProblem(ops, start, model, key);
    const pending = enumerate ? unsettledOps(ops, start.carried, model) : [];
    const pendingIndex = pending.map((op) => problem.ops.indexOf(op));
    const onComplete = (state: S, linearized: (i: number) => boolean) => {
      const left = pending.filter((_, k) => !linearized(pendingIndex[k]!));
      const endKey = `${key(state)}\u0001${left.map((op) => op.id).join(",")}`;
      if (!ends.has(endKey)) ends.set(endKey, { state, carried: left });
    };
    const r = search(problem, model, limits.maxSteps - steps, false, { maxMemoChars: limits.maxMemoChars, ...(enumerate ? { onComplete } : {}) });
    steps += r.steps;
    anyOk ||= r.ok;
    if (r.ok && !enumerate) break;
    if (r.exhausted) {
      exhausted = r.exhaustedBy;
      // Enumerating, the end states are incomplete now; looking for one linearization, another
      // start may still have one.
      if (enumerate) break;
    }
    if (ends.size > limits.maxEnds) break;
  }
  const found = [...ends.values()];
  const where = `${label} (${ops.length} operations, ${describeHard(ops, starts)}, from ${starts.length} start state(s))`;
  if (anyOk && !enumerate) return { kind: "ok", ends: found, steps };
  if (exhausted !== undefined) {
    const budget = exhausted === "steps" ? `the search budget of ${limits.maxSteps} model steps` : `the memo limit of ${limits.maxMemoChars} key characters`;
    return { kind: "unknown", reason: `${budget} ran out on ${where}`, ends: found, steps };
  }
  if (ends.size > limits.maxEnds) {
    return { kind: "unknown", reason: `more than ${limits.maxEnds} possible end states of ${where}`, ends: [], steps };
  }
  if (anyOk) return { kind: "ok", ends: found, steps };
  if (!startsComplete) return { kind: "unknown", reason: `${where} has no linearization from the start states known, but an earlier window left them incomplete`, ends: [], steps };
  return { kind: "refuted", violation: refutation(ops, starts[0]!, model, label, history, limits.minimize, steps), steps };
}

/**
 * What makes a window's search large, for an unknown verdict's reason: its indeterminate writes
 * (each may take effect anywhere after its invocation, or never) and the ops carried into it.
 */
function describeHard<S>(ops: readonly Operation[], starts: readonly WindowStart<S>[]): string {
  const indeterminate = ops.filter((op) => op.outcome === "unknown").length;
  const carried = Math.max(0, ...starts.map((s) => s.carried.length));
  return `${indeterminate} of them indeterminate${carried > 0 ? `, up to ${carried} carried in` : ""}`;
}

/**
 * The window's state key: exact, and short when the model can make it so (`exactKeyer`: the
 * memo holds one key per distinct state, and a whole tree's text per state filled it). States
 * are immutable and asked for their key several times a step: it is remembered per state.
 */
function windowKey<S>(model: SequentialModel<S>): (s: S) => string {
  const exact = model.exactKeyer?.() ?? ((s: S) => model.key(s));
  const keys = new WeakMap<object, string>();
  return (s: S) => {
    let k = keys.get(s as object);
    if (k === undefined) keys.set(s as object, (k = exact(s)));
    return k;
  };
}

/**
 * One window's problem from one start: its ops and the carried ones, exact keys, zxid order.
 * An indeterminate op of a session whose close the window holds (a closeSession that completed
 * ok: its txn was applied) took effect before that close or never (`boundedBySessionEnd`).
 */
function windowProblem<S>(ops: readonly Operation[], start: WindowStart<S>, model: SequentialModel<S>, key: (s: S) => string): Problem<S> {
  const all = boundedBySessionEnd(sortForSearch([...start.carried, ...ops]));
  const kinds: OpKind[] = all.map((op) => (op.outcome !== "unknown" ? STRICT : op.completeUs !== undefined ? OPTIONAL : UNKNOWN));
  const orderKey = model.submissionOrderKey?.bind(model);
  const fence = model.sessionFence?.bind(model);
  // Exact keys and no signatures: the end states must keep every datum a later window may read.
  return { ops: all, kinds, init: start.state, useZxid: true, key, ...(orderKey ? { orderKey } : {}), ...(fence ? { fence } : {}) };
}

/**
 * ZooKeeper applies no request of a session after the session's closeSession txn: the leader
 * prepares requests in order and fails every one that comes after the close with
 * SESSIONEXPIRED, without a change. So an indeterminate write of a session that has a close
 * completed ok in the window (completed at the close txn's first apply) either took effect before
 * that instant or never: it becomes an optional op completed there (applied, or skipped, by
 * then) instead of one that may land anywhere until the window's end, and the search no longer
 * carries both "applied" and "still pending" for it past the close. A session's close is a fact of
 * the servers' trace (client closes and applied expiries alike), whichever client handle sent
 * the op. Returns copies for the ops it bounds: never one the caller tracks as possibly pending
 * after the window (`unsettledOps` counts an op of an ended session as settled).
 */
function boundedBySessionEnd(ops: readonly Operation[]): Operation[] {
  const closedAt = new Map<string, number>();
  for (const op of ops) {
    if (op.op !== "closeSession" || op.outcome !== "ok" || op.completeUs === undefined) continue;
    closedAt.set(op.session, Math.min(op.completeUs, closedAt.get(op.session) ?? Infinity));
  }
  if (closedAt.size === 0) return [...ops];
  return ops.map((op) => {
    const at = op.outcome === "unknown" && op.op !== "closeSession" && !NO_SESSION.has(op.session) ? closedAt.get(op.session) : undefined;
    return at === undefined ? op : { ...op, completeUs: Math.max(at, op.invokeUs) };
  });
}

function refutation<S>(
  ops: readonly Operation[],
  start: WindowStart<S>,
  model: SequentialModel<S>,
  label: string,
  history: readonly Operation[],
  minimize: boolean,
  steps: number,
): LinearizabilityViolation {
  const part: Partition = { label, ops: [...start.carried, ...ops], preamble: [] };
  const problem = windowProblem(ops, start, model, windowKey(model));
  const originals = new Map(history.map((op) => [op.id, op]));
  const cx = explainViolation(problem, model, part, { minimize, originals });
  return { ok: false, inconclusive: false, partition: label, ...cx, steps };
}

/** A window's one-line description, for reports: its time span and size. */
export function windowLabel(index: number, fromUs: number, toUs: number): string {
  return `window ${index} [${fromUs / 1000} ms, ${toUs / 1000} ms)`;
}
