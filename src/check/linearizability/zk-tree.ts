/**
 * An immutable ZooKeeper data tree, the state of the sequential specification (`zk-model`).
 *
 * Written from docs/zookeeper.md §1 (data model) and §4 (multi), independently of `zk/server`: a flat
 * map from path to node; a write copies the map once (copy-on-write through `Draft`) and
 * never touches the original, so a state may be shared by many search branches.
 *
 * Kept per node: data, version, the *stored* cversion (number of child creations ever,
 * which also numbers sequential children, §1.3), the ephemeral owner (session) and the sorted
 * child names. Not kept: zxids, times, ACLs (see zk-model's limitations).
 *
 * Invariants: "/" exists; every other node's parent exists and lists it among its children;
 * a node with an owner (ephemeral) has no children.
 */
import type { CodeName } from "../../zk/proto/error-code.js";

export interface ZNode {
  readonly data: string;
  readonly version: number;
  /** Stored cversion: child creations ever (sequence numbers); clients see 2·this − numChildren. */
  readonly cversion: number;
  /** Owning session for an ephemeral, undefined for a persistent node. */
  readonly owner: string | undefined;
  /** Child names (last path component), sorted. */
  readonly children: readonly string[];
}

export class ZkTree {
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
    for (const p of paths) {
      const n = this.nodes.get(p)!;
      const data = dataPaths === undefined || dataPaths.has(p) ? JSON.stringify(n.data) : "";
      k += `${p}\u0000${data}\u0000${n.version}\u0000${n.cversion}\u0000${n.owner ?? ""}\n`;
    }
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
    for (const p of dataPaths) {
      const n = this.nodes.get(p);
      k += n === undefined ? "|-" : `|${JSON.stringify(n.data)}`;
    }
    return k;
  }

  /** A tree holding `paths` (ancestors added) with the given data, everything else fresh. */
  static of(data: ReadonlyMap<string, string>): ZkTree {
    const d = new Draft(new ZkTree(new Map([["/", freshNode("")]])));
    const sorted = [...data.keys()].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
    for (const path of sorted) {
      if (path === "/") {
        d.set("/", { ...d.get("/")!, data: data.get("/") ?? "" });
        continue;
      }
      for (const anc of ancestors(path)) if (d.get(anc) === undefined) d.addChild(anc, freshNode(""));
      // The initial children are not created by txns: stored cversion stays 0 (§1.6).
      if (d.get(path) === undefined) d.addChild(path, freshNode(data.get(path) ?? ""));
    }
    return d.finish();
  }
}

export function freshNode(data: string, owner?: string): ZNode {
  return { data, version: 0, cversion: 0, owner, children: [] };
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
    const parent = parentOf(path);
    const p = this.get(parent)!;
    const name = baseName(path);
    this.set(parent, { ...p, children: p.children.filter((c) => c !== name) });
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
    if (this.copy === undefined) this.copy = new Map(this.base.nodes);
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

/**
 * Adds (sign 1) or takes out (sign -1) two independent 32-bit hashes of a node without its data
 * (children follow from the paths): of its path, version, cversion and owner, fed to the lanes
 * directly, with no string built (this runs several times per model step).
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

/** murmur3's finaliser: every input bit affects every output bit. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// ---- the write primitives, shared by single ops and multi ----------------------------------

export type WriteOutcome = { err: CodeName } | { err?: undefined; path: string };

/** create (docs/zookeeper.md §1.4 precedence: parent, sequence suffix, NODEEXISTS, ephemeral parent). */
export function create(d: Draft, path: string, data: string, sequential: boolean, owner: string | undefined): WriteOutcome {
  if (path === "/" || !path.startsWith("/")) return { err: "BADARGUMENTS" };
  const parentPath = parentOf(path);
  const parent = d.get(parentPath);
  if (parent === undefined) return { err: "NONODE" };
  const name = sequential ? path + sequenceSuffix(parent.cversion) : path;
  if (d.get(name) !== undefined) return { err: "NODEEXISTS" };
  if (parent.owner !== undefined) return { err: "NOCHILDRENFOREPHEMERALS" };
  // What `addChild` does, with the parent's cversion bumped in the same write.
  d.set(parentPath, { ...parent, cversion: (parent.cversion + 1) | 0, children: insertSorted(parent.children, baseName(name)) });
  d.set(name, freshNode(data, owner));
  return { path: name };
}

export function remove(d: Draft, path: string, version: number): WriteOutcome {
  if (path === "/") return { err: "BADARGUMENTS" };
  const node = d.get(path);
  if (node === undefined) return { err: "NONODE" };
  if (version !== -1 && version !== node.version) return { err: "BADVERSION" };
  if (node.children.length > 0) return { err: "NOTEMPTY" };
  d.remove(path);
  return { path };
}

export function setData(d: Draft, path: string, data: string, version: number): WriteOutcome {
  const node = d.get(path);
  if (node === undefined) return { err: "NONODE" };
  if (version !== -1 && version !== node.version) return { err: "BADVERSION" };
  d.set(path, { ...node, data, version: (node.version + 1) | 0 });
  return { path };
}

export function check(d: Draft, path: string, version: number): WriteOutcome {
  const node = d.get(path);
  if (node === undefined) return { err: "NONODE" };
  if (version !== -1 && version !== node.version) return { err: "BADVERSION" };
  return { path };
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

function insertSorted(list: readonly string[], name: string): string[] {
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
