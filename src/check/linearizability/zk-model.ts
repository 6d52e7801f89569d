/**
 * The sequential specification of a ZooKeeper data tree, for the linearizability checker.
 *
 * What it models (docs/zookeeper.md §1.3–1.6, §4): create (persistent, ephemeral, sequential names
 * from the parent's stored cversion), delete, setData, check with version checks; the error
 * precedence NONODE → NODEEXISTS → NOCHILDRENFOREPHEMERALS for create and NONODE →
 * BADVERSION → NOTEMPTY for delete; getData / exists / getChildren results (children compared
 * as sets: ZooKeeper's order is a hash order, clients must not rely on it); multi
 * all-or-nothing, sub-ops validated against the state left by the earlier ones, the
 * first failing code reported; a session end deleting the session's ephemerals.
 *
 * Result checking compares what the history recorded and nothing else: data, the created
 * name, and the Stat fields version, cversion (as clients see it: 2·stored − numChildren),
 * numChildren, dataLength, ephemeralOwner. Zxid and time fields of a Stat are not checked.
 *
 * Not modelled: ACLs (NOAUTH), quotas, TTL and container reaping (containers and TTL nodes
 * behave as persistent nodes), path validation (BADARGUMENTS), reconfig, watches, and
 * whether a session is alive (an expired session's ops are not rejected by the model).
 */
import type { CodeName } from "../../zk/proto/error-code.js";
import { NO_SESSION, type Operation, type StatFields, type SubOp, type SubResult } from "../history/history.js";
import type { Partition, SequentialModel } from "./model.js";
import { partitionZkHistory } from "./zk-partition.js";
import {
  Draft,
  ZkTree,
  isSequentialName,
  check,
  create,
  remove,
  setData,
  utf8Length,
  type WriteOutcome,
  type ZNode,
} from "./zk-tree.js";

export interface ZkModelOptions {
  /**
   * Nodes present before the history starts (ancestors are added), as paths or path → data.
   * Default: the tree of a fresh server: `/`, `/zookeeper`, `/zookeeper/quota`, `/zookeeper/config`.
   */
  initialTree?: readonly string[] | Readonly<Record<string, string>>;
  /**
   * When a session that created ephemerals has no "closeSession" op in the history, add one
   * with an unknown outcome (its ephemerals may vanish at any time after its first ephemeral
   * create). Default true: a session may expire without the history saying so.
   */
  sessionsMayEnd?: boolean;
}

export const DEFAULT_INITIAL_TREE: readonly string[] = ["/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"];

export function zkModel(options: ZkModelOptions = {}): SequentialModel<ZkTree> {
  const initial = options.initialTree === undefined ? defaultTree() : initialTree(options.initialTree);
  const preambles = new PreambleMemo(initial, (s, op) => model.step(s, op));
  const model: SequentialModel<ZkTree> = {
    name: "zookeeper-data-tree",
    init: () => initial,
    initAfter: (preamble) => preambles.after(preamble),
    step: (state, op) => evaluate(state, op).next,
    key: (state) => state.exactKey(),
    keyFor: (part, exact) => keyFor(part, exact),
    signatureFor: (part) => signatureFor(part),
    unexplained: (ops) => unwrittenRead(initial, ops),
    // A session's requests run in submission order (§6), whatever happened to the connection
    // they went out on: a reconnecting client's old requests are applied before its new ones or
    // not at all (the server closes the old connection; a request forwarded from a server the
    // session has left fails SESSIONMOVED). Synthetic session ends and ops sent before the
    // handshake (no session yet) are ordered by time only.
    submissionOrderKey: (op) => (op.op === "closeSession" || NO_SESSION.has(op.session) ? undefined : `${op.client} ${op.session}`),
    describe: describeState,
    explain: (state, op) => evaluate(state, op).why?.() ?? "the model accepts it",
    partition: (ops: readonly Operation[]): Partition[] =>
      partitionZkHistory(ops, {
        sessionsMayEnd: options.sessionsMayEnd ?? true,
        preambleApplies: (preamble) => preambles.after(preamble) !== undefined,
      }),
  };
  return model;
}

/**
 * Keys that leave out the data of nodes no op of the partition reads: a queue's items, say,
 * whose data only their consumer reads. Without this, indeterminate creates of different data
 * make states that nobody can tell apart look different, and the memo stops merging them.
 */
function keyFor(part: Partition, exact: boolean): (state: ZkTree) => string {
  const observed = dataReadPaths(part);
  const paths = [...observed].sort();
  const cache = new WeakMap<ZkTree, string>();
  return (tree) => {
    let k = cache.get(tree);
    if (k === undefined) {
      k = exact ? tree.exactKey(observed) : tree.fastKey(paths);
      cache.set(tree, k);
    }
    return k;
  };
}

