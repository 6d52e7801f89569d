/**
 * Client histories: what each client asked ZooKeeper, when, and what it was told.
 *
 * This is the vocabulary of the history checkers (Maelstrom/Jepsen: a history is a list of
 * operations, each an invocation and, maybe, a completion). It is built from the trace's
 * client annotations and shares no code with the client or the server; only constants and
 * types come from `zk/proto`.
 *
 * ## Trace schema (what the client library records; keep these names)
 *
 * ```
 * { kind: "client.invoke", node, atUs, fields: {
 *     client, session, opId, op, path,            // op: one of OpName below
 *     data?, version?, mode?, ops?,               // the arguments, flat (or nested as `args`)
 * } }
 * { kind: "client.complete", node, atUs, fields: {
 *     client, session, opId,
 *     outcome,                                    // "ok" | "fail" | "unknown" ("info" accepted)
 *     err?,                                       // code name ("NONODE") or number (-101)
 *     zxid?,                                      // reply-header zxid, hex string "0x100000003"
 *     result?,                                    // OpResult below, plain JSON
 * } }
 * ```
 *
 * - `mode` is a `CreateMode` name ("PERSISTENT_SEQUENTIAL") or its wire flag (2).
 * - `ops` (multi) is a list of `{ op: "create"|"delete"|"setData"|"check", path, data?,
 *   version?, mode? }`.
 * - `result` by op: create → `{ path }` (the created name; `stat` too for create2);
 *   getData → `{ data, stat }`; exists → `{ stat }`, `stat: null` when there is no node;
 *   setData → `{ stat }`; getChildren → `{ children, stat? }`; multi → `{ results: [{ err,
 *   path?, stat? }] }` with `err` "OK" for sub-ops that succeeded. Any field may be absent:
 *   an absent field is not checked. Stat zxids are hex strings, like the reply zxid.
 * - `data` is a string; `null` (ZooKeeper's null data) is read as "".
 *
 * ## Outcomes
 *
 * "ok" and "fail" (with a code) are definite. "unknown" is Jepsen's `:info`: CONNECTIONLOSS,
 * a timeout, or no completion at all. It may or may not have taken effect, at any time after
 * its invocation; its `completeUs` is `undefined` (+∞). `classifyOutcome` says how a checker
 * must read a failure code (state error, no effect, or indeterminate).
 *
 * Invariant of a well-formed history: `id`s are distinct; `completeUs >= invokeUs` when set;
 * `completeUs` is undefined exactly when `outcome` is "unknown".
 */
import { Code, type CodeName } from "../../zk/proto/error-code.js";
import { parseZxidText } from "../zxid-text.js";
import { CreateMode, type CreateModeName } from "../../zk/proto/records.js";

export type OpName =
  | "create"
  | "delete"
  | "setData"
  | "getData"
  | "exists"
  | "getChildren"
  | "sync"
  | "check"
  | "multi"
  /** Session end (close or expiry): the session's ephemerals vanish. Not a client call. */
  | "closeSession";

export type SubOpName = "create" | "delete" | "setData" | "check";
export type Outcome = "ok" | "fail" | "unknown";

export interface OpArgs {
  data?: string | null;
  /** Expected version; -1 (or absent) means "any". */
  version?: number;
  mode?: CreateModeName;
  /** multi: the sub-operations, in order. */
  ops?: SubOp[];
}

export interface SubOp {
  op: SubOpName;
  path: string;
  args: OpArgs;
}

/** The Stat fields a reply may carry. Zxids as hex strings; absent fields are not checked. */
export interface StatFields {
  czxid?: string;
  mzxid?: string;
  pzxid?: string;
  ctime?: number;
  mtime?: number;
  version?: number;
  cversion?: number;
  aversion?: number;
  ephemeralOwner?: string;
  dataLength?: number;
  numChildren?: number;
}

export interface SubResult {
  /** "OK" for a sub-op that succeeded, else the code name. */
  err?: string;
  path?: string;
  stat?: StatFields;
}

export interface OpResult {
  /** create: the name actually created (with the sequence suffix). */
  path?: string;
  data?: string | null;
  /** exists: null when the node does not exist. */
  stat?: StatFields | null;
  children?: string[];
  results?: SubResult[];
}

