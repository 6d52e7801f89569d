/**
 * Jute binary encoding (docs/zookeeper.md §9.1), as `org.apache.jute.BinaryOutputArchive` /
 * `BinaryInputArchive` of ZooKeeper 3.8 write and read it: big-endian `int` (4 bytes),
 * `long` (8), `boolean` (1 byte), `ustring` and `buffer` as an int length (−1 = null) plus
 * bytes, `vector` as an int count (−1 = null) plus elements. Records are their fields in
 * declaration order, with no tags.
 *
 * Invariants and Java quirks reproduced on purpose:
 * - Strings are written the way `BinaryOutputArchive.stringToByteBuffer` does: each UTF-16
 *   code unit on its own (1–3 bytes), so a surrogate pair becomes two 3-byte sequences
 *   (CESU-8), not one 4-byte UTF-8 sequence. They are read with Java's
 *   `new String(bytes, UTF_8)` replacement rules, so such a pair reads back as two U+FFFD,
 *   exactly as a real 3.8 server mangles it. A leading BOM is kept.
 * - `readBool` is true for any non-zero byte (`DataInput.readBoolean`).
 * - A vector count of −1 is Java's null and any other negative count an empty vector; the
 *   records in `records.ts`/`packets.ts` have no null vectors, so both read as `[]`.
 * - Reading never throws a RangeError: every read is bounds-checked and a short or
 *   malformed input raises a `JuteError` naming the field, which the server answers with
 *   MARSHALLINGERROR (or by closing the connection, as Java does for framing errors).
 * - Longs are `bigint`. Millisecond quantities that are longs on the wire (times, TTLs) are
 *   `number` in the records; `readLongNumber` converts them and is exact up to 2^53.
 *
 * `JuteSink` is what record writers target: `JuteWriter` fills a growable buffer and
 * `JuteSizer` only counts bytes, so a packet's size comes from the very same writer code
 * that encodes it, without allocating.
 */
import { invariant } from "../../base/errors.js";

export type JuteErrorReason =
  /** The input ended inside a field. */
  | "truncated"
  /** A value that no well-formed packet carries (bad length, unknown sub-op type, …). */
  | "malformed"
  /** A well-formed packet whose operation this codec does not model (e.g. reconfig, sasl). */
  | "unsupported"
  /** A frame length beyond jute.maxbuffer (the server closes the connection). */
  | "oversize";

/** A typed decoding failure: the expected result of reading bad bytes, never a crash. */
export class JuteError extends Error {
  override readonly name = "JuteError";
  constructor(
    readonly reason: JuteErrorReason,
    /** The field being read, e.g. `CreateRequest.path`. */
    readonly field: string,
    detail: string,
    /** Byte offset in the decoded payload where the problem was found. */
    readonly offset: number,
  ) {
    super(`${field}: ${detail} (${reason} at offset ${offset})`);
  }
}

export function isJuteError(err: unknown): err is JuteError {
  return err instanceof JuteError;
}

// ---- strings ------------------------------------------------------------------------------

/** Bytes `BinaryOutputArchive.writeString` produces for `s` (each UTF-16 unit on its own). */
export function juteStringByteLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) n += c < 0x800 ? 1 : 2;
  }
  return n;
}

function writeJavaChars(buf: Uint8Array, at: number, s: string): number {
  let p = at;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      buf[p++] = c;
    } else if (c < 0x800) {
      buf[p++] = 0xc0 | (c >> 6);
      buf[p++] = 0x80 | (c & 0x3f);
    } else {
      buf[p++] = 0xe0 | (c >> 12);
      buf[p++] = 0x80 | ((c >> 6) & 0x3f);
      buf[p++] = 0x80 | (c & 0x3f);
    }
  }
  return p;
}

const REPL = 0xfffd;
const isCont = (b: number): boolean => (b & 0xc0) === 0x80;

/**
 * `new String(bytes, StandardCharsets.UTF_8)` of JDK 17 (`String.decodeUTF8_UTF16`),
 * including where it puts U+FFFD and how many bytes each malformed sequence swallows.
 */