/** Paths whose data some op of the partition reads (getData's data, a Stat's dataLength). */
function dataReadPaths(part: Partition): Set<string> {
  const observed = new Set<string>();
  for (const op of part.ops) {
    if (op.result?.data !== undefined || (op.result?.stat && op.result.stat.dataLength !== undefined)) {
      if (op.op === "getData" || op.op === "exists" || op.op === "getChildren") observed.add(op.path);
    }
  }
  return observed;
}

/** The op without its data when no op of the partition can read the data it writes. */
function signatureFor(part: Partition): (op: Operation) => string {
  const observed = [...dataReadPaths(part)];
  const dataSeen = (path: string, sequential: boolean) =>
    sequential ? observed.some((p) => isSequentialName(p, path)) : observed.includes(path);
  return (op) => {
    const mode = op.args.mode ?? "";
    const simple = op.op === "create" || op.op === "setData";
    const hide = simple && !dataSeen(op.path, mode.includes("SEQUENTIAL"));
    const owner = mode.startsWith("EPHEMERAL") || op.op === "closeSession" ? op.session : "";
    return JSON.stringify([op.op, op.path, hide ? null : op.args.data ?? "", op.args.version ?? -1, mode, op.args.ops ?? null, owner]);
  };
}

/**
 * The initial tree after each preamble, as a trie over op identities: the partitions of a
 * history share a few preambles (the creates of the recipe's parent nodes), each asked for
 * when the partition is formed and again when it is searched. Ops are never mutated once
 * normalised, so an op object stands for its effect.
 */
class PreambleMemo {
  private readonly root = new Map<Operation, PreambleEntry>();

  constructor(
    private readonly initial: ZkTree,
    private readonly step: (state: ZkTree, op: Operation) => ZkTree | undefined,
  ) {}

  after(preamble: readonly Operation[]): ZkTree | undefined {
    let state: ZkTree | undefined = this.initial;
    let level = this.root;
    for (const op of preamble) {
      let entry = level.get(op);
      if (entry === undefined) {
        entry = { state: state === undefined ? undefined : this.step(state, op), next: new Map() };
        level.set(op, entry);
      }
      state = entry.state;
      level = entry.next;
    }
    return state;
  }
}

interface PreambleEntry {
  state: ZkTree | undefined;
  next: Map<Operation, PreambleEntry>;
}

/** The default initial tree, built once: trees are immutable, and every check starts from it. */
let defaultInitialTree: ZkTree | undefined;
function defaultTree(): ZkTree {
  return (defaultInitialTree ??= initialTree(DEFAULT_INITIAL_TREE));
}

function initialTree(spec: readonly string[] | Readonly<Record<string, string>>): ZkTree {
  const data = new Map<string, string>();
  if (Array.isArray(spec)) for (const p of spec as readonly string[]) data.set(p, "");
  else for (const [p, v] of Object.entries(spec)) data.set(p, v);
  return ZkTree.of(data);
}

/**
 * The first successful getData whose data is neither its path's initial data nor written at
 * that path by any create or setData of the history (multi sub-ops too, whatever their
 * outcome; a sequential create writes at every name its prefix can take). Only those ops
 * change data, so no order of the history can produce such a read.
 */
function unwrittenRead(initial: ZkTree, ops: readonly Operation[]): { op: Operation; why: string } | undefined {
  const writers = new Map<string, { path: string; sequential: boolean }[]>(); // data → where written
  for (const op of ops) {
    const subs = op.op === "multi" ? (op.args.ops ?? []) : [{ op: op.op, path: op.path, args: op.args }];
    for (const sub of subs) {
      if (sub.op !== "create" && sub.op !== "setData") continue;
      const data = sub.args.data ?? "";
      const at = { path: sub.path, sequential: sub.op === "create" && (sub.args.mode ?? "").includes("SEQUENTIAL") };
      const list = writers.get(data);
      if (list === undefined) writers.set(data, [at]);
      else list.push(at);
    }
  }
  for (const op of ops) {
    if (op.op !== "getData" || op.outcome !== "ok" || op.result?.data === undefined) continue;
    const data = op.result.data ?? "";
    if (initial.get(op.path)?.data === data) continue;
    const at = writers.get(data) ?? [];
    if (at.some((w) => w.path === op.path || (w.sequential && isSequentialName(op.path, w.path)))) continue;
    const initially = initial.get(op.path) === undefined ? "" : ` nor ${op.path}'s initial data`;
    return {
      op,
      why: `getData ${op.path} returned ${JSON.stringify(data)}, which no create or setData of the history wrote there${initially}`,
    };
  }
  return undefined;
}

// ---- evaluation ------------------------------------------------------------------------------

/** The successor, or (lazily: the search rejects many candidates and reads few reasons) why not. */
interface Evaluation {
  next?: ZkTree;
  why?: () => string;
}

