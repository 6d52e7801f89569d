/**
 * A history in the TLA+ sense: a sequence of txns, each a zxid and a short content digest
 * (`txn`), so that two different txns minted with the same zxid stay distinguishable. The
 * ZAB checkers keep one per server (what it has logged, what it has applied) and one global
 * (what has been committed/delivered). Entries are kept in the order they were added, which
 * for a well-behaved server is increasing zxid; lookups by zxid binary-search on that order
 * and fall back to a scan when a misbehaving server broke it.
 *
 * A history may forget its oldest entries (`dropThrough`, below the durable floor): indices
 * stay absolute (`offset` entries were dropped before `entries[0]`), so two histories that
 * dropped the same prefix still compare index by index.
 */
import type { Zxid } from "../../zk/proto/records.js";

export interface TxnEntry {
  readonly zxid: Zxid;
  readonly txn: string;
}

export function sameTxn(a: TxnEntry, b: TxnEntry): boolean {
  return a.zxid === b.zxid && a.txn === b.txn;
}

export class TxnHistory<T extends TxnEntry = TxnEntry> {
  private items: T[] = [];
  private sorted = true;
  /** How many entries were forgotten before `entries[0]` (indices are absolute). */
  private dropped = 0;

  constructor(entries: readonly T[] = []) {
    this.replace(entries);
  }

  /** Entries ever in the current history, forgotten ones included. */
  get length(): number {
    return this.dropped + this.items.length;
  }

  /** The index of `entries[0]`: how many leading entries were forgotten. */
  get offset(): number {
    return this.dropped;
  }

  /** The entries still held (those from `offset` on). */
  get entries(): readonly T[] {
    return this.items;
  }

  /** The entry at absolute index `i`; undefined if forgotten or beyond the end. */
  at(i: number): T | undefined {
    return i < this.dropped ? undefined : this.items[i - this.dropped];
  }

  last(): T | undefined {
    return this.items[this.items.length - 1];
  }

  lastZxid(): Zxid | undefined {
    return this.last()?.zxid;
  }

  append(entry: T): void {
    const last = this.last();
    if (last !== undefined && entry.zxid <= last.zxid) this.sorted = false;
    this.items.push(entry);
  }

  /**
   * Logs a txn the way a txn log holds it: a second write of the same zxid replaces the first
   * (the uniqueness checker reports a different txn), anything else is appended.
   */
  put(entry: T): void {
    const i = this.indexOf(entry.zxid);
    if (i >= 0) this.items[i] = entry;
    else this.append(entry);
  }

  indexOf(zxid: Zxid): number {
    if (!this.sorted) return this.items.findIndex((t) => t.zxid === zxid);
    let hi = this.items.length - 1;
    if (hi < 0) return -1;
    // The usual `put`: a txn logged after the last one; no search then.
    const last = this.items[hi]!.zxid;
    if (zxid > last) return -1;
    if (zxid === last) return hi;
    let lo = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const z = this.items[mid]!.zxid;
      if (z === zxid) return mid;
      if (z < zxid) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  get(zxid: Zxid): T | undefined {
    const i = this.indexOf(zxid);
    return i >= 0 ? this.items[i] : undefined;
  }

  /** The entries with zxid ≤ `zxid`, in order. */
  upTo(zxid: Zxid): T[] {
    return this.items.filter((t) => t.zxid <= zxid);
  }

  /** Keeps the entries with zxid ≤ `zxid`; returns the ones removed. */
  cutAbove(zxid: Zxid): T[] {
    const kept: T[] = [];
    const removed: T[] = [];
    for (const t of this.items) (t.zxid <= zxid ? kept : removed).push(t);
    this.items = kept;
    return removed;
  }

  /** Forgets the leading entries with zxid ≤ `zxid`; returns how many. */
  dropThrough(zxid: Zxid): number {
    let k = 0;
    while (k < this.items.length && this.items[k]!.zxid <= zxid) k++;
    if (k > 0) {
      this.items = this.items.slice(k);
      this.dropped += k;
    }
    return k;
  }

  /** Forgets the first entries up to absolute index `index` (exclusive). */
  dropBefore(index: number): void {
    const k = Math.min(index - this.dropped, this.items.length);
    if (k <= 0) return;
    this.items = this.items.slice(k);
    this.dropped += k;
  }

  /** Replaces the history with `entries`, the first at absolute index `offset`. */
  replace(entries: readonly T[], offset = 0): void {
    this.dropped = offset;
    this.items = [...entries];
    this.sorted = true;
    for (let i = 1; i < this.items.length && this.sorted; i++) this.sorted = this.items[i - 1]!.zxid < this.items[i]!.zxid;
  }
}

/**
 * `base` (entries ≤ upTo), then the entries of `fill` above the last of those and ≤ upTo: a
 * reset to "what it had up to upTo" where the trace did not show everything it had (the
 * brief's rule: the rest of the way, the history is the global sequence).
 */
export function filledUpTo(base: readonly TxnEntry[], fill: readonly TxnEntry[], upTo: Zxid): TxnEntry[] {
  const out = base.filter((t) => t.zxid <= upTo);
  const from = out.length > 0 ? out[out.length - 1]!.zxid : -1n;
  for (const t of fill) if (t.zxid > from && t.zxid <= upTo) out.push(t);
  return out;
}
