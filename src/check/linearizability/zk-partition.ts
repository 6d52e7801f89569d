/**
 * Splitting a ZooKeeper history into independently checkable partitions.
 *
 * Linearizability is local (Herlihy & Wing): if the objects of a history can be split so that
 * no operation of one part reads state another part writes, the history is linearizable iff
 * every part is. The "objects" here are components of the data tree:
 *
 *   E:p  node p exists (and its ephemeral owner)    D:p  data and version of p
 *   K:p  the set of p's children                    C:p  p's child-creation counter
 *   S:p  every sequential-named child of p (whose exact name depends on C:p)
 *   A:p  p's ACL and aversion                       T:p  how many nodes lie below p
 *
 * An op whose result carries p's Stat reads all of E, D, K, C and A of p. T:p exists only for
 * the paths some getAllChildrenNumber counts; every create or delete below p writes it. A
 * getEphemerals reads the E (or S) component of every ephemeral its session may have created
 * under its prefix; whoAmI reads nothing of the tree.
 * Each op reads and (unless it definitely failed) writes some components; e.g. create /a/b
 * reads E:/a and E:/a/b, and writes E:/a/b, D:/a/b, K:/a and C:/a. Ops are joined when one
 * reads a component another writes. A component nobody reads (the parent's child list when
 * no one lists it) or nobody writes (a parent that always exists) joins no one.
 *
 * Settled components. The usual workload creates `/app` once, then works under it: every
 * create of /app/x reads E:/app, which would glue all of /app/x's partitions together. But if
 * a component has exactly one writer, a successful plain create w, then a reader invoked after
 * w completed must see w's effect, whatever the linearization. Such a reader is not joined to
 * w; instead w goes into the reader's partition *preamble*, applied to the initial state
 * before the search (w itself is checked in its own partition). Preambles are closed under
 * the same rule, and verified: if the model cannot apply a partition's preamble from the
 * initial state, its ops are joined with it after all.
 *
 * A multi's components are the union of its sub-ops'. Session ends (closeSession) write the
 * components of every ephemeral their session created.
 *
 * Session ends as fences. No write of a session takes effect after its closeSession (the model's
 * `sessionFence`), but a close that writes none of a partition's components is not in it, and
 * there an indeterminate write of its session could land at any time up to the end. So each
 * definite close of a session goes, as well, into every partition that holds an indeterminate
 * write of that session: there it changes nothing (the session's ephemerals, which it deletes,
 * would have joined it to that partition) and only bounds the write.
 */
import { isReadOnly, type Operation } from "../history/history.js";
import type { Partition } from "./model.js";
import { isSequentialName, parentOf } from "./zk-tree.js";

export interface ZkPartitionOptions {
  sessionsMayEnd: boolean;
  /** True when the model can apply `preamble` (in order) to its initial state. */
  preambleApplies(preamble: readonly Operation[]): boolean;
}

/** The components an op reads and may write, as numbers (see `Components`). */
interface Access {
  reads: Set<number>;
  writes: Set<number>;
}

/** The kinds of component of one path, E, D, K, C and S of the header. */
const E = 0;
const D = 1;
const K = 2;
const C = 3;
const S = 4;
const A = 5;
const T = 6;
type ComponentKind = typeof E | typeof D | typeof K | typeof C | typeof S | typeof A | typeof T;
const KINDS = 7;

/**
 * Components numbered `pathNumber * KINDS + kind`, paths numbered in order of first sight: a
 * number per component, not a string built per access (there are several per op).
 */
class Components {
  private readonly pathNumbers = new Map<string, number>();
  private readonly parents = new Map<string, string>();

  of(kind: ComponentKind, path: string): number {
    let n = this.pathNumbers.get(path);
    if (n === undefined) this.pathNumbers.set(path, (n = this.pathNumbers.size));
    return n * KINDS + kind;
  }

  /** `parentOf`, remembered: the same few paths come back for every op. */
  parent(path: string): string {
    let p = this.parents.get(path);
    if (p === undefined) this.parents.set(path, (p = parentOf(path)));
    return p;
  }
}

