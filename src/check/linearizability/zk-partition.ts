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

/** The kinds of component of one path, E, D, K, C and S of the header. */
const E = 0;
const D = 1;
const K = 2;
const C = 3;
const S = 4;
const A = 5;
const T = 6;
const KINDS = 7;

/**
 * A path as the partitioner knows it: its components are numbered `base + kind` (`base` is the
 * path's number, in order of first sight, times `KINDS`), its parent and whether a sequential
 * create may have named it are worked out once. One map lookup per path an op names, where a
 * string per component (several per op) used to be built and looked up.
 */
interface PathInfo {
  readonly path: string;
  readonly base: number;
  parent: PathInfo | undefined;
  /** -1 not known yet; 1 when a sequential create under its parent may have produced this name. */
  named: number;
}

class Components {
  private readonly paths = new Map<string, PathInfo>();

  constructor(private readonly seq: SeqPrefixes) {}

  info(path: string): PathInfo {
    let p = this.paths.get(path);
    if (p === undefined) this.paths.set(path, (p = { path, base: this.paths.size * KINDS, parent: undefined, named: -1 }));
    return p;
  }

  /** `parentOf`, remembered. */
  parent(p: PathInfo): PathInfo {
    return (p.parent ??= this.info(parentOf(p.path)));
  }

  /** Is the path a name some sequential create under its parent may have produced? */
  named(p: PathInfo): boolean {
    if (p.named < 0) {
      p.named = 0;
      const prefixes = this.seq.get(this.parent(p).path);
      if (prefixes !== undefined) {
        for (let k = 0; k < prefixes.length; k++) {
          if (isSequentialName(p.path, prefixes[k]!)) {
            p.named = 1;
            break;
          }
        }
      }
    }
    return p.named === 1;
  }
}

/**
 * Per component, the ops that read it and the ops that may write it, in op order, each op once:
 * filled op by op (`op`), so an op already listed is the list's last entry. The same lists as one
 * set of components per op would give, without the two sets per op.
 */
class Accesses {
  readonly readers: (number[] | undefined)[] = [];
  readonly writers: (number[] | undefined)[] = [];
  /** The op being read. */
  op = 0;
  /** False for an op that definitely failed: it writes nothing. */
  writing = true;

  read(c: number): void {
    addOnce(this.readers, c, this.op);
  }

  write(c: number): void {
    if (this.writing) addOnce(this.writers, c, this.op);
  }

  /** E or D of `p`, and S of its parent when a sequential create may have named it. */
  node(p: PathInfo, kind: typeof E | typeof D, write: boolean, components: Components): void {
    if (write) this.write(p.base + kind);
    else this.read(p.base + kind);
    if (!components.named(p)) return;
    const s = components.parent(p).base + S;
    if (write) this.write(s);
    else this.read(s);
  }
}

function addOnce(lists: (number[] | undefined)[], c: number, i: number): void {
  const list = lists[c];
  if (list === undefined) lists[c] = [i];
  else if (list[list.length - 1] !== i) list.push(i);
}

