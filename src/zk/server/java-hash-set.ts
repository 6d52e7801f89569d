/**
 * A set of strings that iterates in the order Java's `HashSet<String>` does, because ZooKeeper
 * hands some of its lists to clients in that order: a node's children (`DataNode.children`, a
 * `HashSet<String>(8)`) come back from getChildren in bucket order, not sorted. Code that assumes
 * getChildren is sorted works on a three-node test and fails in production; a simulator that
 * sorted them would hide that bug (docs/conformance.md, "Orders left to hash sets").
 *
 * The model is OpenJDK's `HashMap` as `HashSet` uses it:
 *   - `String.hashCode()`: h = 31·h + c over the UTF-16 code units, in 32-bit arithmetic;
 *   - the bucket of a key: `(h ^ (h >>> 16)) & (capacity − 1)`;
 *   - a bucket is a list in insertion order; removal unlinks;
 *   - the table is allocated at the first add with the constructor's capacity rounded up to a
 *     power of two, and doubles when the size passes 0.75 × capacity (each bucket splitting into
 *     a low and a high list, both keeping their order) — and also when one bucket grows past 8
 *     entries while the table is smaller than 64;
 *   - iteration walks the buckets in index order.
 * Not modelled: a bucket of more than 8 entries in a table of 64 or more becomes a red-black tree
 * in Java, whose iteration order differs; with String hashes that needs a pathological set of
 * names, and the list order is kept then.
 *
 * The order depends on the history (a table never shrinks), so a restored tree rebuilds each
 * set by adding the children in the order the snapshot lists them, as DataTree.deserialize does.
 */

const TREEIFY_THRESHOLD = 8;
const MIN_TREEIFY_CAPACITY = 64;
const LOAD_FACTOR = 0.75;
const MAXIMUM_CAPACITY = 1 << 30;

/** Java's `String.hashCode()`. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** `HashMap.hash`: the high half folded into the low, as the bucket index uses only low bits. */
function spread(key: string): number {
  const h = javaStringHashCode(key);
  return (h ^ (h >>> 16)) | 0;
}

/** `HashMap.tableSizeFor`: the least power of two ≥ cap. */
function tableSizeFor(cap: number): number {
  let n = 1;
  while (n < cap && n < MAXIMUM_CAPACITY) n *= 2;
  return n;
}

interface Entry {
  hash: number;
  key: string;
}

export class JavaHashSet implements Iterable<string> {
  /**
   * The buckets; an empty bucket is undefined until its first entry (most of a node's buckets
   * never hold one, and a table of empty arrays per set was most of what a create allocated).
   */
  private table: (Entry[] | undefined)[] | undefined;
  private threshold: number;
  private count = 0;

  /** `new HashSet<String>(initialCapacity)`; Java's default is 16. */
  constructor(initialCapacity = 16) {
    this.threshold = tableSizeFor(initialCapacity);
  }

  get size(): number {
    return this.count;
  }

  has(key: string): boolean {
    if (this.table === undefined) return false;
    const hash = spread(key);
    const bucket = this.table[hash & (this.table.length - 1)];
    return bucket !== undefined && indexIn(bucket, hash, key) >= 0;
  }

  /** Adds `key`; false when it was already there (its place is kept). */
  add(key: string): boolean {
    const table = this.table ?? this.resize();
    const hash = spread(key);
    const b = hash & (table.length - 1);
    let bucket = table[b];
    if (bucket === undefined) table[b] = bucket = [];
    else if (indexIn(bucket, hash, key) >= 0) return false;
    bucket.push({ hash, key });
    // treeifyBin on a small table resizes instead (appending the 9th entry of a bucket).
    if (bucket.length > TREEIFY_THRESHOLD && table.length < MIN_TREEIFY_CAPACITY) this.resize();
    if (++this.count > this.threshold) this.resize();
    return true;
  }

  /** Removes `key`; false when it was not there. */
  delete(key: string): boolean {
    if (this.table === undefined) return false;
    const hash = spread(key);
    const bucket = this.table[hash & (this.table.length - 1)];
    const i = bucket === undefined ? -1 : indexIn(bucket, hash, key);
    if (i < 0) return false;
    bucket!.splice(i, 1);
    this.count--;
    return true;
  }

