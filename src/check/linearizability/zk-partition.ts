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
 *
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
 */
import type { Operation } from "../history/history.js";
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
type ComponentKind = typeof E | typeof D | typeof K | typeof C | typeof S;
const KINDS = 5;

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
  const seq = sequentialPrefixes(ops);
  const components = new Components();
  const ephemerals = ephemeralCreatesBySession(ops);
  const accesses = ops.map((op) => access(op, seq, ephemerals, components));
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
    if (!merged) return parts;
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

function writeSubOps(op: Operation) {
  if (op.op === "multi") return op.args.ops ?? [];
  if (op.op === "create" || op.op === "delete" || op.op === "setData" || op.op === "check") {
    return [{ op: op.op, path: op.path, args: op.args }];
  }
  return [];
}

/** Per session, the ephemeral creates (sub-ops too) of its ops, whatever their outcome, in order. */
function ephemeralCreatesBySession(ops: readonly Operation[]): Map<string, SubOpLike[]> {
  const bySession = new Map<string, SubOpLike[]>();
  for (const c of ops) {
    for (const s of writeSubOps(c)) {
      if (s.op !== "create" || !(s.args.mode ?? "").startsWith("EPHEMERAL")) continue;
      push(bySession, c.session, s);
    }
  }
  return bySession;
}

type SubOpLike = { op: string; path: string; args: Operation["args"] };

function access(op: Operation, seq: SeqPrefixes, ephemerals: ReadonlyMap<string, readonly SubOpLike[]>, components: Components): Access {
  const a: Access = { reads: new Set(), writes: new Set() };
  const mayWrite = op.outcome !== "fail";
  const node = (p: string, kind: typeof E | typeof D, into: Set<number>) => {
    into.add(components.of(kind, p));
    if (sequentiallyNamed(p, seq, components)) into.add(components.of(S, components.parent(p)));
  };
  const w = mayWrite ? a.writes : new Set<number>();
  switch (op.op) {
    case "sync":
      break;
    case "getData":
    case "exists":
    case "getChildren": {
      node(op.path, E, a.reads);
      node(op.path, D, a.reads);
      const stat = op.result?.stat;
      if (op.op === "getChildren" || stat?.numChildren !== undefined || stat?.cversion !== undefined) a.reads.add(components.of(K, op.path));
      if (stat?.cversion !== undefined) a.reads.add(components.of(C, op.path));
      break;
    }
    case "closeSession":
      for (const s of ephemerals.get(op.session) ?? []) {
        const parent = components.parent(s.path);
        node(s.path, E, a.reads);
        node(s.path, E, w);
        if ((s.args.mode ?? "").includes("SEQUENTIAL")) {
          a.reads.add(components.of(S, parent));
          w.add(components.of(S, parent));
        }
        w.add(components.of(K, parent));
      }
      break;
    case "create":
    case "delete":
    case "setData":
    case "check":
    case "multi":
      for (const s of writeSubOps(op)) subAccess(s, a.reads, w, node, components);
      break;
  }
  return a;
}

function subAccess(
  s: SubOpLike,
  reads: Set<number>,
  writes: Set<number>,
  node: (p: string, kind: typeof E | typeof D, into: Set<number>) => void,
  components: Components,
): void {
  const parent = components.parent(s.path);
  switch (s.op) {
    case "create":
      node(parent, E, reads);
      writes.add(components.of(K, parent));
      writes.add(components.of(C, parent));
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
      }
      break;
    case "delete":
      node(s.path, E, reads);
      if ((s.args.version ?? -1) !== -1) node(s.path, D, reads);
      reads.add(components.of(K, s.path));
      node(s.path, E, writes);
      writes.add(components.of(K, parent));
      break;
    case "setData":
      node(s.path, E, reads);
      node(s.path, D, reads);
      // Its result is a Stat whose cversion and numChildren the model checks: it reads the
      // node's child list and creation counter too.
      reads.add(components.of(K, s.path));
      reads.add(components.of(C, s.path));
      node(s.path, D, writes);
      break;
    case "check":
      node(s.path, E, reads);
      node(s.path, D, reads);
      break;
  }
}

// ---- synthetic session ends ------------------------------------------------------------------

/** An unknown closeSession for each session that created ephemerals and has no explicit end. */
function sessionEnds(ops: readonly Operation[]): Operation[] {
  const ended = new Set(ops.filter((o) => o.op === "closeSession").map((o) => o.session));
  const firstEphemeral = new Map<string, number>();
  for (const op of ops) {
    if (op.outcome === "fail" || ended.has(op.session)) continue;
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
