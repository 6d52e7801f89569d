/**
 * An immutable ZooKeeper data tree, the state of the sequential reference model (`zk-model`).
 *
 * Written from docs/zookeeper.md §1 (data model), §4 (multi) and §5 (ACLs), independently of
 * `zk/server`: a flat map from path to node; a write copies the map once (copy-on-write through
 * `Draft`) and never touches the original, so a state may be shared by many search branches.
 *
 * Kept per node: data, version, aversion, the *stored* cversion (child creations ever, which
 * also numbers sequential children, §1.3), its kind (persistent, ephemeral with its owning
 * session, container, TTL with its ttl), its stored ACL (after the create's fix-up), the sorted
 * child names, and the Stat's zxids and times. A zxid is the op's reply zxid (a write's own txn);
 * an indeterminate op's is not known (`undefined`), and neither are the leader's clock readings
 * (ctime, mtime): such a field is learned from the first Stat that shows it, and every later
 * Stat must agree (`bind` in zk-model).
 *
 * Invariants: "/" exists; every other node's parent exists and lists it among its children;
 * an ephemeral has no children.
 */
export type NodeKind = "persistent" | "ephemeral" | "container" | "ttl";

export interface ZNode {
  readonly data: string;
  readonly version: number;
  /** Stored cversion: child creations ever (sequence numbers); clients see 2·this − numChildren. */
  readonly cversion: number;
  readonly aversion: number;
  readonly kind: NodeKind;
  /** Owning session of an ephemeral, undefined otherwise. */
  readonly owner: string | undefined;
  /** A TTL node's time to live (ms); 0 for other kinds. */
  readonly ttlMs: number;
  /** The stored ACL as canonical text (`aclKey`), or undefined when it is not known. */
  readonly acl: string | undefined;
  /**
   * The ACLs before the last setACLs (newest first, at most `STALE_ACLS`), each with the time
   * its replacing setACL completed (∞ when that is not known). Java's prep checks permissions
   * against its pending change records, and a setACL's record keeps the old ACL, so an op the
   * leader prepared while such a setACL was in flight is judged by the old one (zk-writes.ts).
   */
  readonly staleAcls: readonly StaleAcl[];
  /** Child names (last path component), sorted. */
  readonly children: readonly string[];
  readonly czxid: bigint | undefined;
  readonly mzxid: bigint | undefined;
  readonly pzxid: bigint | undefined;
  readonly ctime: number | undefined;
  readonly mtime: number | undefined;
  /** No setData since the create: mtime is ctime. */
  readonly fresh: boolean;
  /**
   * A node of the initial tree whose data and Stat depend on the deployment (`/zookeeper/config`
   * holds the ensemble's configuration, written with version −1): only its existence, children
   * and ACL are modelled.
   */
  readonly opaque: boolean;
}

export interface StaleAcl {
  readonly acl: string | undefined;
  /** An op invoked before this may have been prepared while the ACL was still in effect. */
  readonly untilUs: number;
}

/** How many replaced ACLs a node remembers. */
export const STALE_ACLS = 3;

/** ACL text of OPEN_ACL_UNSAFE, the default (`world:anyone`, ALL). */
export const OPEN_ACL = "world:anyone:31";
/** READ_ACL_UNSAFE (`/zookeeper/config`). */
export const READ_ACL = "world:anyone:1";

export class ZkTree {
  /**
   * The last key a partition's key function (`zkModel`'s `keyFor`) gave this tree, and that
   * function's token: a memo on the tree itself, where a weak map's entry per state would cost
   * more than the key (the search asks for a state's key up to three times).
   */
  keyOwner: object | undefined = undefined;
  keyText = "";

  constructor(
    readonly nodes: ReadonlyMap<string, ZNode>,
    /** Two 32-bit lanes: the sum, over nodes, of a hash of everything but their data. */
    readonly metaHash: readonly [number, number] = sumMeta(nodes),
  ) {}

  get(path: string): ZNode | undefined {
    return this.nodes.get(path);
  }

  /**
   * Canonical and exact: sorted paths with everything a client can observe of each node,
   * except the data of nodes outside `dataPaths` (when given), which no op reads.
   */
  exactKey(dataPaths?: ReadonlySet<string>): string {
    const paths = [...this.nodes.keys()].sort();
    let k = "";
    for (const p of paths) k += nodeText(p, this.nodes.get(p)!, dataPaths === undefined || dataPaths.has(p));
    return k;
  }