export function partitionZkHistory(input: readonly Operation[], options: ZkPartitionOptions): Partition[] {
  const ops = options.sessionsMayEnd ? [...input, ...sessionEnds(input)] : [...input];
  const ctx: Context = {
    seq: sequentialPrefixes(ops),
    ephemerals: ephemeralCreatesBySession(ops),
    counted: new Set(ops.filter((o) => o.op === "getAllChildrenNumber").map((o) => o.path)),
    components: new Components(),
  };
  const accesses = ops.map((op) => access(op, ctx));
  const uf = new UnionFind(ops.length);
  const deps = joinByComponents(ops, accesses, uf);
  for (let round = 0; ; round++) {
    const groups = groupsOf(uf, ops.length);
    let merged = false;
    const parts: Partition[] = [];
    for (const members of groups) {
      const preamble = preambleOf(members, deps, uf);
      if (preamble.length > 0 && !options.preambleApplies(preamble.map((i) => ops[i]!))) {
        for (const w of preamble) uf.union(members[0]!, w);
        merged = true;
        continue;
      }
      parts.push({ label: labelOf(members.map((i) => ops[i]!)), ops: members.map((i) => ops[i]!), preamble: preamble.map((i) => ops[i]!) });
    }
    if (!merged) return withSessionEnds(parts, ops);
    if (round > ops.length) throw new Error("partitionZkHistory: preamble repair did not converge");
  }
}

/** Joins readers with writers per component; returns the settled dependencies reader → writers. */
function joinByComponents(ops: readonly Operation[], accesses: readonly Access[], uf: UnionFind): Map<number, Set<number>> {
  const readers = new Map<number, number[]>();
  const writers = new Map<number, number[]>();
  accesses.forEach((a, i) => {
    for (const c of a.reads) push(readers, c, i);
    for (const c of a.writes) push(writers, c, i);
  });
  const deps = new Map<number, Set<number>>();
  for (const [comp, rs] of readers) {
    const ws = writers.get(comp);
    if (ws === undefined) continue;
    if (ws.length === 1 && canSettle(ops[ws[0]!]!)) {
      const w = ws[0]!;
      const wDone = ops[w]!.completeUs!;
      for (const r of rs) {
        if (r === w) continue;
        if (ops[r]!.invokeUs > wDone) {
          if (!deps.has(r)) deps.set(r, new Set());
          deps.get(r)!.add(w);
        } else uf.union(r, w);
      }
      continue;
    }
    const all = [...rs, ...ws];
    for (const i of all) uf.union(all[0]!, i);
  }
  return deps;
}

/** A definite plain create: its effect on the components it writes is fixed by its arguments. */
function canSettle(op: Operation): boolean {
  return op.op === "create" && op.outcome === "ok" && op.completeUs !== undefined && !(op.args.mode ?? "").includes("SEQUENTIAL");
}

/** Settled writers the members depend on, transitively, that are not members; in completion order. */
function preambleOf(members: readonly number[], deps: Map<number, Set<number>>, uf: UnionFind): number[] {
  const root = uf.find(members[0]!);
  const seen = new Set<number>();
  const stack = [...members];
  while (stack.length > 0) {
    const i = stack.pop()!;
    for (const w of deps.get(i) ?? []) {
      if (uf.find(w) === root || seen.has(w)) continue;
      seen.add(w);
      stack.push(w);
    }
  }
  return [...seen].sort((a, b) => a - b);
}

function groupsOf(uf: UnionFind, n: number): number[][] {
  const byRoot = new Map<number, number[]>();
  for (let i = 0; i < n; i++) push(byRoot, uf.find(i), i);
  return [...byRoot.values()];
}

// ---- components of one operation --------------------------------------------------------

/**
 * parent path → the basename prefixes of sequential creates under it (as full-path prefixes,
 * each once: a recipe creates under one prefix again and again), and a memo of which paths are
 * named by one of them.
 */
interface SeqPrefixes {
  byParent: Map<string, Set<string>>;
  named: Map<string, boolean>;
}

function sequentialPrefixes(ops: readonly Operation[]): SeqPrefixes {
  const byParent = new Map<string, Set<string>>();
  for (const op of ops) {
    if (op.op !== "create" && op.op !== "multi") continue;
    for (const s of writeSubOps(op)) {
      if (s.op !== "create" || !(s.args.mode ?? "").includes("SEQUENTIAL")) continue;
      const parent = parentOf(s.path);
      let prefixes = byParent.get(parent);
      if (prefixes === undefined) byParent.set(parent, (prefixes = new Set()));
      prefixes.add(s.path);
    }
  }
  return { byParent, named: new Map() };
}

/** Is `path` a name some sequential create under its parent may have produced? */
function sequentiallyNamed(path: string, seq: SeqPrefixes, components: Components): boolean {
  let named = seq.named.get(path);
  if (named === undefined) {
    named = false;
    for (const prefix of seq.byParent.get(components.parent(path)) ?? []) {
      if (isSequentialName(path, prefix)) {
        named = true;
        break;
      }
    }
    seq.named.set(path, named);
  }
  return named;
}

