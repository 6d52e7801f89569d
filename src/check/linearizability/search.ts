/**
 * The linearization search for one partition: Wing & Gong's backtracking with Lowe's
 * memoisation, in the explicit-stack form Porcupine uses, extended for indeterminate ops and
 * for ZooKeeper's zxid order.
 *
 * At each point the search holds a model state and the set of operations linearized so far.
 * `minRet` is the earliest completion among definite operations not yet linearized: that
 * operation must take effect before anything invoked after it, so the candidates are the
 * unlinearized operations invoked at or before `minRet` (equal times count as concurrent).
 * Each candidate is stepped through the model; a state reached before with the same
 * linearized set is not explored again (Lowe: the pair (set, state) decides the future).
 *
 * Three kinds of operation:
 * - strict: definite ok / failed ops; each must be linearized before its completion;
 * - unknown: may take effect at any point after its invocation, or never. It has no deadline,
 *   so it never forces backtracking, and the search succeeds as soon as every strict op is
 *   linearized (the leftovers "never happened"). Unknown candidates are tried after strict
 *   ones, most recently invoked first, and only one of several pending unknown ops with the
 *   same signature (interchangeable: same effect, no deadline; see the model's
 *   `signatureFor`); one that would change nothing is not applied (leaving it pending
 *   dominates);
 * - optional: a definite write relaxed by the counterexample minimiser: it may take effect or
 *   not, but is settled by its completion (two successors: applied, skipped).
 *
 * Submission order (when the model gives `orderKey`): the ops of one key (a ZooKeeper session)
 * are linearized in submission order (their ids). An op is a candidate only if no later write
 * of its key has been linearized and no definite earlier op is still waiting; an unknown op
 * passed over that way never takes effect. A read does not pass anything over: a write the
 * session had in flight on a connection it lost may still land after a read it made later on
 * another server (that server did not have to have it). The highest position of a write
 * linearized per key follows from the linearized set, so the memo key needs nothing more.
 *
 * A strict op that leaves the state unchanged (the model returns the very state: a read, a
 * failed write) is placed without trying the other candidates of that point, when it ends no
 * session and passes over no pending op of its session: moved to the front of any linearization that places it
 * later, it changes no state the ops in between see, breaks no real-time order (it is a
 * candidate: nothing unlinearized completed before it was invoked) and no zxid bound (it is
 * not blocked). The final heal-then-read's hundreds of reads would otherwise be tried in every
 * order whenever something after them fails.
 *
 * Session fences (when the model gives `fence`): no write of a session takes effect after an op
 * that ends the session (its closeSession). A write of a session one of whose ends is linearized
 * is no candidate (an unknown one never takes effect then; an optional one can only be
 * skipped), and an end is no candidate while a strict write of its session waits. Which ends
 * are linearized follows from the linearized set, so the memo key needs nothing more.
 *
 * zxid order (when enabled): strict ok writes that carry a zxid must be linearized in zxid
 * order (only the next one is a candidate), and a strict op that carries a zxid but is not
 * such a write (a read, a failed write) must follow every such write with a zxid ≤ its own:
 * the reply zxid is a lower bound of the state the server had applied.
 *
 * The linearized set is encoded exactly and cheaply: every definite op before the first
 * unlinearized one (in invocation order) is linearized; the rest of the set lies among ops
 * invoked at or before `minRet` (it only grows along a path), so the key is that pointer, the
 * last linearized definite op and the few unlinearized ones between them, plus a bitset of the
 * linearized unknown ops. States
 * are named by `problem.key` and interned to small numbers.
 */
import { pollHeap } from "../../base/heap-poll.js";
import { isReadOnly, type Operation } from "../history/history.js";
import type { SequentialModel, SessionFence } from "./model.js";

export const STRICT = 0;
export const UNKNOWN = 1;
export const OPTIONAL = 2;
export type OpKind = typeof STRICT | typeof UNKNOWN | typeof OPTIONAL;

