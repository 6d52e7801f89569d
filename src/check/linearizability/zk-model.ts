/**
 * The sequential reference model of a ZooKeeper 3.8 server, for the linearizability checker: the
 * specification every definite reply is judged by, written from docs/zookeeper.md and Java's
 * classes named there, sharing no code with `zk/server` (a checker built on the server's DataTree
 * would share its bugs).
 *
 * What it models: the tree (zk-tree.ts) — every Stat field, cversion as clients see it and pzxid,
 * sequence numbers from the parent's stored cversion, node kinds (persistent, ephemeral,
 * container, TTL); the writes with Java's error precedence (zk-writes.ts: create in every mode,
 * delete, setData, setACL, check) and multi — all or nothing, sub-ops validated against the state
 * the earlier ones left, per-op results OK before the failure, its code at it,
 * RUNTIMEINCONSISTENCY after it; the reads (zk-reads.ts: getData, exists, getChildren(2), getACL
 * with masking, getEphemerals, getAllChildrenNumber, whoAmI, multiRead); ACL decisions (zk-acl.ts:
 * world, auth, digest, ip, super); a session's end deleting its ephemerals; the ContainerManager
 * reaping containers and TTL nodes (`reap` ops the checker adds where the trace shows one chosen).
 *
 * What the model does not know it learns or leaves open, never guesses: an indeterminate write's
 * zxid and the leader's clock are learned from the first Stat that shows them; an ACL decision
 * that rests on an unknown (a client address the run did not record, credentials added while the
 * op was in flight) accepts either answer, and the answer settles it; a server setting the run
 * did not record (extended types, a super digest) likewise.
 *
 * Not modelled: quotas, reconfig, path validation beyond the special paths (the client validates
 * before sending), watches (judged by the watch checkers), whether a session is alive (an expired
 * session's ops are not rejected: their failures are indeterminate).
 */
import type { CodeName } from "../../zk/proto/error-code.js";
import { NO_SESSION, isReadOnly, type Operation, type SubOp, type SubResult } from "../history/history.js";
import type { Partition, SequentialModel } from "./model.js";
import { partitionZkHistory } from "./zk-partition.js";
import { UNKNOWN_FACTS, identitiesOf, type Identities, type ServerFacts } from "./zk-acl.js";
import { aclText, judgeRead, matchStat } from "./zk-reads.js";
import { Draft, NodeInterner, READ_ACL, ZkTree, isSequentialName, type ZNode } from "./zk-tree.js";
import { check, create, reap, remove, setAcl, setData, unlink, type Caller, type WriteOutcome } from "./zk-writes.js";

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
  /** What is known of the servers' settings and the clients' addresses (default: nothing). */
  facts?: ServerFacts;
}

export const DEFAULT_INITIAL_TREE: readonly string[] = ["/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"];