export interface Operation {
  /** Unique in the history; the order of invocation in histories built from a trace. */
  id: number;
  client: string;
  session: string;
  op: OpName;
  path: string;
  args: OpArgs;
  invokeUs: number;
  /** undefined ⇔ outcome "unknown" (its completion is +∞). */
  completeUs: number | undefined;
  outcome: Outcome;
  /** ZooKeeper code name, e.g. "NONODE", for outcome "fail" (and "unknown" if known). */
  err?: string;
  result?: OpResult;
  /** Reply-header zxid: the txn's zxid for writes, the server's last applied zxid for reads. */
  zxid?: bigint;
  /** The client's own op id and node, when the operation came from a trace. */
  opId?: string;
  node?: string;
  /** The server the client was connected to when it invoked the op, if it was. */
  server?: string;
  /**
   * For an "unknown" op that was sent, what really happened (the trace's ground truth, not a
   * checker's input): whether its request became a txn applied by some server before the run
   * ended, and with which zxid; `err` when that txn was an error txn (the write failed there —
   * e.g. SESSIONMOVED — and changed nothing). Checkers must not read it; reports show it.
   */
  truth?: { applied: boolean; zxid?: bigint; err?: string };
}

/** Session names of an op invoked before its client's first handshake: no session yet. */
export const NO_SESSION: ReadonlySet<string> = new Set(["", "0", "0x0"]);

/** How a checker must read an operation's outcome. */
export type OutcomeClass =
  /** Succeeded: took effect exactly once, and its result is what the state gave. */
  | "ok"
  /** Failed with a code the data tree explains (NONODE, BADVERSION…): a read of the state. */
  | "state-error"
  /** Failed before touching the tree (NOAUTH, BADARGUMENTS…): no effect, nothing learned. */
  | "no-effect"
  /** May or may not have taken effect: CONNECTIONLOSS, timeouts, SESSIONEXPIRED… */
  | "unknown";

/** Codes the sequential data-tree model explains (docs/zookeeper.md §1.4). */
const STATE_ERRORS: ReadonlySet<string> = new Set<CodeName>([
  "NONODE",
  "NODEEXISTS",
  "BADVERSION",
  "NOTEMPTY",
  "NOCHILDRENFOREPHEMERALS",
]);

/**
 * Codes that prove the request never reached the tree. Everything not listed here or in
 * STATE_ERRORS is read as indeterminate: SESSIONEXPIRED, for one, is reported client-side for
 * requests that may already have been forwarded to the leader. Erring towards "unknown" can
 * hide a bug but never invents one.
 */
const NO_EFFECT_ERRORS: ReadonlySet<string> = new Set<CodeName>([
  "BADARGUMENTS",
  "NOAUTH",
  "INVALIDACL",
  "NOTREADONLY",
  "UNIMPLEMENTED",
  "MARSHALLINGERROR",
  "APIERROR",
  "AUTHFAILED",
  "EPHEMERALONLOCALSESSION",
  "QUOTAEXCEEDED",
  "THROTTLEDOP",
  "INVALIDCALLBACK",
  "NOWATCHER",
  "NEWCONFIGNOQUORUM",
  "RECONFIGINPROGRESS",
  "RECONFIGDISABLED",
]);

export function classifyOutcome(op: Operation): OutcomeClass {
  if (op.outcome === "ok") return "ok";
  if (op.outcome === "unknown" || op.err === undefined) return "unknown";
  if (STATE_ERRORS.has(op.err)) return "state-error";
  if (NO_EFFECT_ERRORS.has(op.err)) return "no-effect";
  return "unknown";
}

/** Ops that never change the tree, whatever happens. */
export function isReadOnly(op: Operation): boolean {
  switch (op.op) {
    case "getData":
    case "exists":
    case "getChildren":
    case "sync":
    case "check":
      return true;
    case "multi":
      return (op.args.ops ?? []).every((s) => s.op === "check");
    case "create":
    case "delete":
    case "setData":
    case "closeSession":
      return false;
  }
}

/** One line per operation, for reports: `#12 c3 setData /k7 "v9" → ok version 3 zxid=0x100000004 [100µs, 350µs]`. */
export function formatOperation(op: Operation): string {
  const args: string[] = [];
  if (op.args.data !== undefined) args.push(JSON.stringify(op.args.data ?? ""));
  if (op.args.version !== undefined && op.args.version !== -1) args.push(`v=${op.args.version}`);
  if (op.args.mode !== undefined && op.args.mode !== "PERSISTENT") args.push(op.args.mode);
  if (op.args.ops !== undefined) {
    args.push(`[${op.args.ops.map((s) => `${s.op} ${s.path}${s.args.data != null ? ` ${JSON.stringify(s.args.data)}` : ""}`).join("; ")}]`);
  }
  const failedAs = op.truth?.err !== undefined ? ` failing with ${op.truth.err}, changing nothing` : "";
  const truth = op.truth === undefined ? "" : op.truth.applied ? `; applied as 0x${op.truth.zxid?.toString(16)}${failedAs}` : "; not applied by the end of the run";
  const why = op.err !== undefined || truth !== "" ? ` (${op.err ?? "no reply"}${truth})` : "";
  const outcome = op.outcome === "ok" ? `ok${formatResult(op.result)}` : op.outcome === "fail" ? `fail ${op.err ?? "?"}` : `unknown${why}`;
  const zxid = op.zxid !== undefined ? ` zxid=0x${op.zxid.toString(16)}` : "";
  const done = op.completeUs === undefined ? "∞" : `${op.completeUs}µs`;
  return `#${op.id} ${op.client} ${op.op} ${op.path}${args.length ? " " + args.join(" ") : ""} → ${outcome}${zxid} [${op.invokeUs}µs, ${done}]`;
}

