/**
 * The scheduler's priority queue: a binary min-heap ordered by (atUs, seq).
 *
 * `seq` is a counter incremented at scheduling time, so two events at the same virtual time
 * always run in the order they were scheduled — never in an order that depends on the heap's
 * internal layout. The heap stores its keys in parallel typed arrays and its payloads in a
 * plain array, which keeps comparisons free of pointer chasing.
 *
 * The heap moves numbers only: each item is stored once, in a slot of `items`, and the heap's
 * entries name their slot (`slots`, a typed array). Sifting an item up or down then writes no
 * object pointer. (With the items themselves in the heap, every sift step stored a pointer to
 * a young object — a fresh event — into an old array, and each such store paid V8's
 * generational write barrier: the scheduler's events cost several times a bare heap loop's.)
 */

export class EventQueue<T> {
  private times = new Float64Array(1024);
  private seqs = new Float64Array(1024);
  /** Per heap position: the slot of `items` holding its item. */
  private slots = new Int32Array(1024);
  /** Per slot: its item (undefined when the slot is free). */
  private items: (T | undefined)[] = new Array<T | undefined>(1024).fill(undefined);
  /** The free slots, a stack: `free[0..freeCount)`. */
  private free = descendingSlots(1024);
  private freeCount = 1024;
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
    for (let i = 0; i < this.count; i++) fn(this.times[i]!, this.seqs[i]!, this.items[this.slots[i]!]!);
  }

  private insert(atUs: number, seq: number, item: T): number {
    if (this.count === this.times.length) this.grow();
    let i = this.count++;
    const slot = this.free[--this.freeCount]!;
    this.items[slot] = item;
    const times = this.times;
    const seqs = this.seqs;
    const slots = this.slots;
    // Sift up.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent]!;
      if (pt < atUs || (pt === atUs && seqs[parent]! < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[parent]!;
      slots[i] = slots[parent]!;
      i = parent;
    }
    times[i] = atUs;
    seqs[i] = seq;
    slots[i] = slot;
    return seq;
  }

  /** Time of the earliest event, or Infinity when empty. */
  peekTime(): number {
    return this.count === 0 ? Infinity : this.times[0]!;
  }

  peek(): T | undefined {
    return this.count === 0 ? undefined : this.items[this.slots[0]!];
  }

  /** Removes and returns the earliest item (undefined when empty). */
  pop(): T | undefined {
    if (this.count === 0) return undefined;
    const slot = this.slots[0]!;
    const top = this.items[slot];
    this.items[slot] = undefined;
    this.free[this.freeCount++] = slot;
    const last = --this.count;
    if (last > 0) this.siftDown(this.times[last]!, this.seqs[last]!, this.slots[last]!, last);
    return top;
  }

  private siftDown(t: number, s: number, slot: number, n: number): void {
    const times = this.times;
    const seqs = this.seqs;
    const slots = this.slots;
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
      slots[i] = slots[child]!;
      i = child;
    }
    times[i] = t;
    seqs[i] = s;
    slots[i] = slot;
  }

  private grow(): void {
    const old = this.times.length;
    const n = old * 2;
    const times = new Float64Array(n);
    times.set(this.times);
    const seqs = new Float64Array(n);
    seqs.set(this.seqs);
    const slots = new Int32Array(n);
    slots.set(this.slots);
    this.times = times;
    this.seqs = seqs;
    this.slots = slots;
    for (let i = old; i < n; i++) this.items.push(undefined);
    // Every slot was taken (the heap was full): the new ones are all free.
    const free = new Int32Array(n);
    for (let i = 0; i < old; i++) free[i] = n - 1 - i;
    this.free = free;
    this.freeCount = old;
  }
}

/** The slots n−1 … 0 (a free stack that hands out slot 0 first); a loop, not `Int32Array.from` with a callback. */
function descendingSlots(n: number): Int32Array {
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = n - 1 - i;
  return a;
}