export function zkModel(options: ZkModelOptions = {}): SequentialModel<ZkTree> {
  const initial = options.initialTree === undefined ? defaultTree() : initialTree(options.initialTree);
  const ev = new Evaluator(options.facts ?? UNKNOWN_FACTS);
  const preambles = new PreambleMemo(initial, (s, op) => model.step(s, op));
  const model: SequentialModel<ZkTree> = {
    name: "zookeeper-data-tree",
    init: () => initial,
    initAfter: (preamble) => preambles.after(preamble),
    step: (state, op) => ev.evaluate(state, op).next,
    key: (state) => state.exactKey(),
    exactKeyer: () => {
      const interner = new NodeInterner();
      return (state) => interner.key(state);
    },
    keyFor: (part, exact) => keyFor(part, exact),
    signatureFor: (part) => signatureFor(part),
    unexplained: (ops) => unwrittenRead(initial, ops),
    // A session's requests run in submission order (§6), whatever happened to the connection
    // they went out on: a reconnecting client's old requests are applied before its new ones or
    // not at all (the server closes the old connection; a request forwarded from a server the
    // session has left fails SESSIONMOVED). Synthetic session ends and reaps, and ops sent
    // before the handshake (no session yet) are ordered by time only.
    submissionOrderKey: (op) => (op.op === "closeSession" || op.op === "reap" || noSession(op.session) ? undefined : `${op.client} ${op.session}`),
    // No txn of a session follows its closeSession's (docs/zookeeper.md §3.4, ZOOKEEPER-1208):
    // Java's PrepRequestProcessor checks the session of every write it prepares, and one whose
    // close it has prepared (`setSessionClosing`) or applied fails SESSIONEXPIRED, without a
    // change. So a write of a session is linearized before the session's end or not at all,
    // whichever client handle sent it. Reads are not fenced (followers serve reads of a session
    // the leader has expired until the close reaches them), nor ops with no session yet, nor the
    // ContainerManager's reaps.
    sessionFence: (op) => {
      if (op.op === "reap" || noSession(op.session)) return undefined;
      if (op.op === "closeSession") return op.outcome === "fail" ? undefined : { session: op.session, ends: true };
      return isReadOnly(op) ? undefined : { session: op.session, ends: false };
    },
    describe: describeState,
    explain: (state, op) => ev.evaluate(state, op).why?.() ?? "the model accepts it",
    partition: (ops: readonly Operation[]): Partition[] =>
      partitionZkHistory(ops, {
        sessionsMayEnd: options.sessionsMayEnd ?? true,
        preambleApplies: (preamble) => preambles.after(preamble) !== undefined,
      }),
  };
  return model;
}

/** `NO_SESSION.has(session)`, without a set lookup per op (the search asks for every op). */
function noSession(session: string): boolean {
  return session.length <= 3 && NO_SESSION.has(session);
}

/**
 * Keys that leave out the data of nodes no op of the partition reads: a queue's items, say,
 * whose data only their consumer reads. Without this, indeterminate creates of different data
 * make states that nobody can tell apart look different, and the memo stops merging them.
 */
function keyFor(part: Partition, exact: boolean): (state: ZkTree) => string {
  const observed = dataReadPaths(part);
  const paths = [...observed].sort();
  const owner = {};
  return (tree) => {
    if (tree.keyOwner === owner) return tree.keyText;
    const k = exact ? tree.exactKey(observed) : tree.fastKey(paths);
    tree.keyOwner = owner;
    tree.keyText = k;
    return k;
  };
}

/** Ops whose result can show a node's data or its length: data, or any Stat (dataLength). */
const READS_DATA: ReadonlySet<string> = new Set(["getData", "exists", "getChildren", "getACL"]);

