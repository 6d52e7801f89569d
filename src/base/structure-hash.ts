/**
 * The structural hash behind the trace hash: a two-lane 32-bit mixer over words, numbers,
 * strings and structured values, FNV-1a for strings, and canonical JSON. Pure functions at the
 * base of every layer, so protocol code can digest a value (a txn's content) the same way the
 * trace does without importing the trace.
 *
 * Invariants: the same value gives the same hash in any process; plain objects are folded in
 * the key order the producing code wrote them.
 */

/** The lanes of a fresh mixer. */
const LANE1_START = 0x811c9dc5 | 0;
const LANE2_START = 0x1b873593 | 0;

/**
 * The two-lane 32-bit mixer behind the trace hash and `hashStructure`: words, numbers, strings
 * and structured values (plain objects in key order, arrays, byte arrays) folded in one
 * canonical sequence, with no string building.
 */
export class Mixer {
  /**
   * The two lanes, h1 and h2, in a typed array: an int32 in a plain field is no small integer
   * to V8 (31 bits) and would be kept boxed, so every word mixed paid two boxed loads and stores.
   * Protected: the trace folds an event's words in locals and stores the lanes once.
   */
  protected readonly mixLanes = Int32Array.of(LANE1_START, LANE2_START);

  /** Back to the lanes of a fresh mixer. */
  protected resetLanes(): void {
    this.mixLanes[0] = LANE1_START;
    this.mixLanes[1] = LANE2_START;
  }

  protected get h1(): number {
    return this.mixLanes[0]!;
  }

  protected get h2(): number {
    return this.mixLanes[1]!;
  }

  /**
   * Folds one word into the lanes. The fold is written out again wherever words are folded in a
   * loop with the lanes in locals (`foldWords`, the trace's `mixCachedFields`): a call per word
   * costs more than the fold itself, and the compiler does not reliably inline one in those hot
   * functions. Any change here changes every trace hash (the pinned hashes of test/sim and
   * test/scenario catch a copy that differs).
   */
  protected mixWord(w: number): void {
    const lanes = this.mixLanes;
    let h1 = lanes[0]! ^ w;
    h1 = Math.imul(h1, 0x85ebca6b);
    h1 = (h1 << 13) | (h1 >>> 19);
    let h2 = (lanes[1]! + w) | 0;
    h2 = Math.imul(h2 ^ (h2 >>> 16), 0xc2b2ae35);
    h2 = Math.imul(h2 ^ h1, 0xcc9e2d51);
    lanes[0] = h1;
    lanes[1] = h2 ^ (h2 >>> 13);
  }

  /**
   * Folds annotation fields in their canonical form — keys in the order the producing code
   * wrote them, each with its value — without building a JSON string: primitives are mixed
   * directly, nested objects through canonical JSON.
   */
  protected mixFields(fields: Record<string, unknown>): void {
    for (const key in fields) {
      const v = fields[key];
      if (v === undefined) continue;
      this.mixWord(this.stringHash(key));
      this.mixValue(v);
    }
  }

  /** One value of the canonical form: primitives directly, plain objects and arrays structurally. */
  protected mixValue(v: unknown): void {
    switch (typeof v) {
      case "number":
        this.mixNumber(v);
        return;
      case "string":
        this.mixWord(hashString(v));
        return;
      case "boolean":
        this.mixWord(v ? 1 : 2);
        return;
      case "bigint":
        this.mixWord(hashString(v.toString(16)));
        return;
      case "undefined":
        this.mixWord(3);
        return;
    }
    if (v === null) {
      this.mixWord(4);
    } else if (Array.isArray(v)) {
      this.mixWord(5);
      this.mixNumber(v.length);
      for (const x of v) this.mixValue(x);
    } else if (v instanceof Uint8Array) {
      this.mixWord(8);
      this.mixBytes(v);
    } else if (isPlainObject(v)) {
      this.mixWord(6);
      this.mixFields(v as Record<string, unknown>);
      this.mixWord(7);
    } else {
      this.mixWord(hashString(canonicalJson(v)));
    }
  }

