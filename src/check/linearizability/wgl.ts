/**
 * checkLinearizable: is a client history linearizable with respect to a sequential model?
 *
 * Pipeline: normalise the history (what each outcome means, what can be ignored), split it into
 * partitions the model declares independent, look for an op no order can explain (a read of
 * data nobody wrote: the model's `unexplained`, reported alone without a search), run the
 * WGL/Lowe search (`search.ts`) on each partition, and for the first that fails, shrink the
 * failure to a small window and explain it (`counterexample.ts`).
 *
 * Normalisation:
 * - sync, ops that failed with a no-effect code (NOAUTH…), and read-only ops with an unknown
 *   outcome are dropped: they cannot change the state and say nothing about it;
 * - failures with an indeterminate code (CONNECTIONLOSS, SESSIONEXPIRED…) become "unknown";
 * - with `checkReads: false`, successful and failed reads are dropped too, leaving the writes
 *   (ZooKeeper promises linearizable writes; its reads may be stale, docs/zookeeper.md §6).
 *
 * Each partition is searched first with the model's fast (possibly hashed) key; a failure is
 * confirmed with its exact key before it is reported, so a hash collision can cost time but
 * never produce a false violation (and a pass is a linearization actually found).
 *
 * The partitions are checked in order and the result is the first failure: deterministic,
 * and a budget (`maxSteps`) bounds the whole check, a memo limit (`maxMemoChars`) each search;
 * running out yields an *inconclusive* failure, never a pass (and never an out-of-memory crash).
 */
import { classifyOutcome, copyOperation, formatOperation, isReadOnly, type Operation } from "../history/history.js";
import { explainViolation } from "./counterexample.js";
import type { Partition, SequentialModel } from "./model.js";
import { DEFAULT_MAX_MEMO_CHARS, STRICT, UNKNOWN, search, sortForSearch, type OpKind, type Problem } from "./search.js";

export interface CheckOptions {
  /** Order ok writes by their zxid and bound reads below by theirs (default true). */
  useZxid?: boolean;
  /** Check reads as well as writes (default true). */
  checkReads?: boolean;
  /** Search budget, in model steps, for the whole check (default: unbounded). */
  maxSteps?: number;
  /** The memo's size limit per search, in key characters (default `DEFAULT_MAX_MEMO_CHARS`). */
  maxMemoChars?: number;
  /** Shrink a failure to a small window (default true). */
  minimize?: boolean;
}

export interface LinearizabilityOk {
  ok: true;
  partitions: number;
  opsChecked: number;
  steps: number;
}

export interface LinearizabilityViolation {
  ok: false;
  /** True when the budget ran out: the history was neither accepted nor refuted. */
  inconclusive: boolean;
  /** Label of the partition that failed (the paths involved). */
  partition: string;
  /** The operations of the smallest non-linearizable window found, in invocation order. */
  minimalWindow: Operation[];
  /** The completion time from which the history is no longer linearizable, if known. */
  failedAtUs: number | undefined;
  explanation: string;
  steps: number;
}

export type LinearizabilityResult = LinearizabilityOk | LinearizabilityViolation;

export function checkLinearizable<S>(
  history: readonly Operation[],
  model: SequentialModel<S>,
  options: CheckOptions = {},
): LinearizabilityResult {
  const opts = validate(options);
  const ops = normalise(history, opts.checkReads, true);
  const parts: Partition[] = model.partition ? model.partition(ops) : [{ label: "(whole history)", ops, preamble: [] }];
  // The ops as given, by id: only a failure's report reads them.
  const originals = () => new Map(history.map((op) => [op.id, op]));
  const lone = model.unexplained?.(ops);
  if (lone !== undefined) {
    const label = parts.find((p) => p.ops.some((o) => o.id === lone.op.id))?.label ?? lone.op.path;
    return unexplained(label, originals().get(lone.op.id) ?? lone.op, lone.why);
  }
  let steps = 0;
  let checked = 0;
  for (const part of parts) {
    const fenced = writeAfterEnd(part.ops, model, opts.useZxid, part.label);
    if (fenced !== undefined) {
      const given = originals();
      return { ...fenced, minimalWindow: fenced.minimalWindow.map((op) => given.get(op.id) ?? op), steps };
    }
    const loneSteps = loneOpSteps(part, model, opts.maxSteps - steps);
    if (loneSteps !== undefined) {
      steps += loneSteps;
      checked += 1;
      continue;
    }
    let problem = problemOf(part, model, opts.useZxid, false);
    const limits = { maxMemoChars: opts.maxMemoChars };
    let result = search(problem, model, opts.maxSteps - steps, false, limits);
    steps += result.steps;
    checked += part.ops.length;
    if (!result.ok && !result.exhausted && model.keyFor !== undefined) {
      // The fast key may hash; a failure is only reported once an exact search confirms it.
      problem = problemOf(part, model, opts.useZxid, true);
      result = search(problem, model, opts.maxSteps - steps, false, limits);
      steps += result.steps;
    }
    if (result.ok) continue;
    if (result.exhausted) return inconclusive(part, steps, result.exhaustedBy === "memory" ? `the memo limit of ${opts.maxMemoChars} key characters` : `the search budget of ${opts.maxSteps} model steps`);
    const cx = explainViolation(problem, model, part, { minimize: opts.minimize, originals: originals() });
    return { ok: false, inconclusive: false, partition: part.label, ...cx, steps };
  }
  return { ok: true, partitions: parts.length, opsChecked: checked, steps };
}