/** Paths whose data some op of the partition reads (getData's data, a Stat's dataLength). */
function dataReadPaths(part: Partition): Set<string> {
  const observed = new Set<string>();
  for (const op of part.ops) {
    if (op.op === "multiRead") {
      for (const [i, sub] of (op.args.ops ?? []).entries()) {
        const r = op.result?.results?.[i];
        if (r?.data !== undefined || r?.stat !== undefined) observed.add(sub.path);
      }
      continue;
    }
    if (!READS_DATA.has(op.op)) continue;
    if (op.result?.data !== undefined || (op.result?.stat && op.result.stat.dataLength !== undefined)) observed.add(op.path);
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
    const who = op.args.acl !== undefined || op.op === "setACL" || op.credentials !== undefined ? `${op.client} ${JSON.stringify(op.credentials ?? [])}` : "";
    return JSON.stringify([op.op, op.path, hide ? null : op.args.data ?? "", op.args.version ?? -1, mode, op.args.ops ?? null, owner, op.args.acl ?? null, op.args.ttl ?? null, who, String(op.zxid ?? "")]);
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

/** `/zookeeper/config` holds the deployment's configuration (§1.7): readable by anyone, otherwise opaque. */
const CONFIG_PATH = "/zookeeper/config";

function initialTree(spec: readonly string[] | Readonly<Record<string, string>>): ZkTree {
  const data = new Map<string, string>();
  if (Array.isArray(spec)) for (const p of spec as readonly string[]) data.set(p, "");
  else for (const [p, v] of Object.entries(spec)) data.set(p, v);
  const config = data.has(CONFIG_PATH);
  return ZkTree.of(data, new Set(config ? [CONFIG_PATH] : []), new Map(config ? [[CONFIG_PATH, READ_ACL]] : []));
}

/**
 * The first successful getData whose data is neither its path's initial data nor written at
 * that path by any create or setData of the history (multi sub-ops too, whatever their
 * outcome; a sequential create writes at every name its prefix can take). Only those ops
 * change data, so no order of the history can produce such a read.
 */
function unwrittenRead(initial: ZkTree, ops: readonly Operation[]): { op: Operation; why: string } | undefined {
  // data → where written, for the data some getData returned that is not its path's initial
  // data (only those are looked up: no entry per write of data nobody read).
  const writers = new Map<string, { path: string; sequential: boolean }[]>();
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k]!;
    if (!needsWriter(initial, op)) continue;
    const data = op.result!.data ?? "";
    if (!writers.has(data)) writers.set(data, []);
  }
  if (writers.size === 0) return undefined;
  const wrote = (sub: { op: string; path: string; args: Operation["args"] }) => {
    if (sub.op !== "create" && sub.op !== "setData") return;
    const list = writers.get(sub.args.data ?? "");
    if (list !== undefined) list.push({ path: sub.path, sequential: sub.op === "create" && (sub.args.mode ?? "").includes("SEQUENTIAL") });
  };
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k]!;
    if (op.op === "multi") for (const sub of op.args.ops ?? []) wrote(sub);
    else wrote(op);
  }
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k]!;
    if (!needsWriter(initial, op)) continue;
    const data = op.result!.data ?? "";
    const node = initial.get(op.path);
    const at = writers.get(data)!;
    if (at.some((w) => w.path === op.path || (w.sequential && isSequentialName(op.path, w.path)))) continue;
    const initially = node === undefined ? "" : ` nor ${op.path}'s initial data`;
    return {
      op,
      why: `getData ${op.path} returned ${JSON.stringify(data)}, which no create or setData of the history wrote there${initially}`,
    };
  }
  return undefined;
}

/** A successful getData whose data is neither its path's initial data nor opaque: some write must have written it. */
function needsWriter(initial: ZkTree, op: Operation): boolean {
  if (op.op !== "getData" || op.outcome !== "ok" || op.result?.data === undefined) return false;
  const node = initial.get(op.path);
  return !(node?.data === (op.result.data ?? "") || node?.opaque === true);
}

// ---- evaluation ------------------------------------------------------------------------------

/** The successor, or (lazily: the search rejects many candidates and reads few reasons) why not. */
interface Evaluation {
  next?: ZkTree;
  why?: () => string;
}

/** Evaluates ops against trees, with what it knows of the servers (and each op's identities, once). */
class Evaluator {
  private readonly identities = new WeakMap<Operation, Identities>();

  constructor(private readonly facts: ServerFacts) {}

  /** The identities of a client's ops that carry no credentials, by client. */
  private readonly plain = new Map<string, Identities>();

  private idsOf(op: Operation): Identities {
    if (op.credentials === undefined && op.credentialsUncertain !== true) {
      let ids = this.plain.get(op.client);
      if (ids === undefined) this.plain.set(op.client, (ids = identitiesOf(this.facts, op.client, undefined, false)));
      return ids;
    }
    let ids = this.identities.get(op);
    if (ids === undefined) {
      ids = identitiesOf(this.facts, op.client, op.credentials, op.credentialsUncertain === true);
      this.identities.set(op, ids);
    }
    return ids;
  }