/** What the op's recorded outcome makes of `tree`: the successor, or why it cannot happen. */
function evaluate(tree: ZkTree, op: Operation): Evaluation {
  switch (op.op) {
    case "sync":
      return { next: tree };
    case "getData":
    case "exists":
    case "getChildren":
      return evaluateRead(tree, op);
    case "closeSession":
      return { next: endSession(tree, op.session) };
    case "create":
    case "delete":
    case "setData":
    case "check":
      return evaluateWrites(tree, op, [{ op: op.op, path: op.path, args: op.args }]);
    case "multi":
      return evaluateWrites(tree, op, op.args.ops ?? []);
  }
}

function evaluateRead(tree: ZkTree, op: Operation): Evaluation {
  const node = tree.get(op.path);
  const here = () => `${op.op} ${op.path}`;
  if (op.outcome === "unknown") return { next: tree };
  if (op.outcome === "fail") {
    if (op.err !== "NONODE") return { why: () => `${here()} cannot fail with ${op.err}: only NONODE` };
    return node === undefined ? { next: tree } : { why: () => `${here()} failed with NONODE, but ${op.path} exists (${nodeText(tree, op.path)})` };
  }
  const r = op.result;
  if (node === undefined) {
    if (op.op === "exists" && (r?.stat === null || r?.stat === undefined)) return { next: tree };
    return { why: () => `${here()} succeeded, but ${op.path} does not exist` };
  }
  if (op.op === "exists" && r?.stat === null) return { why: () => `exists ${op.path} saw no node, but it exists (${nodeText(tree, op.path)})` };
  if (r === undefined) return { next: tree };
  if (op.op === "getData" && r.data !== undefined && (r.data ?? "") !== node.data) {
    return { why: () => `${here()} returned ${JSON.stringify(r.data ?? "")}, but the node holds ${JSON.stringify(node.data)} (version ${node.version})` };
  }
  if (op.op === "getChildren" && r.children !== undefined && !sameChildren(r.children, node.children)) {
    const got = [...r.children].sort();
    return { why: () => `${here()} returned [${got.join(", ")}], but the children are [${node.children.join(", ")}]` };
  }
  const bad = r.stat ? statMismatch(r.stat, node) : undefined;
  return bad === undefined ? { next: tree } : { why: () => `${here()}: ${bad}` };
}

const sortedResults = new WeakMap<readonly string[], readonly string[]>();

/** Compared as sets (ZooKeeper lists children in hash order); `have` is sorted. */
function sameChildren(got: readonly string[], have: readonly string[]): boolean {
  if (got.length !== have.length) return false;
  let sorted = sortedResults.get(got);
  if (sorted === undefined) {
    sorted = [...got].sort();
    sortedResults.set(got, sorted);
  }
  for (let i = 0; i < have.length; i++) if (sorted[i] !== have[i]) return false;
  return true;
}

/** create / delete / setData / check and multi: sub-ops in order, all or nothing. */
function evaluateWrites(tree: ZkTree, op: Operation, subs: readonly SubOp[]): Evaluation {
  const d = new Draft(tree);
  const outs: WriteOutcome[] = [];
  let failedAt = -1;
  for (const sub of subs) {
    const out = applySub(d, sub, op.session);
    outs.push(out);
    if (out.err !== undefined) {
      failedAt = outs.length - 1;
      break;
    }
  }
  const label = () => (op.op === "multi" ? `multi ${subs.map((s) => `${s.op} ${s.path}`).join("; ")}` : `${op.op} ${op.path}`);
  if (op.outcome === "unknown") return { next: failedAt < 0 ? d.finish() : tree };
  if (op.outcome === "fail") {
    if (failedAt < 0) return { why: () => `${label()} failed with ${op.err}, but it would succeed (${pathsText(tree, subs)})` };
    const err = outs[failedAt]!.err!;
    if (err !== op.err) return { why: () => `${label()} failed with ${op.err}, but it would fail with ${err} (${pathsText(tree, subs)})` };
    const bad = op.op === "multi" ? multiErrorsMismatch(op.result?.results, failedAt, err) : undefined;
    return bad === undefined ? { next: tree } : { why: () => `${label()}: ${bad}` };
  }
  if (failedAt >= 0) {
    const sub = subs[failedAt]!;
    return { why: () => `${label()} succeeded, but ${sub.op} ${sub.path} would fail with ${outs[failedAt]!.err} (${pathsText(tree, subs)})` };
  }
  const next = d.finish();
  const bad = resultsMismatch(op, subs, outs, next);
  return bad === undefined ? { next } : { why: () => `${label()}: ${bad}` };
}