function validate(o: CheckOptions): Required<CheckOptions> {
  const maxSteps = o.maxSteps ?? Infinity;
  if (!(maxSteps > 0)) throw new Error(`checkLinearizable: maxSteps must be positive, got ${o.maxSteps}`);
  const maxMemoChars = o.maxMemoChars ?? DEFAULT_MAX_MEMO_CHARS;
  if (!(maxMemoChars > 0)) throw new Error(`checkLinearizable: maxMemoChars must be positive, got ${o.maxMemoChars}`);
  return { useZxid: o.useZxid ?? true, checkReads: o.checkReads ?? true, maxSteps, maxMemoChars, minimize: o.minimize ?? true };
}

/**
 * The ops the search must explain, with outcomes reduced to ok / fail (state error) / unknown.
 *
 * With `copy`, every op kept is a shallow copy of the one given (its own fields, the same `args`
 * and `result` objects), never the op itself. The checker reads each op's fields again and again
 * (partitioning, the model, the search), and the objects a caller hands in may each have a hidden
 * class of their own: objects built by spreading a shared base and then growing fields one by one
 * can end up so (the benchmark history's 10,000 ops had 9,973), and then every field read of the
 * checker's is a megamorphic lookup that misses V8's stub cache (~0.5 µs each). The copies
 * (`copyOperation`) all have one class, whatever the source's: the 10,000-op check went from ~320
 * to ~180 ms of CPU with spread copies (a few classes), and a recipe run's five or six classes of
 * ops, too many for V8's inline caches, became one. Reports name the ops given
 * (`checkLinearizable` maps them back by id).
 */
export function normalise(history: readonly Operation[], checkReads = true, copy = false): Operation[] {
  const out: Operation[] = [];
  // Duplicate ids: sorted numbers side by side (no set of every id); the first duplicate in
  // history order is found again, only when there is one, for the message.
  const ids = new Float64Array(history.length);
  let seen = 0;
  for (let k = 0; k < history.length; k++) {
    const given = history[k]!;
    const op = copy ? copyOperation(given) : given;
    ids[seen++] = op.id;
    if (op.op === "sync") continue;
    const cls = classifyOutcome(op);
    if (cls === "no-effect") continue;
    if (cls === "unknown") {
      if (isReadOnly(op)) continue;
      if (copy) {
        op.outcome = "unknown";
        op.completeUs = undefined;
        out.push(op);
      } else out.push({ ...op, outcome: "unknown", completeUs: undefined });
      continue;
    }
    if (op.completeUs === undefined || op.completeUs < op.invokeUs) {
      duplicateIn(history, seen);
      throw new Error(`checkLinearizable: op #${op.id} is ${op.outcome} but completes at ${op.completeUs}µs (invoked ${op.invokeUs}µs)`);
    }
    if (!checkReads && isReadOnly(op)) continue;
    // A state error is an op whose outcome is "fail" already: no copy (ops are not mutated).
    out.push(cls === "ok" || op.outcome === "fail" ? op : { ...op, outcome: "fail" });
  }
  ids.sort();
  // (Two NaN ids are one to a set, as to the message's check.)
  for (let k = 1; k < ids.length; k++) if (ids[k] === ids[k - 1] || (Number.isNaN(ids[k]) && Number.isNaN(ids[k - 1]))) duplicateIn(history, history.length);
  return out;
}

/** Throws for the first op among the first `count` whose id an earlier one has. */
function duplicateIn(history: readonly Operation[], count: number): void {
  const ids = new Set<number>();
  for (let k = 0; k < count; k++) {
    const id = history[k]!.id;
    if (ids.has(id)) throw new Error(`checkLinearizable: duplicate operation id ${id}`);
    ids.add(id);
  }
}

/**
 * A partition of one op that the model accepts needs no search: the search would take exactly
 * the one step (none for an unknown op) from the initial state, and so it counts. Undefined when
 * the partition is not such a one (or the budget cannot pay the step): search it.
 */
function loneOpSteps<S>(part: Partition, model: SequentialModel<S>, budgetSteps: number): number | undefined {
  if (part.ops.length !== 1) return undefined;
  const init = initialState(part, model);
  const op = part.ops[0]!;
  if (op.outcome === "unknown") return 0;
  return budgetSteps >= 1 && model.step(init, op) !== undefined ? 1 : undefined;
}

