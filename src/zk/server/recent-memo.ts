/**
 * A memo of the last few values computed for objects, found by identity. For values derived
 * from an object that every server of an ensemble handles within a few txns of the others (the
 * simulator passes one TxnEntry by reference): a ring of recent objects costs less than a
 * WeakMap, whose sets go through the GC's ephemeron tables. A miss only recomputes the same
 * value, so the memo never changes a result; it holds at most `size` objects alive.
 */
export class RecentMemo<K extends object, V> {
  private readonly keys: (K | undefined)[];
  private readonly values: (V | undefined)[];
  private next = 0;

  constructor(
    private readonly size: number,
    private readonly compute: (key: K) => V,
  ) {
    this.keys = new Array<K | undefined>(size).fill(undefined);
    this.values = new Array<V | undefined>(size).fill(undefined);
  }

  get(key: K): V {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) if (keys[i] === key) return this.values[i]!;
    const value = this.compute(key);
    keys[this.next] = key;
    this.values[this.next] = value;
    this.next = this.next + 1 === this.size ? 0 : this.next + 1;
    return value;
  }
}