function formatResult(r: OpResult | undefined): string {
  if (r === undefined) return "";
  const parts: string[] = [];
  if (r.path !== undefined) parts.push(r.path);
  if (r.data !== undefined) parts.push(JSON.stringify(r.data ?? ""));
  if (r.children !== undefined) parts.push(`[${r.children.join(",")}]`);
  if (r.stat === null) parts.push("no node");
  else if (r.stat?.version !== undefined) parts.push(`version ${r.stat.version}`);
  if (r.results !== undefined) parts.push(`(${r.results.map((s) => s.err ?? "?").join(",")})`);
  return parts.length ? " " + parts.join(" ") : "";
}

// ---- building a history from trace annotations -----------------------------------------------

/** The part of a trace event this module reads (the kernel's `TraceEvent` fits it). */
export interface ClientTraceEvent {
  kind: string;
  atUs: number;
  node?: string;
  fields?: Record<string, unknown>;
}

/**
 * Operations from `client.invoke` / `client.complete` events, paired by (client, opId), in
 * invocation order (ids 0, 1, 2…). An invocation never completed is "unknown"; so is a
 * completion "fail" with an indeterminate code (CONNECTIONLOSS…). A completion without its
 * invocation is a malformed trace and throws. `zk.apply` events among them (session, cxid,
 * zxid) give the unknown ops their ground truth (`Operation.truth`).
 */
export function historyFromTrace(events: Iterable<ClientTraceEvent>): Operation[] {
  const ops: Operation[] = [];
  const open = new OpenOps<Operation>();
  // The fields of the `zk.apply` events of client requests, in order: only the ops that ended
  // "unknown" read them, so they are indexed (`firstApplies`) only when there are some.
  const applies: Record<string, unknown>[] = [];
  const sentAs = new Map<Operation, string>(); // unknown op → its "session#xid"
  const sentXids = new Set<number>();
  for (const e of events) {
    if (e.kind === "zk.apply") {
      const f = e.fields ?? {};
      if (f.cxid === undefined || typeof f.zxid !== "string") continue;
      applies.push(f);
      // Read as `firstApplies` reads it, here: a malformed zxid throws at its own event.
      if (parseZxidText(f.zxid) === undefined) BigInt(f.zxid);
      continue;
    }
    if (e.kind === "client.invoke") {
      const f = e.fields ?? {};
      const op = invocation(ops.length, e, f);
      if (!open.add(f, op)) throw new Error(`historyFromTrace: op ${pairKey(f)} invoked twice (at ${e.atUs}µs)`);
      ops.push(op);
    } else if (e.kind === "client.complete") {
      const f = e.fields ?? {};
      const op = open.take(f);
      if (op === undefined) throw new Error(`historyFromTrace: completion of ${pairKey(f)} at ${e.atUs}µs without an invocation`);
      complete(op, e.atUs, f);
      if (op.outcome === "unknown" && typeof f.xid === "number") {
        sentAs.set(op, `${String(f.session ?? op.session)}#${f.xid}`);
        sentXids.add(f.xid);
      }
    }
  }
  if (sentAs.size === 0) return ops;
  const applied = firstApplies(applies, sentXids);
  for (const [op, key] of sentAs) {
    const txn = applied.get(key);
    op.truth = txn === undefined ? { applied: false } : { applied: true, ...txn };
  }
  return ops;
}

/**
 * "session#cxid" → the first apply of that request (of `zk.apply` fields with a cxid and a zxid
 * string), only of requests whose cxid may be one of `xids` (a run applies each txn on every
 * server, and few of them answer an unknown op).
 */
function firstApplies(applies: readonly Record<string, unknown>[], xids: ReadonlySet<number>): Map<string, { zxid: bigint; err?: string }> {
  const applied = new Map<string, { zxid: bigint; err?: string }>();
  // For numbers, String(a) === String(b) exactly when a Set's SameValueZero says a equals b:
  // a numeric cxid that is not among the xids cannot make a wanted key.
  for (const f of applies) {
    if (typeof f.cxid === "number" && !xids.has(f.cxid)) continue;
    const key = `${String(f.session)}#${String(f.cxid)}`;
    if (applied.has(key)) continue;
    const text = f.zxid as string;
    const zxid = parseZxidText(text) ?? BigInt(text);
    applied.set(key, f.op === "error" && typeof f.err === "string" ? { zxid, err: f.err } : { zxid });
  }
  return applied;
}