/** The partition's initial state: the model's, with the preamble applied. */
function initialState<S>(part: Partition, model: SequentialModel<S>): S {
  let init: S | undefined = model.initAfter?.(part.preamble);
  if (init === undefined) {
    init = model.init();
    for (const op of part.preamble) {
      init = model.step(init, op);
      if (init === undefined) throw new Error(`checkLinearizable: the model cannot apply preamble op #${op.id} of partition ${part.label}`);
    }
  }
  return init;
}

export function problemOf<S>(part: Partition, model: SequentialModel<S>, useZxid: boolean, exactKeys: boolean): Problem<S> {
  const init = initialState(part, model);
  const ops = sortForSearch(part.ops);
  const kinds: OpKind[] = ops.map((op) => (op.outcome === "unknown" ? UNKNOWN : STRICT));
  const key = model.keyFor?.(part, exactKeys) ?? ((s: S) => model.key(s));
  const signature = model.signatureFor?.(part);
  const orderKey = model.submissionOrderKey?.bind(model);
  const fence = model.sessionFence?.bind(model);
  return { ops, kinds, init, useZxid, key, ...(signature ? { signature } : {}), ...(orderKey ? { orderKey } : {}), ...(fence ? { fence } : {}) };
}

/** A violation by a single operation that no order explains (`SequentialModel.unexplained`). */
function unexplained(label: string, op: Operation, why: string): LinearizabilityViolation {
  return {
    ok: false,
    inconclusive: false,
    partition: label,
    minimalWindow: [op],
    failedAtUs: op.completeUs,
    explanation: `Not linearizable: #${op.id} (${op.client}) ${why}, so no order of the operations on ${label} explains it.\n  ${formatOperation(op)}`,
    steps: 0,
  };
}

/**
 * A definite write that must follow a definite end of its session (the model's `sessionFence`),
 * refuted without a search: invoked after the end completed (real time), or — with zxid order —
 * carrying a higher zxid than the end's (the search orders ok writes by zxid and bounds a failed
 * one below by its own). The fence forbids that order and every linearization has it, so the
 * search would refute the history too, but only after trying every order of everything else
 * (ZOOKEEPER-1208's history on zab-shared-session seed 10: some 40 s of CPU, most of it in
 * shrinking the counterexample). `ops` normalised: definite ops are ok or fail.
 */
export function writeAfterEnd<S>(ops: readonly Operation[], model: SequentialModel<S>, useZxid: boolean, label: string): LinearizabilityViolation | undefined {
  if (model.sessionFence === undefined) return undefined;
  // The ends first: most partitions have none, and then no write needs a look.
  const ends = new Map<string, Operation[]>();
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k]!;
    if (op.outcome === "unknown") continue;
    const f = model.sessionFence(op);
    if (f === undefined || !f.ends) continue;
    if (ends.has(f.session)) ends.get(f.session)!.push(op);
    else ends.set(f.session, [op]);
  }
  if (ends.size === 0) return undefined;
  for (let k = 0; k < ops.length; k++) {
    const w = ops[k]!;
    if (w.outcome === "unknown") continue;
    const f = model.sessionFence(w);
    if (f === undefined || f.ends) continue;
    const session = f.session;
    for (const end of ends.get(session) ?? []) {
      const afterInRealTime = w.invokeUs > end.completeUs!;
      const afterByZxid = useZxid && end.outcome === "ok" && end.zxid !== undefined && w.zxid !== undefined && end.zxid < w.zxid;
      if (!afterInRealTime && !afterByZxid) continue;
      const why = afterInRealTime
        ? `was invoked at ${w.invokeUs}µs, after #${end.id} ended its session ${session} (${end.op}, completed at ${end.completeUs}µs)`
        : `carries zxid 0x${w.zxid!.toString(16)}, after #${end.id} ended its session ${session} (${end.op}, zxid 0x${end.zxid!.toString(16)})`;
      return {
        ok: false,
        inconclusive: false,
        partition: label,
        minimalWindow: [end, w],
        failedAtUs: w.completeUs,
        explanation:
          `Not linearizable: #${w.id} (${w.client}) ${w.op} ${w.path} ${w.outcome === "ok" ? "took effect" : `failed with ${w.err}`} but ${why}; ` +
          `no write of a session follows the op that ends it (ZOOKEEPER-1208), so no order of the operations on ${label} explains it.` +
          `\n  ${formatOperation(end)}\n  ${formatOperation(w)}`,
        steps: 0,
      };
    }
  }
  return undefined;
}

function inconclusive(part: Partition, steps: number, budget: string): LinearizabilityViolation {
  return {
    ok: false,
    inconclusive: true,
    partition: part.label,
    minimalWindow: [],
    failedAtUs: undefined,
    explanation:
      `Inconclusive: ${budget} ran out on partition ${part.label} ` +
      `(${part.ops.length} operations). The history was neither shown linearizable nor refuted; ` +
      `raise the budget, or reduce the number of concurrent or indeterminate operations touching these znodes.`,
    steps,
  };
}