function writeSubOps(op: Operation): SubOpLike[] {
  if (op.op === "multi") return op.args.ops ?? [];
  if (op.op === "create" || op.op === "delete" || op.op === "setData" || op.op === "check" || op.op === "setACL" || op.op === "reap") {
    return [{ op: op.op, path: op.path, args: op.args }];
  }
  return [];
}

/** Per session, the ephemeral creates (sub-ops too) of its ops, whatever their outcome, in order. */
function ephemeralCreatesBySession(ops: readonly Operation[]): Map<string, SubOpLike[]> {
  const bySession = new Map<string, SubOpLike[]>();
  for (const c of ops) {
    if (c.op !== "create" && c.op !== "multi") continue;
    for (const s of writeSubOps(c)) {
      if (s.op !== "create" || !(s.args.mode ?? "").startsWith("EPHEMERAL")) continue;
      push(bySession, c.session, s);
    }
  }
  return bySession;
}

type SubOpLike = { op: string; path: string; args: Operation["args"] };

/** What `access` reads besides the op: sequential prefixes, ephemerals by session, counted subtrees. */
interface Context {
  seq: SeqPrefixes;
  ephemerals: ReadonlyMap<string, readonly SubOpLike[]>;
  /** The paths some getAllChildrenNumber counts below. */
  counted: ReadonlySet<string>;
  components: Components;
}

/** The components an op reads, and writes unless it definitely failed. */
function access(op: Operation, ctx: Context): Access {
  const { components } = ctx;
  const a: Access = { reads: new Set(), writes: new Set() };
  const w = op.outcome !== "fail" ? a.writes : new Set<number>();
  const node = nodeAccess(ctx);
  switch (op.op) {
    case "sync":
    case "whoAmI":
      break;
    case "getData":
    case "exists":
    case "getChildren":
    case "getACL":
    case "getAllChildrenNumber":
      readsNode(op.path, a.reads, node, components);
      if (op.op === "getAllChildrenNumber") a.reads.add(components.of(T, op.path));
      break;
    case "multiRead":
      for (const s of op.args.ops ?? []) readsNode(s.path, a.reads, node, components);
      break;
    case "getEphemerals": {
      const prefix = op.path.trim();
      for (const s of ctx.ephemerals.get(op.session) ?? []) {
        if (prefix !== "" && prefix !== "/" && !s.path.startsWith(prefix) && !prefix.startsWith(s.path)) continue;
        if ((s.args.mode ?? "").includes("SEQUENTIAL")) a.reads.add(components.of(S, components.parent(s.path)));
        else node(s.path, E, a.reads);
      }
      break;
    }
    case "closeSession":
      for (const s of ctx.ephemerals.get(op.session) ?? []) {
        const parent = components.parent(s.path);
        node(s.path, E, a.reads);
        node(s.path, E, w);
        if ((s.args.mode ?? "").includes("SEQUENTIAL")) {
          a.reads.add(components.of(S, parent));
          w.add(components.of(S, parent));
        }
        w.add(components.of(K, parent));
        countsBelow(parent, w, ctx);
      }
      break;
    case "create":
    case "delete":
    case "setData":
    case "check":
    case "setACL":
    case "reap":
    case "multi":
      for (const s of writeSubOps(op)) subAccess(s, a.reads, w, node, ctx);
      break;
  }
  return a;
}

type NodeAccess = (p: string, kind: typeof E | typeof D, into: Set<number>) => void;

/** E or D of `p`, and S of its parent when a sequential create may have named it. */
function nodeAccess(ctx: Context): NodeAccess {
  return (p, kind, into) => {
    into.add(ctx.components.of(kind, p));
    if (sequentiallyNamed(p, ctx.seq, ctx.components)) into.add(ctx.components.of(S, ctx.components.parent(p)));
  };
}

/** Everything a read of `p` with its Stat can see: E, D, K, C and A (its ACL decides, too). */
function readsNode(p: string, reads: Set<number>, node: NodeAccess, components: Components): void {
  node(p, E, reads);
  node(p, D, reads);
  reads.add(components.of(K, p));
  reads.add(components.of(C, p));
  reads.add(components.of(A, p));
}

/** T of every counted ancestor of a node created or deleted under `parent` (parent included). */
function countsBelow(parent: string, writes: Set<number>, ctx: Context): void {
  if (ctx.counted.size === 0) return;
  for (let p = parent; ; p = ctx.components.parent(p)) {
    if (ctx.counted.has(p)) writes.add(ctx.components.of(T, p));
    if (p === "/") return;
  }
}