export function decodeJavaUtf8(bytes: Uint8Array, start: number, end: number): string {
  let ascii = true;
  // FNV-1a of the bytes, for the recent-strings table (see `asciiString`).
  let h = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) {
    const b = bytes[i]!;
    if (b >= 0x80) {
      ascii = false;
      break;
    }
    h = Math.imul(h ^ b, 0x01000193);
  }
  if (ascii) return asciiString(bytes, start, end, h);
  const out: number[] = [];
  let sp = start;
  while (sp < end) {
    const b1 = bytes[sp++]!;
    if (b1 < 0x80) {
      out.push(b1);
    } else if (b1 >= 0xc2 && b1 <= 0xdf) {
      if (sp < end) {
        const b2 = bytes[sp]!;
        if (isCont(b2)) {
          out.push(((b1 & 0x1f) << 6) | (b2 & 0x3f));
          sp++;
        } else {
          out.push(REPL);
        }
        continue;
      }
      out.push(REPL);
      break;
    } else if (b1 >= 0xe0 && b1 <= 0xef) {
      sp = decode3(bytes, sp, end, b1, out);
      if (sp < 0) break;
    } else if (b1 >= 0xf0 && b1 <= 0xf7) {
      sp = decode4(bytes, sp, end, b1, out);
      if (sp < 0) break;
    } else {
      out.push(REPL);
    }
  }
  return fromCharCodes(out);
}