export function partitionZkHistory(input: readonly Operation[], options: ZkPartitionOptions): Partition[] {
  const ops = options.sessionsMayEnd ? [...input, ...sessionEnds(input)] : [...input];
  const seq = sequentialPrefixes(ops);
  const ctx: Context = {
    ephemerals: ephemeralCreatesBySession(ops),
    counted: new Set(ops.filter((o) => o.op === "getAllChildrenNumber").map((o) => o.path)),
    components: new Components(seq),
    at: new Accesses(),
  };
  for (let i = 0; i < ops.length; i++) access(ops[i]!, i, ctx);
  const uf = new UnionFind(ops.length);
  const deps = joinByComponents(ops, ctx.at, uf);
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

/**
 * Joins readers with writers per component; returns the settled dependencies reader → writers.
 * (Components are taken in number order: each is joined on its own, unions do not depend on
 * their order and the dependencies are sets, so any order gives the same partitions.)
 */
function joinByComponents(ops: readonly Operation[], at: Accesses, uf: UnionFind): Map<number, Set<number>> {
  const { readers, writers } = at;
  const deps = new Map<number, Set<number>>();
  for (let comp = 0; comp < readers.length; comp++) {
    const rs = readers[comp];
    const ws = writers[comp];
    if (rs === undefined || ws === undefined) continue;
    if (ws.length === 1 && canSettle(ops[ws[0]!]!)) {
      const w = ws[0]!;
      const wDone = ops[w]!.completeUs!;
      for (let k = 0; k < rs.length; k++) {
        const r = rs[k]!;
        if (r === w) continue;
        if (ops[r]!.invokeUs > wDone) {
          let d = deps.get(r);
          if (d === undefined) deps.set(r, (d = new Set()));
          d.add(w);
        } else uf.union(r, w);
      }
      continue;
    }
    const first = rs[0]!;
    for (let k = 1; k < rs.length; k++) uf.union(first, rs[k]!);
    for (let k = 0; k < ws.length; k++) uf.union(first, ws[k]!);
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
    const ws = deps.get(i);
    if (ws === undefined) continue;
    for (const w of ws) {
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
 * each once: a recipe creates under one prefix again and again).
 */
type SeqPrefixes = Map<string, string[]>;

function sequentialPrefixes(ops: readonly Operation[]): SeqPrefixes {
  const byParent: SeqPrefixes = new Map();
  const add = (s: SubOpLike) => {
    if (s.op !== "create" || !(s.args.mode ?? "").includes("SEQUENTIAL")) return;
    const parent = parentOf(s.path);
    const prefixes = byParent.get(parent);
    if (prefixes === undefined) byParent.set(parent, [s.path]);
    else if (!prefixes.includes(s.path)) prefixes.push(s.path);
  };
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op.op === "create") add(op);
    else if (op.op === "multi") for (const s of op.args.ops ?? []) add(s);
  }
  return byParent;
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
  for (let i = 0; i < ops.length; i++) {
    const c = ops[i]!;
    if (c.op === "create") {
      if ((c.args.mode ?? "").startsWith("EPHEMERAL")) push(bySession, c.session, { op: c.op, path: c.path, args: c.args });
    } else if (c.op === "multi") {
      for (const s of c.args.ops ?? []) if (s.op === "create" && (s.args.mode ?? "").startsWith("EPHEMERAL")) push(bySession, c.session, s);
    }
  }
  return bySession;
}

type SubOpLike = { op: string; path: string; args: Operation["args"] };

/** What `access` reads besides the op: ephemerals by session, counted subtrees; and where it writes. */
interface Context {
  ephemerals: ReadonlyMap<string, readonly SubOpLike[]>;
  /** The paths some getAllChildrenNumber counts below. */
  counted: ReadonlySet<string>;
  components: Components;
  at: Accesses;
}

/** The components op `i` reads, and writes unless it definitely failed, into `ctx.at`. */
function access(op: Operation, i: number, ctx: Context): void {
  const { components, at } = ctx;
  at.op = i;
  at.writing = op.outcome !== "fail";
  switch (op.op) {
    case "sync":
    case "whoAmI":
      break;
    case "getData":
    case "exists":
    case "getChildren":
    case "getACL":
    case "getAllChildrenNumber": {
      const p = components.info(op.path);
      readsNode(p, at, components);
      if (op.op === "getAllChildrenNumber") at.read(p.base + T);
      break;
    }
    case "multiRead":
      for (const s of op.args.ops ?? []) readsNode(components.info(s.path), at, components);
      break;
    case "getEphemerals": {
      const prefix = op.path.trim();
      for (const s of ctx.ephemerals.get(op.session) ?? []) {
        if (prefix !== "" && prefix !== "/" && !s.path.startsWith(prefix) && !prefix.startsWith(s.path)) continue;
        const p = components.info(s.path);
        if ((s.args.mode ?? "").includes("SEQUENTIAL")) at.read(components.parent(p).base + S);
        else at.node(p, E, false, components);
      }
      break;
    }
    case "closeSession":
      for (const s of ctx.ephemerals.get(op.session) ?? []) {
        const p = components.info(s.path);
        const parent = components.parent(p);
        at.node(p, E, false, components);
        at.node(p, E, true, components);
        if ((s.args.mode ?? "").includes("SEQUENTIAL")) {
          at.read(parent.base + S);
          at.write(parent.base + S);
        }
        at.write(parent.base + K);
        countsBelow(parent, ctx);
      }
      break;
    case "create":
    case "delete":
    case "setData":
    case "check":
    case "setACL":
    case "reap":
      subAccess(op.op, op.path, op.args, ctx);
      break;
    case "multi":
      for (const s of op.args.ops ?? []) subAccess(s.op, s.path, s.args, ctx);
      break;
  }
}

/** Everything a read of `p` with its Stat can see: E, D, K, C and A (its ACL decides, too). */
function readsNode(p: PathInfo, at: Accesses, components: Components): void {
  at.node(p, E, false, components);
  at.node(p, D, false, components);
  at.read(p.base + K);
  at.read(p.base + C);
  at.read(p.base + A);
}

/** T of every counted ancestor of a node created or deleted under `parent` (parent included). */
function countsBelow(parent: PathInfo, ctx: Context): void {
  if (ctx.counted.size === 0) return;
  for (let p = parent; ; p = ctx.components.parent(p)) {
    if (ctx.counted.has(p.path)) ctx.at.write(p.base + T);
    if (p.path === "/") return;
  }
}

function subAccess(op: string, path: string, args: Operation["args"], ctx: Context): void {
  const { components, at } = ctx;
  const p = components.info(path);
  const parent = components.parent(p);
  switch (op) {
    case "create":
      at.node(parent, E, false, components);
      at.read(parent.base + A);
      at.write(parent.base + K);
      at.write(parent.base + C);
      countsBelow(parent, ctx);
      if ((args.mode ?? "").includes("SEQUENTIAL")) {
        at.read(parent.base + C);
        at.read(parent.base + S);
        at.write(parent.base + S);
      } else {
        at.node(p, E, false, components);
        at.node(p, E, true, components);
        at.node(p, D, true, components);
        at.write(p.base + K);
        at.write(p.base + C);
        at.write(p.base + A);
      }
      break;
    case "delete":
    case "reap":
      at.node(parent, E, false, components);
      at.read(parent.base + A);
      at.node(p, E, false, components);
      // A reap judges the node's kind, counter and mtime; a delete with a version its version.
      if (op === "reap" || (args.version ?? -1) !== -1) at.node(p, D, false, components);
      if (op === "reap") at.read(p.base + C);
      at.read(p.base + K);
      at.node(p, E, true, components);
      at.write(parent.base + K);
      countsBelow(parent, ctx);
      break;
    case "setData":
    case "setACL":
      // Its result is a Stat the model checks whole: it reads every component of the node.
      readsNode(p, at, components);
      if (op === "setData") at.node(p, D, true, components);
      else at.write(p.base + A);
      break;
    case "check":
      at.node(p, E, false, components);
      at.node(p, D, false, components);
      at.read(p.base + A);
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
