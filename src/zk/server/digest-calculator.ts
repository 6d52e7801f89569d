/**
 * `DigestCalculator` and the tree digest (ZOOKEEPER-3114, ZooKeeper 3.6+): an order-independent
 * digest of the replicated state, kept up to date on every change instead of recomputed.
 *
 * Each node but those under /zookeeper (as in 3.8) contributes a 64-bit hash of its path,
 * persisted stat, number of children, ACL and data; each session a hash of (id, timeout). The tree digest is the sum of the contributions
 * in two independent 32-bit lanes, so a change costs O(1): the DataTree removes the node's old
 * contribution before it mutates the node and adds the new one after (Java's
 * `NodeHashMap.preChange` / `postChange`). Equal digests at equal zxids mean equal replicated
 * state; the order in which replicas built their trees does not matter.
 *
 * Java's calculator hashes path, stat and data with CRC32; this one also folds in the ACL and
 * the child count, so a replica whose parent/child links diverged is caught too.
 *
 * Invariant: `digest` equals `TreeDigest.of(tree)` recomputed from scratch (tested).
 */
import type { ACL, SessionId } from "../proto/records.js";
import type { StatPersisted } from "./data-tree.js";

/** What a node contributes; `DataNode` satisfies it. */
export interface DigestedNode {
  readonly data: Uint8Array | null;
  readonly acl: readonly ACL[];
  readonly stat: StatPersisted;
  readonly children: { readonly size: number };
  /** The contribution last added for this node, so removing it needs no re-hash. */
  digestLo: number;
  digestHi: number;
  /** The path the lanes below were computed for (undefined until the node is first hashed). */
  hashedPath: string | undefined;
  /** The two lanes right after hashing `hashedPath`: they depend on the path alone. */
  pathH1: number;
  pathH2: number;
}

// The two lanes of the hash being computed (module state: no allocation per node).
let h1 = 0;
let h2 = 0;

function begin(tag: number): void {
  h1 = 0x9747b28c ^ tag;
  h2 = 0x2f1a3c5d ^ tag;
}

function word(w: number): void {
  let a = Math.imul(h1 ^ w, 0x85ebca6b);
  a = (a << 13) | (a >>> 19);
  let b = (h2 + w) | 0;
  b = Math.imul(b ^ (b >>> 16), 0xc2b2ae35);
  h1 = a;
  h2 = b ^ a;
}