function applySub(d: Draft, sub: SubOp, session: string): WriteOutcome {
  const version = sub.args.version ?? -1;
  const data = sub.args.data ?? "";
  switch (sub.op) {
    case "create": {
      const mode = sub.args.mode ?? "PERSISTENT";
      const sequential = mode.includes("SEQUENTIAL");
      return create(d, sub.path, data, sequential, mode.startsWith("EPHEMERAL") ? session : undefined);
    }
    case "delete":
      return remove(d, sub.path, version);
    case "setData":
      return setData(d, sub.path, data, version);
    case "check":
      return check(d, sub.path, version);
  }
}

/** Recorded results of a successful write (created names, Stats) against the new tree. */
function resultsMismatch(op: Operation, subs: readonly SubOp[], outs: WriteOutcome[], next: ZkTree): string | undefined {
  const recorded: (SubResult | undefined)[] =
    op.op === "multi" ? (op.result?.results ?? []) : [op.result ? { path: op.result.path, stat: op.result.stat ?? undefined } : undefined];
  for (let i = 0; i < subs.length; i++) {
    const rec = recorded[i];
    const out = outs[i]!;
    if (rec === undefined || out.err !== undefined) continue;
    if (rec.err !== undefined && rec.err !== "OK") return `sub-op ${i} reported ${rec.err}, but the multi succeeded`;
    if (subs[i]!.op === "create" && rec.path !== undefined && rec.path !== out.path) {
      return `created ${rec.path}, but the next name was ${out.path}`;
    }
    const node = next.get(out.path);
    const bad = rec.stat && node ? statMismatch(rec.stat, node) : undefined;
    if (bad !== undefined) return bad;
  }
  return undefined;
}

/** A failed multi's per-sub-op codes: OK before the failure, the code at it (§4). */
function multiErrorsMismatch(results: SubResult[] | undefined, failedAt: number, err: CodeName): string | undefined {
  if (results === undefined) return undefined;
  for (let i = 0; i < Math.min(results.length, failedAt + 1); i++) {
    const want = i < failedAt ? "OK" : err;
    const got = results[i]!.err;
    if (got !== undefined && got !== want && !(want === "OK" && got === "0")) return `sub-op ${i} reported ${got}, expected ${want}`;
  }
  return undefined;
}

function statMismatch(stat: StatFields, node: ZNode): string | undefined {
  const seen: [string, number | undefined, number][] = [
    ["version", stat.version, node.version],
    ["cversion", stat.cversion, (Math.imul(node.cversion, 2) - node.children.length) | 0],
    ["numChildren", stat.numChildren, node.children.length],
    ["dataLength", stat.dataLength, utf8Length(node.data)],
  ];
  for (const [field, got, want] of seen) {
    if (got !== undefined && got !== want) return `Stat.${field} was ${got}, but the node has ${want}`;
  }
  if (stat.ephemeralOwner !== undefined) {
    const got = sessionNumber(stat.ephemeralOwner);
    const want = node.owner === undefined ? 0n : sessionNumber(node.owner);
    if (got !== undefined && want !== undefined && got !== want) {
      return `Stat.ephemeralOwner was ${stat.ephemeralOwner}, but the owner is ${node.owner ?? "none (persistent)"}`;
    }
  }
  return undefined;
}

function sessionNumber(s: string): bigint | undefined {
  try {
    return BigInt(s);
  } catch {
    return undefined; // a session named in some non-numeric way: compared by the checker only as text
  }
}

/** The session's ephemerals vanish (ephemerals have no children, so order does not matter). */
function endSession(tree: ZkTree, session: string): ZkTree {
  const d = new Draft(tree);
  const doomed = [...d.paths()].filter((p) => d.get(p)!.owner === session).sort();
  for (const p of doomed) d.remove(p);
  return d.finish();
}

// ---- descriptions -----------------------------------------------------------------------------

function nodeText(tree: ZkTree, path: string): string {
  const n = tree.get(path);
  if (n === undefined) return `${path}: no node`;
  const kids = n.children.length === 0 ? "no children" : `children [${n.children.slice(0, 8).join(", ")}${n.children.length > 8 ? ", …" : ""}]`;
  return `${path} = ${JSON.stringify(n.data)} version ${n.version}, ${kids}${n.owner !== undefined ? `, ephemeral of ${n.owner}` : ""}`;
}

function pathsText(tree: ZkTree, subs: readonly SubOp[]): string {
  return [...new Set(subs.map((s) => s.path))].map((p) => nodeText(tree, p)).join("; ");
}

function describeState(tree: ZkTree, op: Operation): string {
  if (op.op === "closeSession") {
    const mine = [...tree.nodes.keys()].filter((p) => tree.get(p)!.owner === op.session).sort();
    return mine.length === 0 ? `no ephemerals of ${op.session}` : mine.map((p) => nodeText(tree, p)).join("; ");
  }
  const subs = op.op === "multi" ? (op.args.ops ?? []) : [{ op: "check" as const, path: op.path, args: {} }];
  return pathsText(tree, subs);
}