function subAccess(s: SubOpLike, reads: Set<number>, writes: Set<number>, node: NodeAccess, ctx: Context): void {
  const { components } = ctx;
  const parent = components.parent(s.path);
  switch (s.op) {
    case "create":
      node(parent, E, reads);
      reads.add(components.of(A, parent));
      writes.add(components.of(K, parent));
      writes.add(components.of(C, parent));
      countsBelow(parent, writes, ctx);
      if ((s.args.mode ?? "").includes("SEQUENTIAL")) {
        reads.add(components.of(C, parent));
        reads.add(components.of(S, parent));
        writes.add(components.of(S, parent));
      } else {
        node(s.path, E, reads);
        node(s.path, E, writes);
        node(s.path, D, writes);
        writes.add(components.of(K, s.path));
        writes.add(components.of(C, s.path));
        writes.add(components.of(A, s.path));
      }
      break;
    case "delete":
    case "reap":
      node(parent, E, reads);
      reads.add(components.of(A, parent));
      node(s.path, E, reads);
      // A reap judges the node's kind, counter and mtime; a delete with a version its version.
      if (s.op === "reap" || (s.args.version ?? -1) !== -1) node(s.path, D, reads);
      if (s.op === "reap") reads.add(components.of(C, s.path));
      reads.add(components.of(K, s.path));
      node(s.path, E, writes);
      writes.add(components.of(K, parent));
      countsBelow(parent, writes, ctx);
      break;
    case "setData":
    case "setACL":
      // Its result is a Stat the model checks whole: it reads every component of the node.
      readsNode(s.path, reads, node, components);
      if (s.op === "setData") node(s.path, D, writes);
      else writes.add(components.of(A, s.path));
      break;
    case "check":
      node(s.path, E, reads);
      node(s.path, D, reads);
      reads.add(components.of(A, s.path));
      break;
  }
}

/** Each partition with an indeterminate write of a session also gets the session's definite closes. */
function withSessionEnds(parts: Partition[], ops: readonly Operation[]): Partition[] {
  const closes = new Map<string, Operation[]>();
  for (const op of ops) if (op.op === "closeSession" && op.outcome === "ok") push(closes, op.session, op);
  if (closes.size === 0) return parts;
  return parts.map((part) => {
    const sessions = new Set(part.ops.filter((o) => o.outcome === "unknown" && o.op !== "closeSession" && !isReadOnly(o)).map((o) => o.session));
    const added: Operation[] = [];
    for (const session of sessions) for (const c of closes.get(session) ?? []) if (!part.ops.includes(c)) added.push(c);
    return added.length === 0 ? part : { ...part, ops: [...part.ops, ...added] };
  });
}

// ---- synthetic session ends ------------------------------------------------------------------

/** An unknown closeSession for each session that created ephemerals and has no explicit end. */
function sessionEnds(ops: readonly Operation[]): Operation[] {
  const ended = new Set(ops.filter((o) => o.op === "closeSession").map((o) => o.session));
  const firstEphemeral = new Map<string, number>();
  for (const op of ops) {
    if (op.outcome === "fail" || (op.op !== "create" && op.op !== "multi") || ended.has(op.session)) continue;
    const eph = writeSubOps(op).some((s) => s.op === "create" && (s.args.mode ?? "").startsWith("EPHEMERAL"));
    if (!eph) continue;
    const t = firstEphemeral.get(op.session);
    if (t === undefined || op.invokeUs < t) firstEphemeral.set(op.session, op.invokeUs);
  }
  let nextId = ops.reduce((m, o) => Math.max(m, o.id), -1) + 1;
  return [...firstEphemeral].map(([session, invokeUs]) => ({
    id: nextId++,
    client: "(session end)",
    session,
    op: "closeSession" as const,
    path: "",
    args: {},
    invokeUs,
    completeUs: undefined,
    outcome: "unknown" as const,
  }));
}

// ---- helpers -----------------------------------------------------------------------------------

function labelOf(ops: readonly Operation[]): string {
  const paths = [...new Set(ops.map((o) => o.path).filter((p) => p !== ""))].sort();
  return paths.length <= 4 ? paths.join(" ") : `${paths.slice(0, 3).join(" ")} and ${paths.length - 3} more paths`;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list === undefined) m.set(k, [v]);
  else list.push(v);
}

class UnionFind {
  private readonly parent: Int32Array;

  constructor(n: number) {
    this.parent = new Int32Array(n);
    for (let i = 0; i < n; i++) this.parent[i] = i;
  }

  find(i: number): number {
    let r = i;
    while (this.parent[r] !== r) r = this.parent[r]!;
    while (this.parent[i] !== r) {
      const next = this.parent[i]!;
      this.parent[i] = r;
      i = next;
    }
    return r;
  }

  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    // The smaller index wins: roots, and so group order, do not depend on union order.
    if (ra < rb) this.parent[rb] = ra;
    else if (rb < ra) this.parent[ra] = rb;
  }
}