  /** What the op's recorded outcome makes of `tree`: the successor, or why it cannot happen. */
  evaluate(tree: ZkTree, op: Operation): Evaluation {
    switch (op.op) {
      case "sync":
        return { next: tree };
      case "getData":
      case "exists":
      case "getChildren":
      case "getACL":
      case "getAllChildrenNumber":
      case "getEphemerals":
      case "whoAmI":
        return this.read(tree, op);
      case "multiRead":
        return this.multiRead(tree, op);
      case "closeSession":
        return { next: endSession(tree, op.session, op.outcome === "unknown" ? undefined : op.zxid) };
      case "reap":
      case "create":
      case "delete":
      case "setData":
      case "check":
      case "setACL":
        // The op is its own sub-op (its op, path and args are all a sub-op has).
        return this.writes(tree, op, [op as WriteSub]);
      case "multi":
        return this.writes(tree, op, op.args.ops ?? []);
    }
  }

  private read(tree: ZkTree, op: Operation): Evaluation {
    if (op.outcome === "unknown") return { next: tree };
    const v = judgeRead(tree, { op: op.op, path: op.path, session: op.session, outcome: op.outcome, err: op.err, result: op.result }, this.idsOf(op));
    if (!v.ok) return { why: () => v.why };
    if (v.learned === undefined) return { next: tree };
    const d = new Draft(tree);
    d.set(op.path, v.learned);
    return { next: d.finish() };
  }

  /** multiRead: each sub-op on its own against the same tree (no rollback, no zxid). */
  private multiRead(tree: ZkTree, op: Operation): Evaluation {
    if (op.outcome === "unknown") return { next: tree };
    const subs = op.args.ops ?? [];
    const results = op.result?.results;
    if (op.outcome === "fail") return { why: () => `multiRead failed with ${op.err}, but each of its reads answers on its own` };
    if (results !== undefined && results.length !== subs.length) return { why: () => `multiRead of ${subs.length} reads returned ${results.length} results` };
    let d: Draft | undefined;
    for (const [i, sub] of subs.entries()) {
      const r = results?.[i];
      if (r === undefined) continue;
      const failed = r.err !== undefined && r.err !== "OK" && r.err !== "0";
      const current = d?.get(sub.path) === undefined ? tree : d.finish();
      const v = judgeRead(current, { op: sub.op, path: sub.path, session: op.session, outcome: failed ? "fail" : "ok", err: failed ? r.err : undefined, result: r }, this.idsOf(op));
      if (!v.ok) return { why: () => `multiRead read ${i}: ${v.why}` };
      if (v.learned !== undefined) (d ??= new Draft(tree)).set(sub.path, v.learned);
    }
    return { next: d === undefined ? tree : d.finish() };
  }

  /** create / delete / setData / setACL / check / reap and multi: sub-ops in order, all or nothing. */
  private writes(tree: ZkTree, op: Operation, subs: readonly WriteSub[]): Evaluation {
    const d = new Draft(tree);
    const outs: WriteOutcome[] = [];
    // Each sub-op's node right after it: what its result's Stat shows (a later sub-op may change it).
    const after: (ZNode | undefined)[] = [];
    let failedAt = -1;
    const recorded = op.op === "multi" ? op.result?.results : undefined;
    // One caller for the sub-ops: only the code each was answered with differs (the writes keep none of it).
    const caller: Caller = {
      session: op.session,
      ids: this.idsOf(op),
      zxid: op.outcome === "unknown" ? undefined : op.zxid,
      facts: this.facts,
      answered: undefined,
      invokeUs: op.invokeUs,
      completeUs: op.completeUs ?? Infinity,
    };
    for (let i = 0; i < subs.length; i++) {
      caller.answered = op.outcome !== "fail" ? undefined : recorded === undefined ? op.err : codeOf(recorded[i]);
      const out = applySub(d, subs[i]!, caller);
      outs.push(out);
      after.push(out.err === undefined ? d.get(out.path) : undefined);
      if (out.err !== undefined) {
        failedAt = i;
        break;
      }
    }
    if (op.outcome === "unknown") return { next: failedAt < 0 ? d.finish() : tree };
    if (op.outcome === "fail") {
      if (failedAt < 0) return { why: () => `${writeLabel(op, subs)} failed with ${op.err}, but it would succeed (${pathsText(tree, subs)})` };
      const err = outs[failedAt]!.err!;
      if (err !== op.err) return { why: () => `${writeLabel(op, subs)} failed with ${op.err}, but it would fail with ${err} (${pathsText(tree, subs)})` };
      const bad = op.op === "multi" ? multiErrorsMismatch(recorded, subs.length, failedAt, err) : undefined;
      return bad === undefined ? { next: tree } : { why: () => `${writeLabel(op, subs)}: ${bad}` };
    }
    if (failedAt >= 0) {
      const sub = subs[failedAt]!;
      return { why: () => `${writeLabel(op, subs)} succeeded, but ${sub.op} ${sub.path} would fail with ${outs[failedAt]!.err} (${pathsText(tree, subs)})` };
    }
    return this.results(op, subs, outs, after, d);
  }