  /**
   * `HashSet.clone()` (OpenJDK 17's `HashMap.clone` → `putMapEntries`): a fresh table sized for
   * the current count, `tableSizeFor((int)(size / 0.75f + 1))`, filled in this set's iteration
   * order. Its order may differ from this set's: a set that grew (or was created larger) and
   * lost entries clones into a smaller table. DataTree.getEphemerals hands out such a clone.
   */
  clone(): JavaHashSet {
    const copy = new JavaHashSet(this.count === 0 ? 16 : Math.trunc(Math.fround(Math.fround(this.count / LOAD_FACTOR) + 1)));
    for (const key of this.toArray()) copy.add(key);
    return copy;
  }

  /** The keys in iteration order, as a new array (what `[...set]` gives, without the iterator). */
  toArray(): string[] {
    const out: string[] = [];
    const table = this.table;
    if (table === undefined) return out;
    for (let j = 0; j < table.length; j++) {
      const bucket = table[j];
      if (bucket !== undefined) for (let i = 0; i < bucket.length; i++) out.push(bucket[i]!.key);
    }
    return out;
  }

  *[Symbol.iterator](): Iterator<string> {
    if (this.table === undefined) return;
    for (const bucket of this.table) if (bucket !== undefined) for (const e of bucket) yield e.key;
  }

  /** `HashMap.resize`: allocates the first table or doubles it, splitting every bucket in order. */
  private resize(): (Entry[] | undefined)[] {
    const old = this.table;
    if (old === undefined) {
      const capacity = this.threshold;
      this.threshold = Math.floor(capacity * LOAD_FACTOR);
      this.table = new Array<Entry[] | undefined>(capacity).fill(undefined);
      return this.table;
    }
    const oldCap = old.length;
    if (oldCap >= MAXIMUM_CAPACITY) return old;
    const table = new Array<Entry[] | undefined>(oldCap * 2).fill(undefined);
    for (let j = 0; j < oldCap; j++) {
      const bucket = old[j];
      if (bucket === undefined) continue;
      for (const e of bucket) {
        const b = (e.hash & oldCap) === 0 ? j : j + oldCap;
        (table[b] ??= []).push(e);
      }
    }
    this.threshold = Math.floor(oldCap * 2 * LOAD_FACTOR);
    this.table = table;
    return table;
  }
}

/** The position of `key` (with its `hash`) in `bucket`, or -1. */
function indexIn(bucket: readonly Entry[], hash: number, key: string): number {
  for (let i = 0; i < bucket.length; i++) {
    const e = bucket[i]!;
    if (e.hash === hash && e.key === key) return i;
  }
  return -1;
}

/** The hash code Jute generates for the `Id{scheme, id}` record. */
export function javaIdHashCode(scheme: string, id: string): number {
  let result = 17;
  result = (Math.imul(37, result) + javaStringHashCode(scheme)) | 0;
  result = (Math.imul(37, result) + javaStringHashCode(id)) | 0;
  return result;
}

/**
 * Adds `item` to `list`, kept in the iteration order of a Java
 * `Collections.newSetFromMap(new ConcurrentHashMap<>())` (how ServerCnxn keeps a connection's
 * auth identities, which whoAmI lists and CREATOR_ALL_ACL expands in that order): bins of a
 * 16-entry table in index order, each bin in insertion order; false when already present.
 * Past 12 entries the table doubles; the model then orders by the larger table's bins and keeps
 * insertion order inside each (ConcurrentHashMap's transfer may reverse part of a bin; a
 * connection with more than 12 identities is not a case the suite has met).
 */
export function addInJavaConcurrentSetOrder<T>(list: T[], item: T, hashCode: (x: T) => number, equals: (a: T, b: T) => boolean): boolean {
  if (list.some((x) => equals(x, item))) return false;
  list.push(item);
  let capacity = 16;
  while (list.length > capacity - (capacity >>> 2)) capacity *= 2;
  const bin = (x: T) => {
    const h = hashCode(x);
    return ((h ^ (h >>> 16)) & 0x7fffffff) & (capacity - 1);
  };
  // A stable sort by bin keeps each bin's insertion order.
  const ordered = list.map((x, i) => ({ x, i, b: bin(x) })).sort((p, q) => p.b - q.b || p.i - q.i);
  for (let i = 0; i < list.length; i++) list[i] = ordered[i]!.x;
  return true;
}