/** One 3-byte lead at `sp - 1`; returns the next offset, or −1 when Java stops decoding. */
function decode3(bytes: Uint8Array, sp: number, end: number, b1: number, out: number[]): number {
  const overlong = (b2: number): boolean => b1 === 0xe0 && (b2 & 0xe0) === 0x80;
  if (sp + 1 < end) {
    const b2 = bytes[sp]!;
    const b3 = bytes[sp + 1]!;
    if (overlong(b2) || !isCont(b2) || !isCont(b3)) {
      out.push(REPL);
      return overlong(b2) || !isCont(b2) ? sp : sp + 1;
    }
    const c = ((b1 & 0x0f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
    out.push(c >= 0xd800 && c <= 0xdfff ? REPL : c);
    return sp + 2;
  }
  if (sp < end && (overlong(bytes[sp]!) || !isCont(bytes[sp]!))) {
    out.push(REPL);
    return sp;
  }
  out.push(REPL);
  return -1;
}

/** One 4-byte lead at `sp - 1`; returns the next offset, or −1 when Java stops decoding. */
function decode4(bytes: Uint8Array, sp: number, end: number, b1: number, out: number[]): number {
  const badSecond = (b2: number): boolean =>
    b1 > 0xf4 || (b1 === 0xf0 && (b2 < 0x90 || b2 > 0xbf)) || (b1 === 0xf4 && (b2 & 0xf0) !== 0x80) || !isCont(b2);
  if (sp + 2 < end) {
    const b2 = bytes[sp]!;
    const b3 = bytes[sp + 1]!;
    const b4 = bytes[sp + 2]!;
    const uc = ((b1 & 0x07) << 18) | ((b2 & 0x3f) << 12) | ((b3 & 0x3f) << 6) | (b4 & 0x3f);
    if (!isCont(b2) || !isCont(b3) || !isCont(b4) || uc < 0x10000 || uc > 0x10ffff) {
      out.push(REPL);
      if (badSecond(b2)) return sp;
      return isCont(b3) ? sp + 2 : sp + 1;
    }
    const u = uc - 0x10000;
    out.push(0xd800 | (u >> 10), 0xdc00 | (u & 0x3ff));
    return sp + 3;
  }
  if (b1 > 0xf4 || (sp < end && badSecond(bytes[sp]!))) {
    out.push(REPL);
    return sp;
  }
  sp++;
  out.push(REPL);
  if (sp < end && !isCont(bytes[sp]!)) return sp;
  return -1;
}

/**
 * Recently decoded short ASCII strings, direct-mapped by a hash of their bytes. The same paths
 * and child names cross the wire over and over: a hit returns the string already built (no
 * allocation, and its hash is already computed for the Map lookups it will meet). A bounded
 * table, and a slot only ever holds a string equal to what is being decoded, so the decoded
 * value never depends on what was decoded before.
 */
const RECENT_STRING_SLOTS = 1024;
const RECENT_STRING_MAX_LENGTH = 64;
const recentStrings: string[] = new Array<string>(RECENT_STRING_SLOTS).fill("");

function asciiString(bytes: Uint8Array, start: number, end: number, hash: number): string {
  const n = end - start;
  if (n > RECENT_STRING_MAX_LENGTH) return latin1(bytes, start, end);
  const slot = (hash ^ (hash >>> 16)) & (RECENT_STRING_SLOTS - 1);
  const recent = recentStrings[slot]!;
  if (recent.length === n) {
    let i = 0;
    while (i < n && recent.charCodeAt(i) === bytes[start + i]) i++;
    if (i === n) return recent;
  }
  const s = latin1(bytes, start, end);
  recentStrings[slot] = s;
  return s;
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= 64) {
    // Short strings (paths, names): a plain loop beats building an array for apply().
    let short = "";
    for (let i = start; i < end; i++) short += String.fromCharCode(bytes[i]!);
    return short;
  }
  let s = "";
  for (let i = start; i < end; i += 4096) {
    s += String.fromCharCode.apply(null, Array.from(bytes.subarray(i, Math.min(end, i + 4096))));
  }
  return s;
}

function fromCharCodes(codes: number[]): string {
  let s = "";
  for (let i = 0; i < codes.length; i += 4096) {
    s += String.fromCharCode.apply(null, codes.slice(i, i + 4096));
  }
  return s;
}

// ---- writing ------------------------------------------------------------------------------

/** A destination for Jute primitives: a real buffer or a byte counter. */
export interface JuteSink {
  writeInt(n: number): void;
  writeLong(n: bigint): void;
  /** A Jute `long` carried as a `number` (milliseconds, TTLs); must be a safe integer. */
  writeLongNumber(n: number): void;
  writeBool(b: boolean): void;
  writeBuffer(b: Uint8Array | null): void;
  writeUString(s: string | null): void;
  writeVector<T>(items: readonly T[] | null, writeItem: (sink: JuteSink, item: T) => void): void;
  writeStringVector(items: readonly string[] | null): void;
}

// Assertions on hot paths test first and build their message only on failure.
function assertInt(n: number): void {
  if ((n | 0) !== n) invariant(false, `Jute int must be a signed 32-bit integer, got ${n}`);
}
function assertLongNumber(n: number): void {
  if (!Number.isSafeInteger(n)) invariant(false, `Jute long carried as number must be a safe integer, got ${n}`);
}

const TWO_32 = 4294967296;

/** V8 allocates typed arrays up to this size on its heap (cheap); larger ones off-heap. */
const ON_HEAP_BYTES = 64;
const SLAB_BYTES = 64 * 1024;
let slab = new ArrayBuffer(SLAB_BYTES);
let slabOffset = 0;

/** Encodes into a growable big-endian buffer. */
export class JuteWriter implements JuteSink {
  private buf: Uint8Array;
  private dataView: DataView;
  private pos = 0;

  constructor(initialCapacityBytes = 256) {
    this.buf = new Uint8Array(Math.max(16, initialCapacityBytes));
    this.dataView = new DataView(this.buf.buffer);
  }

  get length(): number {
    return this.pos;
  }

  /** Starts over (the buffer is kept: a reused scratch writer allocates nothing per frame). */
  reset(): void {
    this.pos = 0;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.dataView = new DataView(next.buffer);
  }

  writeInt(n: number): void {
    assertInt(n);
    this.ensure(4);
    this.dataView.setInt32(this.pos, n);
    this.pos += 4;
  }

  writeLong(n: bigint): void {
    this.ensure(8);
    this.dataView.setBigInt64(this.pos, BigInt.asIntN(64, n));
    this.pos += 8;
  }

  writeLongNumber(n: number): void {
    assertLongNumber(n);
    this.ensure(8);
    const hi = Math.floor(n / TWO_32);
    this.dataView.setInt32(this.pos, hi);
    this.dataView.setUint32(this.pos + 4, n - hi * TWO_32);
    this.pos += 8;
  }

  writeBool(b: boolean): void {
    this.ensure(1);
    this.buf[this.pos++] = b ? 1 : 0;
  }

  writeBuffer(b: Uint8Array | null): void {
    if (b === null) return this.writeInt(-1);
    this.writeInt(b.length);
    this.writeRaw(b);
  }

  writeUString(s: string | null): void {
    if (s === null) return this.writeInt(-1);
    const n = juteStringByteLength(s);
    this.writeInt(n);
    this.ensure(n);
    this.pos = writeJavaChars(this.buf, this.pos, s);
  }

  writeVector<T>(items: readonly T[] | null, writeItem: (sink: JuteSink, item: T) => void): void {
    if (items === null) return this.writeInt(-1);
    this.writeInt(items.length);
    for (const item of items) writeItem(this, item);
  }

  writeStringVector(items: readonly string[] | null): void {
    if (items === null) return this.writeInt(-1);
    this.writeInt(items.length);
    for (const s of items) this.writeUString(s);
  }

  /** Raw bytes with no length prefix (framing). */
  writeRaw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Overwrites a previously written int (e.g. a frame length) at byte offset `at`. */
  patchInt(at: number, n: number): void {
    assertInt(n);
    if (at < 0 || at + 4 > this.pos) invariant(false, `patchInt outside written bytes: ${at}`);
    this.dataView.setInt32(at, n);
  }

  /**
   * A copy of the bytes written so far, sized exactly. Copies over 64 bytes are carved from a
   * shared 64 KiB slab (as Node's Buffer pool does): V8 gives every larger standalone typed
   * array its own off-heap backing store, which costs several times the copy.
   */
  toBytes(): Uint8Array {
    const n = this.pos;
    if (n <= ON_HEAP_BYTES || n > SLAB_BYTES / 8) return this.buf.slice(0, n);
    if (slabOffset + n > SLAB_BYTES) {
      slab = new ArrayBuffer(SLAB_BYTES);
      slabOffset = 0;
    }
    const out = new Uint8Array(slab, slabOffset, n);
    out.set(this.buf.subarray(0, n));
    slabOffset += (n + 7) & ~7;
    return out;
  }

  /** The bytes written so far without copying (aliases the internal buffer). */
  view(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}

/** Counts the bytes a `JuteWriter` would produce, without allocating. */
export class JuteSizer implements JuteSink {
  size = 0;
  writeInt(n: number): void {
    assertInt(n);
    this.size += 4;
  }
  writeLong(_n: bigint): void {
    this.size += 8;
  }
  writeLongNumber(n: number): void {
    assertLongNumber(n);
    this.size += 8;
  }
  writeBool(_b: boolean): void {
    this.size += 1;
  }
  writeBuffer(b: Uint8Array | null): void {
    this.size += b === null ? 4 : 4 + b.length;
  }
  writeUString(s: string | null): void {
    this.size += s === null ? 4 : 4 + juteStringByteLength(s);
  }
  writeVector<T>(items: readonly T[] | null, writeItem: (sink: JuteSink, item: T) => void): void {
    this.size += 4;
    if (items !== null) for (const item of items) writeItem(this, item);
  }
  writeStringVector(items: readonly string[] | null): void {
    this.size += 4;
    if (items !== null) for (const s of items) this.size += 4 + juteStringByteLength(s);
  }
}

// ---- reading ------------------------------------------------------------------------------

/** A big-endian signed 32-bit int at `p` (bounds already checked). */
function int32At(b: Uint8Array, p: number): number {
  return (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
}

/**
 * The name a failure reports: `field`, or `field.sub` when the caller names a record and its
 * member separately — so the hot path passes two constant strings and the name is only built
 * when an error needs it.
 */
function nameOf(field: string, sub: string | undefined): string {
  return sub === undefined ? field : `${field}.${sub}`;
}

/**
 * Bounds-checked reader over one payload; every failure is a `JuteError`. Each read takes the
 * field's name as `field` (or as a record name `field` plus a member `sub`, joined with a dot).
 */
export class JuteReader {
  private pos: number;
  private readonly end: number;

  constructor(
    private readonly bytes: Uint8Array,
    start = 0,
    end = bytes.length,
  ) {
    // No DataView: one per decoded frame was a measurable share of a round trip.
    this.pos = start;
    this.end = end;
  }

  get offset(): number {
    return this.pos;
  }
  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number, field: string, sub: string | undefined): void {
    if (this.end - this.pos < n) {
      throw new JuteError("truncated", nameOf(field, sub), `needs ${n} bytes, ${this.end - this.pos} left`, this.pos);
    }
  }

  /** Throws a `malformed` JuteError at the current offset. */
  fail(field: string, detail: string, reason: JuteErrorReason = "malformed"): never {
    throw new JuteError(reason, field, detail, this.pos);
  }

  readInt(field: string, sub?: string): number {
    this.need(4, field, sub);
    const n = int32At(this.bytes, this.pos);
    this.pos += 4;
    return n;
  }

  readLong(field: string, sub?: string): bigint {
    this.need(8, field, sub);
    const hi = int32At(this.bytes, this.pos);
    const lo = int32At(this.bytes, this.pos + 4) >>> 0;
    this.pos += 8;
    // Small non-negative longs (most zxids, times, counters) skip the BigInt arithmetic.
    if (hi === 0 && lo === 0) return 0n;
    if (hi >= 0 && hi < 0x200000) return BigInt(hi * 0x100000000 + lo);
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  /** A long as a number: exact within ±2^53, rounded beyond (Java would keep all bits). */
  readLongNumber(field: string, sub?: string): number {
    this.need(8, field, sub);
    const hi = int32At(this.bytes, this.pos);
    const lo = int32At(this.bytes, this.pos + 4) >>> 0;
    this.pos += 8;
    return hi * TWO_32 + lo;
  }

  readBool(field: string, sub?: string): boolean {
    this.need(1, field, sub);
    return this.bytes[this.pos++] !== 0;
  }

  /** Length of a string/buffer: −1 is null; other negatives and overruns are errors. */
  private readLength(field: string, sub: string | undefined): number {
    const at = this.pos;
    const len = this.readInt(field, sub);
    if (len === -1) return -1;
    if (len < 0) throw new JuteError("malformed", nameOf(field, sub), `unreasonable length ${len}`, at);
    if (len > this.end - this.pos) {
      throw new JuteError("truncated", nameOf(field, sub), `length ${len} exceeds the ${this.end - this.pos} bytes left`, at);
    }
    return len;
  }

  /** A copy of the bytes, so a record never aliases a frame buffer. */
  readBuffer(field: string, sub?: string): Uint8Array | null {
    const len = this.readLength(field, sub);
    if (len === -1) return null;
    const b = this.bytes.slice(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }

  /** A buffer where the record has no null: Java's null reads as empty bytes. */
  readBufferNonNull(field: string, sub?: string): Uint8Array {
    return this.readBuffer(field, sub) ?? new Uint8Array(0);
  }

  readUString(field: string, sub?: string): string | null {
    const len = this.readLength(field, sub);
    if (len === -1) return null;
    const s = decodeJavaUtf8(this.bytes, this.pos, this.pos + len);
    this.pos += len;
    return s;
  }

  /** A string where the record has no null: a null string is malformed. */
  readString(field: string, sub?: string): string {
    const at = this.pos;
    const s = this.readUString(field, sub);
    if (s === null) throw new JuteError("malformed", nameOf(field, sub), "null string where a value is required", at);
    return s;
  }

  /** A vector; Java's null (−1) and negative counts read as empty (see header). */
  readVector<T>(field: string, readItem: (r: JuteReader, index: number) => T, sub?: string): T[] {
    const count = this.readCount(field, sub);
    const out: T[] = [];
    for (let i = 0; i < count; i++) out.push(readItem(this, i));
    return out;
  }

  /** A vector's element count, 0 for Java's null and negative counts. */
  private readCount(field: string, sub: string | undefined): number {
    const at = this.pos;
    const count = this.readInt(field, sub);
    if (count <= 0) return 0;
    // Every element takes at least one byte, so a larger count cannot be satisfied.
    if (count > this.end - this.pos) {
      throw new JuteError("truncated", nameOf(field, sub), `count ${count} exceeds the ${this.end - this.pos} bytes left`, at);
    }
    return count;
  }

  /** Strings named `field[i]`: the element names are built only if an element is bad. */
  readStringVector(field: string, sub?: string): string[] {
    const count = this.readCount(field, sub);
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      const at = this.pos;
      const len = this.readLengthOfElement(field, sub, i);
      if (len === -1) throw new JuteError("malformed", `${nameOf(field, sub)}[${i}]`, "null string where a value is required", at);
      out.push(decodeJavaUtf8(this.bytes, this.pos, this.pos + len));
      this.pos += len;
    }
    return out;
  }

  /** `readLength` of element `i` of a vector, named `field[i]` (built only on failure). */
  private readLengthOfElement(field: string, sub: string | undefined, i: number): number {
    if (this.end - this.pos >= 4) {
      const len = int32At(this.bytes, this.pos);
      if (len >= -1 && len <= this.end - this.pos - 4) {
        this.pos += 4;
        return len;
      }
    }
    return this.readLength(`${nameOf(field, sub)}[${i}]`, undefined);
  }
}