  /**
   * Cheap key, O(|dataPaths|): the incremental hash of the node set and metadata, plus the
   * data of the paths in `dataPaths`, verbatim. Equal trees always get equal keys; different
   * trees collide with probability ~2^-64 per pair (the checker re-verifies failures with
   * `exactKey`, so a collision can never turn into a reported violation).
   */
  fastKey(dataPaths: readonly string[]): string {
    let k = `${this.metaHash[0]}:${this.metaHash[1]}`;
    for (let i = 0; i < dataPaths.length; i++) {
      const n = this.nodes.get(dataPaths[i]!);
      // Length-prefixed: as exact as JSON, without escaping every datum.
      k += n === undefined ? "|-" : `|${n.data.length}:${n.data}`;
    }
    return k;
  }

  /**
   * A tree holding `paths` (ancestors added) with the given data, everything else as a fresh
   * server has it: zxids and times 0, OPEN_ACL_UNSAFE. `opaque` paths are only known to exist.
   */
  static of(data: ReadonlyMap<string, string>, opaque: ReadonlySet<string> = new Set(), acls: ReadonlyMap<string, string> = new Map()): ZkTree {
    const initial = (path: string, d: string): ZNode => ({ ...initialNode(d), opaque: opaque.has(path), acl: acls.get(path) ?? OPEN_ACL });
    const d = new Draft(new ZkTree(new Map([["/", initial("/", data.get("/") ?? "")]])));
    const sorted = [...data.keys()].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
    for (const path of sorted) {
      if (path === "/") continue;
      for (const anc of ancestors(path)) if (d.get(anc) === undefined) d.addChild(anc, initial(anc, ""));
      // The initial children are not created by txns: stored cversion stays 0 (§1.6).
      if (d.get(path) === undefined) d.addChild(path, initial(path, data.get(path) ?? ""));
    }
    return d.finish();
  }
}

/** One node's part of an exact key: its path, its data (or nothing) and its metadata. */
function nodeText(path: string, n: ZNode, withData: boolean): string {
  return `${path}\u0000${withData ? JSON.stringify(n.data) : ""}\u0000${metaText(n)}\n`;
}

/**
 * Exact keys made short. A tree's exact key is the text of every node (path, data, metadata:
 * `exactKey`), some hundred characters each, and a search that must keep exact keys (a long
 * run's window enumerating its end states) holds one per distinct state: a window of 7,000
 * operations on a tree of 50 nodes filled the search's memo with them. Here each distinct node
 * text gets a number the first time it is seen, and a tree's key is its nodes' numbers in path
 * order: two trees get equal keys iff their exact keys are equal (the numbering is injective,
 * and the paths are the same list in the same order), in a few characters per node. Keys are
 * comparable only between trees keyed by the same interner; it holds each distinct node text
 * once, for its own lifetime (one window's search).
 */
export class NodeInterner {
  private readonly ids = new Map<string, number>();
  /** A node object seen before, at the path it was seen at, and its number. */
  private readonly seen = new WeakMap<ZNode, { path: string; id: string }>();
  private readonly keys = new WeakMap<ZkTree, string>();

  key(tree: ZkTree): string {
    let k = this.keys.get(tree);
    if (k !== undefined) return k;
    k = "";
    for (const p of [...tree.nodes.keys()].sort()) k += `${this.idOf(p, tree.nodes.get(p)!)},`;
    this.keys.set(tree, k);
    return k;
  }

  private idOf(path: string, n: ZNode): string {
    const known = this.seen.get(n);
    if (known !== undefined && known.path === path) return known.id;
    const text = nodeText(path, n, true);
    let id = this.ids.get(text);
    if (id === undefined) this.ids.set(text, (id = this.ids.size));
    const short = id.toString(36);
    this.seen.set(n, { path, id: short });
    return short;
  }
}

/** A node that was there before any txn: every Stat field zero. */
function initialNode(data: string): ZNode {
  return { ...newNode(data, "persistent", undefined, 0, OPEN_ACL), czxid: 0n, mzxid: 0n, pzxid: 0n, ctime: 0, mtime: 0 };
}

/** A node as a create at `zxid` (undefined: not known) leaves it (its time filled in by the caller when known). */
export function newNode(data: string, kind: NodeKind, owner: string | undefined, ttlMs: number, acl: string | undefined, zxid?: bigint): ZNode {
  return {
    data,
    version: 0,
    cversion: 0,
    aversion: 0,
    kind,
    owner,
    ttlMs,
    acl,
    staleAcls: [],
    children: [],
    czxid: zxid,
    mzxid: zxid,
    pzxid: zxid,
    ctime: undefined,
    mtime: undefined,
    fresh: true,
    opaque: false,
  };
}

