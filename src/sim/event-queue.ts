/**
 * The scheduler's priority queue: a binary min-heap ordered by (atUs, seq).
 *
 * `seq` is a counter incremented at scheduling time, so two events at the same virtual time
 * always run in the order they were scheduled — never in an order that depends on the heap's
 * internal layout. The heap stores its keys in parallel typed arrays and its payloads in a
 * plain array, which keeps comparisons free of pointer chasing.
 */

export class EventQueue<T> {
  private times = new Float64Array(1024);
  private seqs = new Float64Array(1024);
  private items: (T | undefined)[] = new Array(1024);
  private count = 0;
  private nextSeq = 0;
  /** Sequence numbers for `pushFirst`, counting down from −1: they sort before every `push`. */
  private firstSeq = 0;

  get size(): number {
    return this.count;
  }

  /** The sequence number the next push will get. */
  get scheduled(): number {
    return this.nextSeq;
  }

  push(atUs: number, item: T): number {
    return this.insert(atUs, this.nextSeq++, item);
  }

  /**
   * Queues `item` ahead of everything already queued at `atUs` (the teaching UI's "deliver this
   * next"). The latest `pushFirst` at a time runs first; the order stays a total order.
   */
  pushFirst(atUs: number, item: T): number {
    return this.insert(atUs, --this.firstSeq, item);
  }

  /** Every queued item with its key, in heap order (callers sort by (atUs, seq) when they need run order). */
  forEach(fn: (atUs: number, seq: number, item: T) => void): void {
    for (let i = 0; i < this.count; i++) fn(this.times[i]!, this.seqs[i]!, this.items[i]!);
  }

  private insert(atUs: number, seq: number, item: T): number {
    if (this.count === this.times.length) this.grow();
    let i = this.count++;
    const times = this.times;
    const seqs = this.seqs;
    const items = this.items;
    // Sift up.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent]!;
      if (pt < atUs || (pt === atUs && seqs[parent]! < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[parent]!;
      items[i] = items[parent];
      i = parent;
    }
    times[i] = atUs;
    seqs[i] = seq;
    items[i] = item;
    return seq;
  }

  /** Time of the earliest event, or Infinity when empty. */
  peekTime(): number {
    return this.count === 0 ? Infinity : this.times[0]!;
  }

  peek(): T | undefined {
    return this.count === 0 ? undefined : this.items[0];
  }

  /** Removes and returns the earliest item (undefined when empty). */
  pop(): T | undefined {
    if (this.count === 0) return undefined;
    const items = this.items;
    const top = items[0];
    const last = --this.count;
    if (last > 0) this.siftDown(this.times[last]!, this.seqs[last]!, items[last]!, last);
    items[last] = undefined;
    return top;
  }

  private siftDown(t: number, s: number, item: T, n: number): void {
    const times = this.times;
    const seqs = this.seqs;
    const items = this.items;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n) {
        const ct = times[child]!;
        const rt = times[right]!;
        if (rt < ct || (rt === ct && seqs[right]! < seqs[child]!)) child = right;
      }
      const ct = times[child]!;
      if (t < ct || (t === ct && s < seqs[child]!)) break;
      times[i] = ct;
      seqs[i] = seqs[child]!;
      items[i] = items[child];
      i = child;
    }
    times[i] = t;
    seqs[i] = s;
    items[i] = item;
  }

  private grow(): void {
    const n = this.times.length * 2;
    const times = new Float64Array(n);
    times.set(this.times);
    const seqs = new Float64Array(n);
    seqs.set(this.seqs);
    this.times = times;
    this.seqs = seqs;
    this.items.length = n;
  }
}