  /**
   * Recorded results of a successful write (created names, Stats) against each sub-op's node as it
   * left it. What a Stat teaches (an unknown zxid, a time) goes into the tree when no later sub-op
   * changed that node (a multi's sub-ops share one zxid and one time anyway).
   */
  private results(op: Operation, subs: readonly WriteSub[], outs: WriteOutcome[], after: (ZNode | undefined)[], d: Draft): Evaluation {
    const recorded: (SubResult | undefined)[] =
      op.op === "multi" ? (op.result?.results ?? []) : [op.result ? { path: op.result.path, stat: op.result.stat ?? undefined } : undefined];
    if (op.op === "multi" && op.result?.results !== undefined && recorded.length !== subs.length) {
      return { why: () => `${writeLabel(op, subs)} succeeded with ${recorded.length} results for ${subs.length} operations` };
    }
    for (let i = 0; i < subs.length; i++) {
      const rec = recorded[i];
      const out = outs[i]!;
      if (rec === undefined || out.err !== undefined) continue;
      if (rec.err !== undefined && rec.err !== "OK" && rec.err !== "0") return { why: () => `${writeLabel(op, subs)}: sub-op ${i} reported ${rec.err}, but the multi succeeded` };
      if (subs[i]!.op === "create" && rec.path !== undefined && rec.path !== out.path) return { why: () => `${writeLabel(op, subs)}: created ${rec.path}, but the next name was ${out.path}` };
      const node = after[i];
      if (rec.stat === undefined || node === undefined) continue;
      const m = matchStat(rec.stat, node);
      if (typeof m === "string") return { why: () => `${writeLabel(op, subs)}: ${op.op === "multi" ? `sub-op ${i}: ` : ""}${m}` };
      if (m !== node && d.get(out.path) === node) d.set(out.path, m);
    }
    return { next: d.finish() };
  }
}

/** A write as its reports name it. */
function writeLabel(op: Operation, subs: readonly WriteSub[]): string {
  return op.op === "multi" ? `multi ${subs.map((s) => `${s.op} ${s.path}`).join("; ")}` : `${op.op} ${op.path}`;
}

function codeOf(r: SubResult | undefined): string | undefined {
  return r?.err === undefined || r.err === "OK" || r.err === "0" ? undefined : r.err;
}

/** A write of a single op or of a multi: a multi's sub-ops, setACL, and the synthetic reap. */
type WriteSub = { op: SubOp["op"] | "setACL" | "reap"; path: string; args: Operation["args"] };