function avalanche(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

function str(s: string): void {
  word(s.length);
  for (let i = 0; i < s.length; i++) word(s.charCodeAt(i));
}

function long(x: bigint): void {
  // A node's zxids are mostly one value (czxid = mzxid = pzxid when created) and its owner
  // mostly 0: those skip the BigInt-to-number conversion, a runtime call.
  if (x === 0n) {
    word(0);
    word(0);
    return;
  }
  if (x === lastLong) {
    word(lastLongLo);
    word(lastLongHi);
    return;
  }
  // Zxids and times are small non-negative longs: split them as a number (exact below 2^53),
  // without the three BigInt allocations of the general case.
  if (x >= 0n && x <= MAX_SAFE) {
    const n = Number(x);
    const hi = Math.floor(n / TWO_32);
    lastLong = x;
    lastLongLo = lowWord(n, hi) | 0;
    lastLongHi = hi | 0;
    word(lastLongLo);
    word(lastLongHi);
    return;
  }
  word(Number(BigInt.asUintN(32, x)));
  word(Number(BigInt.asUintN(32, x >> 32n)));
}
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
// The last long split by `long` (one entry: a pure function's memo, so no state leaks between runs).
let lastLong = 0n;
let lastLongLo = 0;
let lastLongHi = 0;
const TWO_32 = 4294967296;

/** A time in ms as its low and high 32-bit words (`word` reads both as int32s). */
function time(t: number): void {
  const hi = Math.floor(t / TWO_32);
  word(lowWord(t, hi));
  word(hi);
}

/**
 * `t % 2^32`, given `hi = floor(t / 2^32)`: for t ≥ 0 computed as t − hi·2^32, the same value
 * without the floating-point modulo (a C call).
 */
function lowWord(t: number, hi: number): number {
  return t >= 0 ? t - hi * TWO_32 : t % TWO_32;
}

function bytes(b: Uint8Array | null): void {
  // Like Java's calculator, null data hashes as empty data.
  const n = b === null ? 0 : b.length;
  word(n);
  let i = 0;
  for (; i + 4 <= n; i += 4) word((b![i]! << 24) | (b![i + 1]! << 16) | (b![i + 2]! << 8) | b![i + 3]!);
  let tail = 0;
  for (; i < n; i++) tail = (tail << 8) | b![i]!;
  word(tail);
}

const NODE = 1;
const SESSION = 2;

export class TreeDigest {
  private lo = 0;
  private hi = 0;

  addNode(path: string, node: DigestedNode): void {
    if (outsideDigest(path)) {
      node.digestLo = 0;
      node.digestHi = 0;
      return;
    }
    hashNode(path, node, true);
    node.digestLo = avalanche(h1);
    node.digestHi = avalanche(h2);
    this.lo = (this.lo + node.digestLo) >>> 0;
    this.hi = (this.hi + node.digestHi) >>> 0;
  }

  /** Removes the contribution `addNode` last added for this node. */
  removeNode(node: DigestedNode): void {
    this.lo = (this.lo - node.digestLo) >>> 0;
    this.hi = (this.hi - node.digestHi) >>> 0;
  }

  addSession(sessionId: SessionId, timeoutMs: number): void {
    hashSession(sessionId, timeoutMs);
    this.fold(1);
  }

  removeSession(sessionId: SessionId, timeoutMs: number): void {
    hashSession(sessionId, timeoutMs);
    this.fold(-1);
  }

  /** Adds (+1) or subtracts (−1) the hash just computed, lane by lane. */
  private fold(sign: 1 | -1): void {
    this.lo = (this.lo + sign * avalanche(h1)) >>> 0;
    this.hi = (this.hi + sign * avalanche(h2)) >>> 0;
  }

  /** 16 hex digits. */
  toString(): string {
    return this.hi.toString(16).padStart(8, "0") + this.lo.toString(16).padStart(8, "0");
  }

  /** The digest recomputed from scratch over `nodes` and `sessions`. */
  static of(nodes: Iterable<[string, DigestedNode]>, sessions: Iterable<[SessionId, number]>): TreeDigest {
    const d = new TreeDigest();
    for (const [path, node] of nodes) {
      if (outsideDigest(path)) continue;
      hashNode(path, node, false);
      d.fold(1);
    }
    for (const [id, timeoutMs] of sessions) d.addSession(id, timeoutMs);
    return d;
  }
}

/**
 * 3.8's calculator leaves out every path that starts with "/zookeeper" (the node itself, its
 * quota subtree and /zookeeper/config, which each server fills locally with its own mtime):
 * those are not replicated state the digest can compare.
 */
function outsideDigest(path: string): boolean {
  return path.startsWith("/zookeeper");
}

/** Hashes a node into the lanes; `cachedPath`: resume from the node's cached path lanes when it has them. */
function hashNode(path: string, node: DigestedNode, cachedPath: boolean): void {
  // A parent is re-hashed on every child create/delete: its path's lanes are kept on the node
  // (a node's path never changes) instead of hashing the path again each time.
  if (cachedPath && node.hashedPath === path) {
    h1 = node.pathH1;
    h2 = node.pathH2;
  } else {
    begin(NODE);
    str(path);
    if (cachedPath) {
      node.hashedPath = path;
      node.pathH1 = h1;
      node.pathH2 = h2;
    }
  }
  const s = node.stat;
  long(s.czxid);
  long(s.mzxid);
  long(s.pzxid);
  long(s.ephemeralOwner);
  time(s.ctime);
  time(s.mtime);
  word(s.version);
  word(s.cversion);
  word(s.aversion);
  word(node.children.size);
  word(node.acl.length);
  for (const a of node.acl) {
    word(a.perms);
    str(a.id.scheme);
    str(a.id.id);
  }
  bytes(node.data);
}

function hashSession(sessionId: SessionId, timeoutMs: number): void {
  begin(SESSION);
  long(sessionId);
  word(timeoutMs);
}