function pairKey(f: Record<string, unknown>): string {
  return `${String(f.client)}/${String(f.opId)}`;
}

/**
 * Invoked, not yet completed operations, paired as `pairKey` pairs them (by the invocation's
 * `client`, then its `opId`, as text): two lookups of strings the trace holds, not a key string
 * built per event. Shared by `historyFromTrace` and the client checkers' `OpTable`.
 */
export class OpenOps<T> {
  private readonly byClient = new Map<string, Map<string, T>>();

  /** False (and nothing changed) when (client, opId) is already open. */
  add(f: Record<string, unknown>, op: T): boolean {
    const byOpId = this.opsOf(f);
    const opId = String(f.opId);
    if (byOpId.has(opId)) return false;
    byOpId.set(opId, op);
    return true;
  }

  /** Opens (client, opId) with `op`, replacing the op already open under it, if any. */
  set(f: Record<string, unknown>, op: T): void {
    this.opsOf(f).set(String(f.opId), op);
  }

  private opsOf(f: Record<string, unknown>): Map<string, T> {
    const client = String(f.client);
    let byOpId = this.byClient.get(client);
    if (byOpId === undefined) this.byClient.set(client, (byOpId = new Map()));
    return byOpId;
  }

  /** The open op of (client, opId), no longer open; undefined if none. */
  take(f: Record<string, unknown>): T | undefined {
    const byOpId = this.byClient.get(String(f.client));
    const opId = String(f.opId);
    const op = byOpId?.get(opId);
    if (op !== undefined) byOpId!.delete(opId);
    return op;
  }

  /** Every open op, client by client. */
  values(): T[] {
    const all: T[] = [];
    for (const byOpId of this.byClient.values()) all.push(...byOpId.values());
    return all;
  }
}

function invocation(id: number, e: ClientTraceEvent, f: Record<string, unknown>): Operation {
  const argSource = isRecord(f.args) ? f.args : f;
  const op: Operation = {
    id,
    client: String(f.client),
    session: String(f.session ?? ""),
    op: String(f.op) as OpName,
    path: String(f.path ?? ""),
    args: parseArgs(argSource),
    invokeUs: e.atUs,
    completeUs: undefined,
    outcome: "unknown",
    opId: String(f.opId),
  };
  if (e.node !== undefined) op.node = e.node;
  if (typeof f.server === "string") op.server = f.server;
  return op;
}

function parseArgs(a: Record<string, unknown>): OpArgs {
  const args: OpArgs = {};
  if (a.data !== undefined) args.data = a.data === null ? null : String(a.data);
  if (typeof a.version === "number") args.version = a.version;
  if (a.mode !== undefined) args.mode = parseMode(a.mode);
  if (Array.isArray(a.ops)) {
    args.ops = a.ops.filter(isRecord).map((s) => ({
      op: String(s.op) as SubOpName,
      path: String(s.path ?? ""),
      args: parseArgs(isRecord(s.args) ? s.args : s),
    }));
  }
  return args;
}

/** Wire flag → name, the first name of each value (as `find` over the keys would give). */
const MODE_NAMES = firstNames(CreateMode);
const CODE_NAMES = firstNames(Code);

function firstNames<N extends string>(values: Readonly<Record<N, number>>): ReadonlyMap<number, N> {
  const names = new Map<number, N>();
  for (const n of Object.keys(values) as N[]) if (!names.has(values[n])) names.set(values[n], n);
  return names;
}

function parseMode(mode: unknown): CreateModeName {
  if (typeof mode === "number") {
    const name = MODE_NAMES.get(mode);
    if (name === undefined) throw new Error(`historyFromTrace: unknown create mode ${mode}`);
    return name;
  }
  return String(mode) as CreateModeName;
}

function complete(op: Operation, atUs: number, f: Record<string, unknown>): void {
  const err = parseErr(f.err);
  if (err !== undefined) op.err = err;
  if (f.zxid !== undefined && f.zxid !== null) op.zxid = (typeof f.zxid === "string" ? parseZxidText(f.zxid) : undefined) ?? BigInt(f.zxid as string | number);
  if (isRecord(f.result)) op.result = f.result as OpResult;
  const outcome = String(f.outcome);
  if (outcome === "ok" || outcome === "fail") {
    op.outcome = outcome;
    op.completeUs = atUs;
    // A definite-looking failure whose code is indeterminate (CONNECTIONLOSS) is :info.
    if (outcome === "fail" && classifyOutcome(op) === "unknown") {
      op.outcome = "unknown";
      op.completeUs = undefined;
    }
  }
}

function parseErr(err: unknown): string | undefined {
  if (err === undefined || err === null) return undefined;
  if (typeof err === "number") {
    return CODE_NAMES.get(err) ?? `CODE(${err})`;
  }
  return String(err);
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}