export interface Problem<S> {
  /** Normalised operations sorted by (invokeUs, id). */
  ops: readonly Operation[];
  kinds: readonly OpKind[];
  init: S;
  useZxid: boolean;
  /** The state key the memo uses (the model's, or one specialised to this partition). */
  key: (state: S) => string;
  /** Equal signatures ⇒ interchangeable ops (see SequentialModel.signatureFor). */
  signature?: (op: Operation) => string;
  /** Ops with one key run in submission order (see SequentialModel.submissionOrderKey). */
  orderKey?: (op: Operation) => string | undefined;
  /** No write of a session after its end (see SequentialModel.sessionFence). */
  fence?: (op: Operation) => SessionFence | undefined;
}


export interface SearchResult<S> {
  ok: boolean;
  /** A budget (steps, or the memo's size) ran out before an answer. */
  exhausted: boolean;
  /** Which budget ran out, when `exhausted`. */
  exhaustedBy?: "steps" | "memory";
  steps: number;
  /** With `trackDeepest`: the furthest the search got (most operations placed). */
  deepest?: Deepest<S>;
}

export interface Deepest<S> {
  /** Indices into `problem.ops`, in linearization order. */
  order: number[];
  /** Optional ops in `order` that were resolved as "did not take effect". */
  skipped: Set<number>;
  state: S;
  /** Unlinearized ops that were candidates (or blocked by zxid order) at that point. */
  pending: number[];
  /** For each pending op blocked by zxid order, the index of the write it must follow. */
  blockedBy: Map<number, number>;
  /**
   * For each pending op blocked by submission order, the op of its key in the way: an earlier
   * definite one not placed yet, or a later one already placed.
   */
  orderBlockedBy: Map<number, number>;
  /**
   * For each pending op held by a session fence: a write, the end of its session already
   * linearized; an end, a strict write of its session not linearized yet.
   */
  fenceBlockedBy: Map<number, number>;
}

/**
 * Optional limits and modes of one search.
 * - `maxMemoChars`: the memo (the visited (linearized set, state) pairs) may hold keys of at most
 *   this many characters in all; beyond it the search stops, exhausted by "memory". The memo is
 *   what grows without bound on a long history with a long-running op (every op linearized
 *   after it lengthens the key), long before the step budget is near.
 * - `onComplete`: enumerate instead of stopping at the first linearization. Called once per
 *   distinct (linearized set, state) in which every strict op is linearized, with the state
 *   and whether a given op is linearized there; the search goes on exploring the unknown ops
 *   that may still follow, and `ok` at the end says whether any such point was reached. The
 *   windowed checker uses it to learn every state a window may end in.
 */
export interface SearchLimits<S> {
  maxMemoChars?: number;
  onComplete?: (state: S, linearized: (op: number) => boolean) => void;
}

/** The memo's default size limit: 2^25 characters (about 64 MB of key strings). */
export const DEFAULT_MAX_MEMO_CHARS = 1 << 25;

/** Sorted for the search: by invocation, ties by id. */
export function sortForSearch(ops: readonly Operation[]): Operation[] {
  return [...ops].sort((a, b) => a.invokeUs - b.invokeUs || a.id - b.id);
}

export function search<S>(
  problem: Problem<S>,
  model: SequentialModel<S>,
  budgetSteps: number,
  trackDeepest = false,
  limits: SearchLimits<S> = {},
): SearchResult<S> {
  return new Search(problem, model).run(budgetSteps, trackDeepest, limits);
}

/**
 * `n` numbers `value`: the search's per-op tables are plain arrays of small numbers, not typed
 * arrays — V8 makes a small typed array through its runtime (a buffer, a backing store, a view:
 * some microseconds each, several times a plain array's cost), and a search sets up some fifteen of
 * them, which a recipe run's partitions of a few dozen ops paid more for than for their steps.
 */
function filled(n: number, value: number): number[] {
  const a: number[] = [];
  for (let i = 0; i < n; i++) a.push(value);
  return a;
}

/** Decimal digits of a level's number (what its state's number is at most as long as). */
function digits(n: number): number {
  let d = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) d++;
  return d;
}