  protected mixNumber(x: number): void {
    // `x >>> 0 === x`: x is an integer in [0, 2^32) (the common case: indexes, times, ids).
    if (x >>> 0 === x) {
      this.mixWord(x | 0);
      return;
    }
    this.foldWords(this.numberScratch, numberWords(x, this.numberScratch, 0));
  }

  /** `numberWords`' output for `mixNumber`'s longer forms. */
  private readonly numberScratch = new Int32Array(2);

  /**
   * Folds `words[0..n)` in order, as that many `mixWord` calls would: the lanes in locals over
   * the loop, loaded and stored once.
   */
  protected foldWords(words: Int32Array, n: number): void {
    const lanes = this.mixLanes;
    let h1 = lanes[0]!;
    let h2 = lanes[1]!;
    for (let i = 0; i < n; i++) {
      const w = words[i]!;
      // `mixWord`'s fold.
      h1 = Math.imul(h1 ^ w, 0x85ebca6b);
      h1 = (h1 << 13) | (h1 >>> 19);
      h2 = (h2 + w) | 0;
      h2 = Math.imul(h2 ^ (h2 >>> 16), 0xc2b2ae35);
      h2 = Math.imul(h2 ^ h1, 0xcc9e2d51);
      h2 ^= h2 >>> 13;
    }
    lanes[0] = h1;
    lanes[1] = h2;
  }

  /** Bytes as their length and then big-endian 32-bit words (the tail zero-padded). */
  protected mixBytes(b: Uint8Array): void {
    const n = b.length;
    this.mixWord(n);
    let i = 0;
    for (; i + 4 <= n; i += 4) this.mixWord((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!);
    if (i < n) {
      let tail = 0;
      for (let k = 0; k < 4; k++) tail = (tail << 8) | (i + k < n ? b[i + k]! : 0);
      this.mixWord(tail);
    }
  }

  protected stringHash(s: string): number {
    return hashString(s);
  }
}

/**
 * The words of number `x` in the canonical form, written to `out` from `at`; returns the
 * position after them. An integer in [0, 2^32) is one word (the common case: indexes, times,
 * ids); another safe integer its low and high 32 bits; any other number the hash of its
 * decimal text.
 */
export function numberWords(x: number, out: Int32Array, at: number): number {
  if (x >>> 0 === x) {
    out[at] = x | 0;
    return at + 1;
  }
  if (Number.isSafeInteger(x)) {
    out[at] = x % 0x100000000 | 0;
    out[at + 1] = Math.floor(x / 0x100000000) | 0;
    return at + 2;
  }
  out[at] = hashString(String(x));
  return at + 1;
}

/** A 32-bit hash of a structured value, in the trace's canonical form (e.g. a txn's content). */
export function hashStructure(value: unknown): number {
  return structureHasher.hash(value);
}

class StructureHasher extends Mixer {
  /** The hash of `value` alone: the lanes start afresh (one hasher serves every call; nothing in `mixValue` calls back here). */
  hash(value: unknown): number {
    this.resetLanes();
    this.mixValue(value);
    return (this.h1 ^ this.h2) >>> 0;
  }
}

/** Shared: a typed array allocated per call was most of a small value's hashing cost. */
const structureHasher = new StructureHasher();

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

/** 32-bit FNV-1a over UTF-16 code units, with a final avalanche. */
export function hashString(s: string): number {
  // `| 0`: the offset basis as an int32 (the same bits), so V8 keeps `h` a machine integer.
  let h = 0x811c9dc5 | 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h | 0;
}

/**
 * Canonical JSON: keys in the order the producing code wrote them (deterministic, since the
 * same code produces them), bigint as a decimal string with an `n` suffix, byte arrays as hex.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, jsonReplacer);
}

function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return `${value}n`;
  if (value instanceof Uint8Array) return Buffer.from(value).toString("hex");
  if (value instanceof Map) return Object.fromEntries(value);
  if (value instanceof Set) return [...value];
  return value;
}