function applySub(d: Draft, sub: WriteSub, caller: Caller): WriteOutcome {
  const version = sub.args.version ?? -1;
  const data = sub.args.data ?? "";
  switch (sub.op) {
    case "create":
      return create(d, caller, { path: sub.path, data, mode: sub.args.mode ?? "PERSISTENT", acl: sub.args.acl, ttl: sub.args.ttl });
    case "delete":
      return remove(d, caller, sub.path, version);
    case "setData":
      return setData(d, caller, sub.path, data, version);
    case "check":
      return check(d, caller, sub.path, version);
    case "setACL":
      return setAcl(d, caller, sub.path, sub.args.acl, version);
    case "reap":
      return reap(d, sub.path, sub.args.czxid, sub.args.nowMs, sub.args.seenZxid);
    case "getData":
    case "getChildren":
      // Only multiRead carries reads; a multi of writes never does (the client refuses the mix).
      return { err: "BADARGUMENTS" };
  }
}

/** A failed multi's per-sub-op codes: OK before the failure, its code at it, RUNTIMEINCONSISTENCY after (§4). */
function multiErrorsMismatch(results: SubResult[] | undefined, ops: number, failedAt: number, err: CodeName): string | undefined {
  if (results === undefined) return undefined;
  if (results.length !== ops) return `${results.length} results for ${ops} operations`;
  for (let i = 0; i < results.length; i++) {
    const want = i < failedAt ? "OK" : i === failedAt ? err : "RUNTIMEINCONSISTENCY";
    const got = results[i]!.err;
    if (got !== undefined && got !== want && !(want === "OK" && got === "0")) return `sub-op ${i} reported ${got}, expected ${want}`;
  }
  return undefined;
}

/** The session's ephemerals vanish (ephemerals have no children, so order does not matter). */
function endSession(tree: ZkTree, session: string, zxid: bigint | undefined): ZkTree {
  const d = new Draft(tree);
  const doomed = [...d.paths()].filter((p) => {
    const n = d.get(p)!;
    return n.kind === "ephemeral" && n.owner === session;
  });
  for (const p of doomed.sort()) unlink(d, p, zxid);
  return d.finish();
}

// ---- descriptions -----------------------------------------------------------------------------

function nodeText(tree: ZkTree, path: string): string {
  const n = tree.get(path);
  if (n === undefined) return `${path}: no node`;
  const kids = n.children.length === 0 ? "no children" : `children [${n.children.slice(0, 8).join(", ")}${n.children.length > 8 ? ", …" : ""}]`;
  const kind = n.kind === "ephemeral" ? `, ephemeral of ${n.owner}` : n.kind === "persistent" ? "" : `, ${n.kind}`;
  const acl = n.acl === "world:anyone:31" ? "" : `, ACL ${aclText(n.acl)}`;
  return `${path} = ${JSON.stringify(n.data)} version ${n.version}, ${kids}${kind}${acl}`;
}

/** The nodes `subs` touch; for creates and deletes their parents too (whose ACL and children decide). */
function pathsText(tree: ZkTree, subs: readonly { op?: string; path: string }[]): string {
  const paths = new Set<string>();
  for (const s of subs) {
    paths.add(s.path);
    const parent = s.path.slice(0, Math.max(1, s.path.lastIndexOf("/")));
    if (parent !== s.path && (s.op === "create" || s.op === "delete" || s.op === "reap")) paths.add(parent);
  }
  return [...paths].map((p) => nodeText(tree, p)).join("; ");
}

function describeState(tree: ZkTree, op: Operation): string {
  if (op.op === "closeSession" || op.op === "getEphemerals") {
    const mine = [...tree.nodes.keys()].filter((p) => ownedBy(tree.get(p)!, op.session)).sort();
    return mine.length === 0 ? `no ephemerals of ${op.session}` : mine.map((p) => nodeText(tree, p)).join("; ");
  }
  if (op.op === "whoAmI") return `credentials ${JSON.stringify(op.credentials ?? [])}`;
  const subs = op.op === "multi" || op.op === "multiRead" ? (op.args.ops ?? []) : [{ op: op.op, path: op.path }];
  return pathsText(tree, subs);
}

function ownedBy(n: ZNode, session: string): boolean {
  return n.kind === "ephemeral" && n.owner === session;
}