class Search<S> {
  private readonly n: number;
  private readonly inv: number[];
  private readonly cmp: number[];
  /** Definite (strict + optional) ops in invocation order, and in completion order. */
  private readonly definite: number[] = [];
  private readonly byCompletion: number[];
  private readonly unknown: number[] = [];
  /** Rank of an unknown op among the unknown ones, or -1; and the linearized ones as bits. */
  private readonly unknownRank: number[];
  private readonly unknownBits: number[];
  /** Unknown ops with the same class (signature) are interchangeable. */
  private readonly unknownClass: number[];
  /** Rank of a strict ok write in zxid order, or -1. */
  private readonly zxidRank: number[];
  /** Number of zxid writes an op must follow (lower bound), or 0. */
  private readonly zxidBound: number[];
  private readonly zxidWrites: number[] = [];
  private readonly strictCount: number;
  /** Submission-order group of each op (-1: none), its position there, each group's ops, and the highest position linearized per group. */
  private readonly group: number[];
  private readonly posInGroup: number[];
  private readonly groupOps: number[][] = [];
  private readonly hiPos: number[];
  /** 1 for ops whose placing passes over their group's earlier unknown ops (writes, not reads). */
  private readonly advancesOrder: number[];
  private readonly lin: number[];
  /** Session-fence index of each op (-1: none), whether it ends its session, per session its strict writes and its ends, and how many ends are linearized. */
  private readonly fenceOf: number[];
  private readonly endsFence: number[];
  private readonly fenceWrites: number[][] = [];
  private readonly fenceEnds: number[][] = [];
  private readonly endedCount: number[];
  /** Per unknown class, the number of the last scan that picked one of its ops. */
  private readonly classTried: number[];
  private scans = 0;
  private ptrD = 0;
  private ptrC = 0;
  private zNext = 0;
  private doneStrict = 0;
  private readonly stateIds = new Map<string, number>();
  /** Characters of the interned state keys (they count towards the memo's size limit). */
  private stateChars = 0;

  constructor(
    private readonly p: Problem<S>,
    private readonly model: SequentialModel<S>,
  ) {
    const ops = p.ops;
    this.n = ops.length;
    this.inv = filled(this.n, 0);
    this.cmp = filled(this.n, 0);
    this.lin = filled(this.n, 0);
    let strict = 0;
    for (let i = 0; i < this.n; i++) {
      this.inv[i] = ops[i]!.invokeUs;
      this.cmp[i] = p.kinds[i] === UNKNOWN ? Infinity : (ops[i]!.completeUs ?? NaN);
      if (p.kinds[i] === UNKNOWN) this.unknown.push(i);
      else this.definite.push(i);
      if (p.kinds[i] === STRICT) strict++;
    }
    this.strictCount = strict;
    this.unknownRank = filled(this.n, -1);
    this.unknown.forEach((i, rank) => (this.unknownRank[i] = rank));
    this.unknownBits = filled(Math.ceil(this.unknown.length / 16), 0);
    this.unknownClass = filled(this.n, -1);
    this.group = filled(this.n, -1);
    this.posInGroup = filled(this.n, -1);
    if (p.orderKey !== undefined) {
      const groups = new Map<string, number>();
      for (let i = 0; i < this.n; i++) {
        const k = p.orderKey(ops[i]!);
        if (k === undefined) continue;
        let g = groups.get(k);
        if (g === undefined) {
          groups.set(k, (g = this.groupOps.length));
          this.groupOps.push([]);
        }
        this.group[i] = g;
        this.groupOps[g]!.push(i);
      }
      for (const members of this.groupOps) {
        members.sort((a, b) => ops[a]!.id - ops[b]!.id); // submission order
        members.forEach((i, pos) => (this.posInGroup[i] = pos));
      }
    }
    this.advancesOrder = filled(this.n, 0);
    for (let i = 0; i < this.n; i++) this.advancesOrder[i] = this.group[i]! >= 0 && !isReadOnly(ops[i]!) ? 1 : 0;
    this.hiPos = filled(this.groupOps.length, -1);
    const classes = new Map<string, number>();
    for (const u of this.unknown) {
      // Interchangeable only within one submission-order group (they share its deadlines).
      const sig = (p.signature?.(ops[u]!) ?? `#${u}`) + (this.group[u]! >= 0 ? ` @${this.group[u]}` : "");
      if (!classes.has(sig)) classes.set(sig, classes.size);
      this.unknownClass[u] = classes.get(sig)!;
    }
    this.classTried = filled(classes.size, 0);
    this.fenceOf = filled(this.n, -1);
    this.endsFence = filled(this.n, 0);
    if (p.fence !== undefined) this.fenceSessions(p.fence);
    this.endedCount = filled(this.fenceEnds.length, 0);
    this.byCompletion = [...this.definite].sort((a, b) => this.cmp[a]! - this.cmp[b]! || a - b);
    this.zxidRank = filled(this.n, -1);
    this.zxidBound = filled(this.n, 0);
    if (p.useZxid) this.orderByZxid();
  }