/** Everything of a node but its data and children, as text (the exact key's part per node). */
function metaText(n: ZNode): string {
  return `${n.version}\u0000${n.cversion}\u0000${n.aversion}\u0000${n.kind}\u0000${n.owner ?? ""}\u0000${n.ttlMs}\u0000${n.acl ?? "?"}\u0000${opt(n.czxid)}\u0000${opt(n.mzxid)}\u0000${opt(n.pzxid)}\u0000${opt(n.ctime)}\u0000${opt(n.mtime)}\u0000${n.fresh ? 1 : 0}${staleText(n)}`;
}

function staleText(n: ZNode): string {
  let t = "";
  for (const s of n.staleAcls) t += `\u0000${s.acl ?? "?"}@${s.untilUs}`;
  return t;
}

function opt(v: bigint | number | undefined): string {
  return v === undefined ? "?" : String(v);
}

/** Copy-on-write view of a tree: reads see the writes made so far; `finish` freezes it. */
export class Draft {
  private copy: Map<string, ZNode> | undefined;
  private readonly sum: MetaSum;

  constructor(private readonly base: ZkTree) {
    this.sum = { h0: base.metaHash[0], h1: base.metaHash[1] };
  }

  get(path: string): ZNode | undefined {
    return (this.copy ?? this.base.nodes).get(path);
  }

  set(path: string, node: ZNode): void {
    const old = this.get(path);
    if (old !== undefined) addMeta(this.sum, path, old, -1);
    addMeta(this.sum, path, node, 1);
    this.writable().set(path, node);
  }

  /** Adds `node` at `path` and lists it in its parent (which must exist). */
  addChild(path: string, node: ZNode): void {
    const parent = parentOf(path);
    const p = this.get(parent)!;
    this.set(parent, { ...p, children: insertSorted(p.children, baseName(path)) });
    this.set(path, node);
  }

  /** Removes the node at `path` (which must exist and be childless) from the tree and its parent. */
  remove(path: string): void {
    addMeta(this.sum, path, this.get(path)!, -1);
    this.writable().delete(path);
  }

  paths(): IterableIterator<string> {
    return (this.copy ?? this.base.nodes).keys();
  }

  finish(): ZkTree {
    return this.copy === undefined ? this.base : new ZkTree(this.copy, [this.sum.h0, this.sum.h1]);
  }

  private writable(): Map<string, ZNode> {
    if (this.copy === undefined) {
      // forEach, not `new Map(nodes)`: the constructor iterates, an entry array and an
      // iterator result per node, and this runs for every write the search tries.
      const copy = new Map<string, ZNode>();
      this.base.nodes.forEach((node, path) => copy.set(path, node));
      this.copy = copy;
    }
    return this.copy;
  }
}

// ---- incremental hashing ------------------------------------------------------------------

/** Two 32-bit lanes, each a sum mod 2^32 of per-node hashes. */
interface MetaSum {
  h0: number;
  h1: number;
}

function sumMeta(nodes: ReadonlyMap<string, ZNode>): [number, number] {
  const sum = { h0: 0, h1: 0 };
  for (const [p, n] of nodes) addMeta(sum, p, n, 1);
  return [sum.h0, sum.h1];
}

/** The lanes of `restHash`, reused (it runs to completion before the next call). */
const scratch: MetaSum = { h0: 0, h1: 0 };

/**
 * Adds (sign 1) or takes out (sign -1) two independent 32-bit hashes of a node without its data
 * (children follow from the paths): of its path, version, cversion and owner, fed to the lanes
 * directly, and of the rest of its metadata (ACL, kind, zxids, times) through `restHash`.
 */
function addMeta(sum: MetaSum, path: string, n: ZNode, sign: 1 | -1): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  // Paths never hold U+0000: it ends the path, then the numbers go in as whole words.
  a = Math.imul(a ^ 0x10000, 0x01000193);
  b = Math.imul(b ^ 0x10000, 0x5bd1e995);
  a = Math.imul(a ^ n.version, 0x01000193);
  b = Math.imul(b ^ n.version, 0x5bd1e995);
  b ^= b >>> 15;
  a = Math.imul(a ^ n.cversion, 0x01000193);
  b = Math.imul(b ^ n.cversion, 0x5bd1e995);
  b ^= b >>> 15;
  const rest = scratch;
  rest.h0 = 0x811c9dc5;
  rest.h1 = 0x1b873593;
  restHash(n, rest);
  a = Math.imul(a ^ rest.h0, 0x01000193);
  b = Math.imul(b ^ rest.h1, 0x5bd1e995);
  b ^= b >>> 15;
  const owner = n.owner ?? "";
  for (let i = 0; i < owner.length; i++) {
    const c = owner.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  sum.h0 = (sum.h0 + sign * fmix(a ^ owner.length)) >>> 0;
  sum.h1 = (sum.h1 + sign * fmix(b ^ path.length)) >>> 0;
}