/** Java's `Long.hashCode()`: the two halves of the 64-bit value xor-ed. */
export function javaLongHashCode(v: bigint): number {
  const u = BigInt.asUintN(64, v);
  return Number(BigInt.asIntN(32, u ^ (u >> 32n)));
}

/**
 * `items` (given in insertion order) in the iteration order of a Java `ConcurrentHashMap` with
 * the default 16 bins holding them as keys: bins in index order (`spread(h) & (n − 1)`, spread
 * = `(h ^ h >>> 16) & 0x7fffffff`), each bin in insertion order; the table doubles when the
 * count reaches 0.75 of it (`addCount`). How DataTree keeps its session → ephemerals map,
 * which `dump` walks. Not modelled: a table that grew and then lost entries (it never shrinks)
 * and the part of a bin a transfer reverses; both need many sessions at once.
 */
export function inJavaConcurrentHashMapOrder<T>(items: readonly T[], hashCode: (x: T) => number): T[] {
  let capacity = 16;
  while (items.length >= capacity - (capacity >>> 2)) capacity *= 2;
  const bin = (x: T) => {
    const h = hashCode(x);
    return ((h ^ (h >>> 16)) & 0x7fffffff) & (capacity - 1);
  };
  return items
    .map((x, i) => ({ x, i, b: bin(x) }))
    .sort((p, q) => p.b - q.b || p.i - q.i)
    .map((e) => e.x);
}

interface HashedKey {
  hash: number;
  key: string;
}

/**
 * The keys of a Java `ConcurrentHashMap<String, …>` in its iteration order, with the history that
 * decides it (OpenJDK 17): a table of 16 bins allocated at the first put, bins walked in index
 * order (`spread(h) & (n − 1)`, spread = `(h ^ h >>> 16) & 0x7fffffff`), a put appended to its
 * bin, a remove unlinking; the table doubles once the count reaches 0.75 of it (`addCount`) and
 * never shrinks. The doubling (`transfer`) splits each bin into a low and a high one: the
 * bin's last run of entries bound for the same half is moved as it is, and every entry before
 * that run is put in front of its half one by one, so their order reverses. That reversal is
 * what makes 3.8's `mntr` print `zk_num_alive_connections` before `zk_avg_latency` on a
 * server's first start and after it once its gauges were registered again (src/serve/mntr-keys.ts).
 * Not modelled: a bin of 8 or more entries in a table of 64 or more becomes a tree.
 */
export class JavaConcurrentHashMapKeys implements Iterable<string> {
  private table: HashedKey[][] | undefined;
  private sizeCtl = 12;
  private count = 0;

  get size(): number {
    return this.count;
  }

  put(key: string): void {
    const table = (this.table ??= Array.from({ length: 16 }, () => []));
    const hash = spread(key) & 0x7fffffff;
    const bin = table[hash & (table.length - 1)]!;
    if (bin.some((e) => e.key === key)) return; // the value is replaced in place
    bin.push({ hash, key });
    if (++this.count >= this.sizeCtl) this.transfer();
  }

  remove(key: string): void {
    if (this.table === undefined) return;
    const hash = spread(key) & 0x7fffffff;
    const bin = this.table[hash & (this.table.length - 1)]!;
    const i = bin.findIndex((e) => e.key === key);
    if (i < 0) return;
    bin.splice(i, 1);
    this.count--;
  }

  *[Symbol.iterator](): Iterator<string> {
    for (const bin of this.table ?? []) for (const e of bin) yield e.key;
  }

  private transfer(): void {
    const old = this.table!;
    const n = old.length;
    const table: HashedKey[][] = Array.from({ length: 2 * n }, () => []);
    for (let i = 0; i < n; i++) {
      const bin = old[i]!;
      if (bin.length === 0) continue;
      let lastRun = 0;
      for (let j = 1; j < bin.length; j++) if ((bin[j]!.hash & n) !== (bin[j - 1]!.hash & n)) lastRun = j;
      const low: HashedKey[] = [];
      const high: HashedKey[] = [];
      ((bin[lastRun]!.hash & n) === 0 ? low : high).push(...bin.slice(lastRun));
      for (let j = 0; j < lastRun; j++) ((bin[j]!.hash & n) === 0 ? low : high).unshift(bin[j]!);
      table[i] = low;
      table[i + n] = high;
    }
    this.table = table;
    this.sizeCtl = 2 * n - (n >>> 1);
  }
}