  private fenceSessions(fence: (op: Operation) => SessionFence | undefined): void {
    const sessions = new Map<string, number>();
    for (let i = 0; i < this.n; i++) {
      const f = fence(this.p.ops[i]!);
      if (f === undefined) continue;
      let s = sessions.get(f.session);
      if (s === undefined) {
        sessions.set(f.session, (s = this.fenceEnds.length));
        this.fenceEnds.push([]);
        this.fenceWrites.push([]);
      }
      this.fenceOf[i] = s;
      if (f.ends) {
        this.endsFence[i] = 1;
        this.fenceEnds[s]!.push(i);
      } else if (this.p.kinds[i] === STRICT) this.fenceWrites[s]!.push(i);
    }
  }

  /** -1 when the session fence lets op i go now; else a linearized end of its session (i a write), or a strict write still waiting (i an end). */
  private fenceBlocker(i: number): number {
    const s = this.fenceOf[i]!;
    if (s < 0) return -1;
    if (this.endsFence[i]) {
      const writes = this.fenceWrites[s]!;
      for (let k = 0; k < writes.length; k++) if (!this.lin[writes[k]!]) return writes[k]!;
      return -1;
    }
    if (this.endedCount[s] === 0) return -1;
    const ends = this.fenceEnds[s]!;
    for (let k = 0; k < ends.length; k++) if (this.lin[ends[k]!]) return ends[k]!;
    return -1;
  }