/**
 * Two hashes of a node's metadata beyond version, cversion and owner, its fields fed to the lanes
 * as words (a tag word before each optional one: undefined and every value differ). Computed
 * each time, not cached by node: a few dozen multiplications cost less than a weak map's entry
 * per node, which the search's stack would keep alive.
 */
function restHash(n: ZNode, m: MetaSum): void {
  word(m, n.aversion | 0);
  word(m, KIND_CODES[n.kind]);
  number(m, n.ttlMs);
  text(m, n.acl);
  zxid(m, n.czxid);
  zxid(m, n.mzxid);
  zxid(m, n.pzxid);
  number(m, n.ctime);
  number(m, n.mtime);
  word(m, n.fresh ? 1 : 0);
  for (let k = 0; k < n.staleAcls.length; k++) {
    const s = n.staleAcls[k]!;
    text(m, s.acl);
    number(m, s.untilUs);
  }
  m.h0 = fmix(m.h0);
  m.h1 = fmix(m.h1);
}

const KIND_CODES: Readonly<Record<NodeKind, number>> = { persistent: 1, ephemeral: 2, container: 3, ttl: 4 };

/** One 32-bit word into both lanes. */
function word(m: MetaSum, w: number): void {
  m.h0 = Math.imul(m.h0 ^ w, 0x01000193);
  let b = Math.imul(m.h1 ^ w, 0x5bd1e995);
  b ^= b >>> 13;
  m.h1 = b;
}

const float = new Float64Array(1);
const floatWords = new Int32Array(float.buffer);

/** A number (any double, its bits) or undefined. */
function number(m: MetaSum, x: number | undefined): void {
  if (x === undefined) return word(m, 0);
  word(m, 1);
  float[0] = x;
  word(m, floatWords[0]!);
  word(m, floatWords[1]!);
}

/** A zxid (64 bits) or undefined; one below 2^53 as the number it is, without a bigint made. */
function zxid(m: MetaSum, z: bigint | undefined): void {
  if (z === undefined) return word(m, 0);
  const x = Number(z);
  if (Number.isSafeInteger(x)) {
    word(m, 2);
    float[0] = x;
    word(m, floatWords[0]!);
    word(m, floatWords[1]!);
    return;
  }
  word(m, 4);
  word(m, Number(BigInt.asUintN(32, z)) | 0);
  word(m, Number(BigInt.asUintN(32, z >> 32n)) | 0);
}

/** Short texts (ACLs) hash once each, to two independent words. */
const textHashes = new Map<string, readonly [number, number]>();

function text(m: MetaSum, t: string | undefined): void {
  if (t === undefined) return word(m, 0);
  let h = textHashes.get(t);
  if (h === undefined) {
    let a = 0x811c9dc5;
    let b = 0x9747b28c;
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    h = [fmix(a ^ t.length) | 0, fmix(b ^ t.length) | 0];
    if (textHashes.size < 4096) textHashes.set(t, h);
  }
  word(m, 3);
  word(m, h[0]);
  word(m, h[1]);
}

/** murmur3's finaliser: every input bit affects every output bit. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// ---- paths ------------------------------------------------------------------------------------

export function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function depth(path: string): number {
  return path === "/" ? 0 : path.split("/").length - 1;
}

/** Proper ancestors of `path` except "/", outermost first. */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let p = parentOf(path); p !== "/"; p = parentOf(p)) out.unshift(p);
  return out;
}

/** `String.format("%010d", n)` for a Java int (§1.3): negative numbers pad to 10 with the sign. */
export function sequenceSuffix(n: number): string {
  return n < 0 ? "-" + String(-n).padStart(9, "0") : String(n).padStart(10, "0");
}

/** Could `name` be what a sequential create of `prefix` produced? */
export function isSequentialName(name: string, prefix: string): boolean {
  if (!name.startsWith(prefix)) return false;
  return /^(\d{10}|-\d{9,10})$/.test(name.slice(prefix.length));
}

export function insertSorted(list: readonly string[], name: string): string[] {
  const out = list.slice();
  let i = out.length;
  while (i > 0 && out[i - 1]! > name) i--;
  out.splice(i, 0, name);
  return out;
}

/** Bytes of `data` as UTF-8 (what Stat.dataLength counts). */
export function utf8Length(data: string): number {
  // Data the client recorded as a digest ("\u0001<bytes>:<hash>") carries its length.
  if (data.charCodeAt(0) === 1) return Number.parseInt(data.slice(1), 10);
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < data.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