  private orderByZxid(): void {
    const ops = this.p.ops;
    const isZxidWrite = (i: number) => this.p.kinds[i] === STRICT && ops[i]!.outcome === "ok" && ops[i]!.zxid !== undefined && !isReadOnly(ops[i]!);
    for (let i = 0; i < this.n; i++) if (isZxidWrite(i)) this.zxidWrites.push(i);
    this.zxidWrites.sort((a, b) => (ops[a]!.zxid! < ops[b]!.zxid! ? -1 : ops[a]!.zxid! > ops[b]!.zxid! ? 1 : a - b));
    this.zxidWrites.forEach((i, rank) => (this.zxidRank[i] = rank));
    for (let i = 0; i < this.n; i++) {
      const z = ops[i]!.zxid;
      if (this.p.kinds[i] !== STRICT || z === undefined || this.zxidRank[i]! >= 0) continue;
      let lo = 0;
      let hi = this.zxidWrites.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (ops[this.zxidWrites[mid]!]!.zxid! <= z) lo = mid + 1;
        else hi = mid;
      }
      this.zxidBound[i] = lo;
    }
  }

  /** -1 when op i may go now; else the index of the zxid write it must wait for. */
  private blocker(i: number): number {
    if (!this.p.useZxid) return -1;
    const rank = this.zxidRank[i]!;
    if (rank >= 0) return rank === this.zNext ? -1 : this.zxidWrites[this.zNext]!;
    return this.zxidBound[i]! > this.zNext ? this.zxidWrites[this.zNext]! : -1;
  }

  /** Placing op i now leaves every unknown op available: it ends no session, and passes over no op of its submission-order group. */
  private passesNothing(i: number): boolean {
    if (this.endsFence[i]) return false;
    if (!this.advancesOrder[i]) return true;
    const g = this.group[i]!;
    const ops = this.groupOps[g]!;
    for (let q = this.hiPos[g]! + 1; q < this.posInGroup[i]!; q++) if (!this.lin[ops[q]!]) return false;
    return true;
  }

  /** -1 when submission order lets op i go now; else the op of its group in the way. */
  private orderBlocker(i: number): number {
    const g = this.group[i]!;
    if (g < 0) return -1;
    const ops = this.groupOps[g]!;
    const p = this.posInGroup[i]!;
    const hi = this.hiPos[g]!;
    if (p <= hi) return ops[hi]!;
    for (let q = hi + 1; q < p; q++) if (this.p.kinds[ops[q]!] !== UNKNOWN && !this.lin[ops[q]!]) return ops[q]!;
    return -1;
  }

  private get minRet(): number {
    return this.ptrC < this.byCompletion.length ? this.cmp[this.byCompletion[this.ptrC]!]! : Infinity;
  }

  /**
   * Candidates (encoded op*2 + skip; definite ones first, then unknown ones), pushed onto
   * `cands` (the search's one stack of every level's candidates), and the exact key of the
   * linearized set (unknown ops as a bitset).
   */
  private scan(cands: number[]): string {
    const minRet = this.minRet;
    // The linearized definite ops past ptrD, as the unlinearized ones ("gaps") between ptrD and
    // the last linearized one: few even when one long-running op holds ptrD back for thousands
    // of ops (listing the linearized ones instead made keys, and the memo, grow with the square
    // of the history's length).
    let key = `${this.ptrD}`;
    let gapsFrom = -1;
    let lastLin = -1;
    for (let k = this.ptrD; k < this.definite.length; k++) {
      const i = this.definite[k]!;
      if (this.inv[i]! > minRet) break;
      if (this.lin[i]) {
        if (gapsFrom >= 0) {
          for (let g = gapsFrom; g < k; g++) key += `,${g}`;
          gapsFrom = -1;
        }
        lastLin = k;
        continue;
      }
      if (gapsFrom < 0) gapsFrom = k;
      if (this.blocker(i) < 0 && this.orderBlocker(i) < 0) {
        // An optional op its session's fence holds can still be settled as not having happened.
        const fenced = this.fenceBlocker(i) >= 0;
        if (!fenced) cands.push(i * 2);
        if (this.p.kinds[i] === OPTIONAL) cands.push(i * 2 + 1);
      }
    }
    key += `;${lastLin}`;
    if (this.unknown.length > 0) {
      // (apply, not a spread: no iterator over the bits.)
      const bits: string = Reflect.apply(String.fromCharCode, null, this.unknownBits);
      key += "|" + bits;
      // Most recently invoked first: an indeterminate op that took effect usually did so soon
      // after its invocation; the old ones still pending are more likely never to have.
      // Of pending unknown ops with the same signature only one is tried: with no deadline and
      // the same effect, either can stand for the other in any linearization.
      // Within a class, the earliest-submitted op stands for the rest: in a submission-order
      // group, placing it leaves the later ones available, not the other way round.
      let last = -1;
      while (last + 1 < this.unknown.length && this.inv[this.unknown[last + 1]!]! <= minRet) last++;
      // The classes tried in this scan are the ones marked with its number (no set per scan).
      const scanNo = ++this.scans;
      const from = cands.length;
      for (let k = 0; k <= last; k++) {
        const u = this.unknown[k]!;
        const cls = this.unknownClass[u]!;
        if (this.lin[u] || this.classTried[cls] === scanNo || this.orderBlocker(u) >= 0 || this.fenceBlocker(u) >= 0) continue;
        this.classTried[cls] = scanNo;
        cands.push(u * 2);
      }
      // Tried most recently invoked first.
      for (let a = from, b = cands.length - 1; a < b; a++, b--) {
        const t = cands[a]!;
        cands[a] = cands[b]!;
        cands[b] = t;
      }
    }
    return key;
  }

  private mark(i: number): void {
    this.lin[i] = 1;
    if (this.endsFence[i]) this.endedCount[this.fenceOf[i]!]!++;
    const u = this.unknownRank[i]!;
    if (u >= 0) this.unknownBits[u >> 4]! |= 1 << (u & 15);
    if (this.p.kinds[i] === STRICT) this.doneStrict++;
    if (this.zxidRank[i]! >= 0) this.zNext++;
    if (this.advancesOrder[i]) this.hiPos[this.group[i]!] = this.posInGroup[i]!;
    while (this.ptrD < this.definite.length && this.lin[this.definite[this.ptrD]!]) this.ptrD++;
    while (this.ptrC < this.byCompletion.length && this.lin[this.byCompletion[this.ptrC]!]) this.ptrC++;
  }

  private unmark(i: number, ptrD: number, ptrC: number, zNext: number, hiPos: number): void {
    this.lin[i] = 0;
    if (this.endsFence[i]) this.endedCount[this.fenceOf[i]!]!--;
    if (this.advancesOrder[i]) this.hiPos[this.group[i]!] = hiPos;
    const u = this.unknownRank[i]!;
    if (u >= 0) this.unknownBits[u >> 4]! &= ~(1 << (u & 15));
    if (this.p.kinds[i] === STRICT) this.doneStrict--;
    this.ptrD = ptrD;
    this.ptrC = ptrC;
    this.zNext = zNext;
  }

  private stateId(state: S): number {
    const k = this.p.key(state);
    let id = this.stateIds.get(k);
    if (id === undefined) {
      id = this.stateIds.size;
      this.stateIds.set(k, id);
      this.stateChars += k.length;
    }
    return id;
  }

  private successor(state: S, c: number): S | undefined {
    if ((c & 1) === 1) return state; // an optional op that did not happen
    const op = this.p.ops[c >> 1]!;
    return this.model.step(state, this.p.kinds[c >> 1] === OPTIONAL ? { ...op, outcome: "unknown" } : op);
  }

  run(budgetSteps: number, trackDeepest: boolean, limits: SearchLimits<S>): SearchResult<S> {
    let steps = 0;
    const onComplete = limits.onComplete;
    const maxMemoChars = limits.maxMemoChars ?? DEFAULT_MAX_MEMO_CHARS;
    const isLinearized = (i: number) => this.lin[i] === 1;
    let completed = false;
    if (this.strictCount === 0) {
      if (onComplete === undefined) return { ok: true, exhausted: false, steps };
      onComplete(this.p.init, isLinearized);
      completed = true;
    }
    const seen = new Set<string>();
    let memoChars = 0;
    let nextPollChars = 1 << 20;
    // The stack, as parallel arrays: the state and candidates of each level, the op that led
    // there and the pointers to restore when leaving it. Every level's candidates lie in one
    // array, each level's above the one below it: at [next, end) the ones left to try.
    const cands: number[] = [];
    this.scan(cands);
    const states: S[] = [this.p.init];
    const next: number[] = [0];
    const end: number[] = [cands.length];
    const via: number[] = [-1];
    // Per level, four numbers to restore on leaving it: ptrD, ptrC, zNext and the group's hiPos.
    const saved: number[] = [0, 0, 0, -1];
    let deepest: Deepest<S> | undefined = trackDeepest ? this.snapshot(via, [false], this.p.init) : undefined;
    let deepestDepth = 0;
    const skips: boolean[] = [false];
    // The memo deferred: until the search first leaves a level, it has only gone deeper, and
    // every memo entry so far is a level of the current path, each with one more op linearized
    // than the one below it. A new entry has more linearized ops than any of them (the set's key
    // is exact), so the memo cannot hold it: nothing needs looking up, and the entries (the
    // set's key and the state's number) are made only when the search first leaves a level — in
    // the same order, so the states get the same numbers and the memo the same entries as when
    // each was made at its level. A search that never leaves one (a history with one order, or
    // whose first choices all work) makes none. The memo's size limit stays exact through an
    // upper bound of what the deferred entries add (every state a new one, its number as long as
    // its level's): while the bound is within the limit, so is the memo; the step that takes the
    // bound past it makes the entries and is judged as before. Not with `onComplete` or
    // `trackDeepest`, whose callbacks and snapshots see each step's memo.
    let deferred = onComplete === undefined && !trackDeepest;
    /** Per level, the linearized set's key (while deferred). */
    const levelKeys: string[] = [""];
    let deferredBound = 0;
    /** Makes the deferred entries, of levels 1..top (within the limit: their bound was). */
    const makeDeferred = (top: number): void => {
      deferred = false;
      for (let k = 1; k <= top; k++) {
        const full = `${levelKeys[k]}#${this.stateId(states[k]!)}`;
        seen.add(full);
        memoChars += full.length;
      }
      levelKeys.length = 0;
    };
    while (states.length > 0) {
      const top = states.length - 1;
      if (next[top]! >= end[top]!) {
        if (deferred) makeDeferred(top);
        const at = top * 4;
        if (via[top]! >= 0) this.unmark(via[top]!, saved[at]!, saved[at + 1]!, saved[at + 2]!, saved[at + 3]!);
        states.pop(), next.pop(), end.pop(), via.pop(), skips.pop();
        saved.length = at;
        // The level's candidates start where the one below it ended.
        cands.length = top > 0 ? end[top - 1]! : 0;
        continue;
      }
      const c = cands[next[top]!++]!;
      if (++steps > budgetSteps) return { ok: completed, exhausted: true, exhaustedBy: "steps", steps, deepest };
      if ((steps & 0x3ff) === 0) pollHeap();
      const succ = this.successor(states[top]!, c);
      if (succ === undefined) continue;
      const i = c >> 1;
      // An unknown op that changes nothing here is dominated by leaving it for later (or never).
      if (this.p.kinds[i] === UNKNOWN && this.p.key(succ) === this.p.key(states[top]!)) continue;
      // A strict op that leaves the state as it is (a read, a failed write), ends no session and
      // passes over no pending op of its session goes first: whatever linearization places it later, the same
      // one with it moved here is one too, so the other candidates of this point need no try.
      if (this.p.kinds[i] === STRICT && succ === states[top] && this.passesNothing(i)) next[top] = end[top]!;
      const g = this.group[i]!;
      const ptrD = this.ptrD;
      const ptrC = this.ptrC;
      const zNext = this.zNext;
      const hiPos = g >= 0 ? this.hiPos[g]! : -1;
      this.mark(i);
      const done = this.doneStrict === this.strictCount;
      if (done && onComplete === undefined) return { ok: true, exhausted: false, steps };
      const from = cands.length;
      const key = this.scan(cands);
      if (deferred) {
        deferredBound += key.length + 1 + digits(states.length) + this.p.key(succ).length;
        if (deferredBound >= nextPollChars) {
          nextPollChars = deferredBound + (1 << 20);
          pollHeap();
        }
        if (deferredBound <= maxMemoChars) {
          levelKeys.push(key);
          states.push(succ), next.push(from), end.push(cands.length), via.push(i), saved.push(ptrD, ptrC, zNext, hiPos), skips.push((c & 1) === 1);
          continue;
        }
        // Past the limit: the levels so far get their entries, and this one its own below.
        makeDeferred(top);
      }
      const full = `${key}#${this.stateId(succ)}`;
      if (seen.has(full)) {
        cands.length = from;
        this.unmark(i, ptrD, ptrC, zNext, hiPos);
        continue;
      }
      seen.add(full);
      memoChars += full.length;
      // The heap guard (base/heap-poll.ts) looks at every MiB of keys too: a few steps of long keys can fill a small heap.
      if (memoChars >= nextPollChars) {
        nextPollChars = memoChars + (1 << 20);
        pollHeap();
      }
      if (memoChars + this.stateChars > maxMemoChars) return { ok: completed, exhausted: true, exhaustedBy: "memory", steps, deepest };
      if (done) {
        onComplete!(succ, isLinearized);
        completed = true;
      }
      states.push(succ), next.push(from), end.push(cands.length), via.push(i), saved.push(ptrD, ptrC, zNext, hiPos), skips.push((c & 1) === 1);
      if (deepest !== undefined && states.length - 1 > deepestDepth) {
        deepestDepth = states.length - 1;
        deepest = this.snapshot(via, skips, succ);
      }
    }
    return { ok: completed, exhausted: false, steps, deepest };
  }

  private snapshot(via: readonly number[], skips: readonly boolean[], state: S): Deepest<S> {
    const minRet = this.minRet;
    const pending: number[] = [];
    const blockedBy = new Map<number, number>();
    const orderBlockedBy = new Map<number, number>();
    const fenceBlockedBy = new Map<number, number>();
    for (let i = 0; i < this.n; i++) {
      if (this.lin[i] || this.inv[i]! > minRet) continue;
      pending.push(i);
      const b = this.blocker(i);
      if (b >= 0) blockedBy.set(i, b);
      const o = this.orderBlocker(i);
      if (o >= 0) orderBlockedBy.set(i, o);
      const f = this.fenceBlocker(i);
      if (f >= 0) fenceBlockedBy.set(i, f);
    }
    const skipped = new Set(via.filter((i, k) => i >= 0 && skips[k]));
    return { order: via.filter((i) => i >= 0), skipped, state, pending, blockedBy, orderBlockedBy, fenceBlockedBy };
  }
}
