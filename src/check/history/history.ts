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
  | "multiRead"
  | "setACL"
  | "getACL"
  | "getEphemerals"
  | "getAllChildrenNumber"
  | "whoAmI"
  /** Session end (close or expiry): the session's ephemerals vanish. Not a client call. */
  | "closeSession"
  /** The leader's ContainerManager deleting a container or TTL node (deleteContainer). Not a client call. */
  | "reap";

export type SubOpName = "create" | "delete" | "setData" | "check" | "getData" | "getChildren";
export type Outcome = "ok" | "fail" | "unknown";

export interface OpArgs {
  data?: string | null;
  /** Expected version; -1 (or absent) means "any". */
  version?: number;
  mode?: CreateModeName;
  /** TTL modes: the node's time to live. */
  ttl?: number;
  /** create / setACL: the ACL asked for, `"scheme:id:perms"` each; absent: OPEN_ACL_UNSAFE. */
  acl?: string[];
  /** multi / multiRead: the sub-operations, in order. */
  ops?: SubOp[];
  /** reap: the czxid of the node the ContainerManager found due, and its clock then. */
  czxid?: bigint;
  nowMs?: number;
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
  /** multiRead: getData's data, getChildren's children (or their `count`, when too many to list). */
  data?: string | null;
  children?: string[];
  count?: number;
}

export interface OpResult {
  /** create: the name actually created (with the sequence suffix). */
  path?: string;
  data?: string | null;
  /** exists: null when the node does not exist. */
  stat?: StatFields | null;
  children?: string[];
  /** getChildren / getEphemerals: the number of names, when there were too many to list. */
  count?: number;
  results?: SubResult[];
  /** getACL: the ACL, `"scheme:id:perms"` each. */
  acl?: string[];
  /** getAllChildrenNumber. */
  total?: number;
  /** whoAmI: `"scheme:user"` each. */
  ids?: string[];
}

/** Credentials a handle added (`addAuthInfo`): the scheme and the payload as recorded text. */
export interface Credential {
  scheme: string;
  auth: string;
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
  /** Refused by the client before it was sent (an invalid argument): the server never saw it. */
  local?: true;
  /**
   * The credentials the session had added when the op was invoked (from `client.auth`), in
   * order; absent: none. `credentialsUncertain`: credentials were added while the op was in
   * flight, or before the handle had a session, so which ones it carried is not known.
   */
  credentials?: Credential[];
  credentialsUncertain?: true;
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

/**
 * Codes the sequential data-tree model explains (docs/zookeeper.md §1.4, §5): the tree's, and the
 * server's answers on ACLs (NOAUTH, INVALIDACL), special paths (BADARGUMENTS) and TTL nodes a
 * server without extended types refuses (UNIMPLEMENTED). The same codes produced by the client
 * itself, before sending (`local`), are no-effect.
 */
const STATE_ERRORS: ReadonlySet<string> = new Set<CodeName>([
  "NONODE",
  "NODEEXISTS",
  "BADVERSION",
  "NOTEMPTY",
  "NOCHILDRENFOREPHEMERALS",
  "NOAUTH",
  "INVALIDACL",
  "BADARGUMENTS",
  "UNIMPLEMENTED",
]);

/**
 * Codes that prove the request never reached the tree. Everything not listed here or in
 * STATE_ERRORS is read as indeterminate: SESSIONEXPIRED, for one, is reported client-side for
 * requests that may already have been forwarded to the leader. Erring towards "unknown" can
 * hide a bug but never invents one.
 */
const NO_EFFECT_ERRORS: ReadonlySet<string> = new Set<CodeName>([
  "NOTREADONLY",
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
  if (op.local === true) return "no-effect";
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
    case "multiRead":
    case "getACL":
    case "getEphemerals":
    case "getAllChildrenNumber":
    case "whoAmI":
      return true;
    case "multi":
      return (op.args.ops ?? []).every((s) => s.op === "check");
    case "create":
    case "delete":
    case "setData":
    case "setACL":
    case "closeSession":
    case "reap":
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
  const auth = new AuthLog();
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
      auth.invoked(op);
    } else if (e.kind === "client.complete") {
      const f = e.fields ?? {};
      const op = open.take(f);
      if (op === undefined) throw new Error(`historyFromTrace: completion of ${pairKey(f)} at ${e.atUs}µs without an invocation`);
      complete(op, e.atUs, f);
      auth.completed(op);
      if (op.outcome === "unknown" && typeof f.xid === "number") {
        sentAs.set(op, `${String(f.session ?? op.session)}#${f.xid}`);
        sentXids.add(f.xid);
      }
    } else if (e.kind === "client.auth") {
      auth.added(e.fields ?? {});
    }
  }
  auth.settle(ops);
  if (sentAs.size === 0) return ops;
  const applied = firstApplies(applies, sentXids);
  for (const [op, key] of sentAs) {
    const txn = applied.get(key);
    op.truth = txn === undefined ? { applied: false } : { applied: true, ...txn };
  }
  return ops;
}

/**
 * The credentials each op carried (`client.auth` events). A handle sends its auth packets in
 * order with its requests on one connection, and again first on every new connection, so an op
 * carries the credentials its session had added before it was invoked — unless one was added
 * while it was still in flight (it may have been re-sent after them, on a new connection), or
 * before the handle had a session (the event does not say which session): then it is uncertain.
 * Kept per client node as a log with a running count; nothing is built when no auth was added.
 */
class AuthLog {
  private readonly byNode = new Map<string, { session: string; seq: number; cred: Credential }[]>();
  private readonly seqAtInvoke = new Map<Operation, number>();
  private readonly uncertain = new Set<Operation>();

  added(f: Record<string, unknown>): void {
    const node = String(f.client);
    const log = this.byNode.get(node) ?? [];
    log.push({ session: String(f.session ?? ""), seq: log.length + 1, cred: { scheme: String(f.scheme), auth: String(f.auth ?? "") } });
    this.byNode.set(node, log);
  }

  invoked(op: Operation): void {
    const log = this.byNode.get(op.client);
    if (log !== undefined) this.seqAtInvoke.set(op, log.length);
  }

  completed(op: Operation): void {
    const at = this.seqAtInvoke.get(op);
    if (at !== undefined && (this.byNode.get(op.client)?.length ?? 0) > at) this.uncertain.add(op);
  }

  /** Fills in `credentials` (the ops' sessions are final now). */
  settle(ops: readonly Operation[]): void {
    if (this.byNode.size === 0) return;
    for (const op of ops) {
      const log = this.byNode.get(op.client);
      if (log === undefined) continue;
      const at = this.seqAtInvoke.get(op) ?? 0;
      const before = log.slice(0, at);
      const mine = before.filter((a) => a.session === op.session).map((a) => a.cred);
      if (mine.length > 0) op.credentials = mine;
      const inFlight = op.completeUs === undefined ? log.length > at : this.uncertain.has(op);
      if (inFlight || before.some((a) => NO_SESSION.has(a.session))) op.credentialsUncertain = true;
    }
  }
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
  const chroot = typeof f.chroot === "string" && f.chroot !== "" ? f.chroot : undefined;
  const opName = String(f.op) as OpName;
  const op: Operation = {
    id,
    client: String(f.client),
    session: String(f.session ?? ""),
    op: opName,
    path: serverPath(opName, String(f.path ?? ""), chroot),
    args: parseArgs(argSource, chroot),
    invokeUs: e.atUs,
    completeUs: undefined,
    outcome: "unknown",
    opId: String(f.opId),
  };
  if (e.node !== undefined) op.node = e.node;
  if (typeof f.server === "string") op.server = f.server;
  if (chroot !== undefined) chroots.set(op, chroot);
  return op;
}

/** The chroot of each op invoked through a chrooted handle (its results' paths are relative to it). */
const chroots = new WeakMap<Operation, string>();

/**
 * The path the server sees for a client path, as Java's client builds it
 * (`ZooKeeper.prependChroot`): the chroot for "/", chroot + path otherwise. Two exceptions follow
 * Java: `delete("/")` sends "/" itself, and getEphemerals sends its prefix as given.
 */
function serverPath(op: string, path: string, chroot: string | undefined): string {
  if (chroot === undefined || op === "getEphemerals" || (op === "delete" && path === "/")) return path;
  return path.length === 1 ? chroot : chroot + path;
}

function parseArgs(a: Record<string, unknown>, chroot?: string): OpArgs {
  const args: OpArgs = {};
  if (a.data !== undefined) args.data = a.data === null ? null : String(a.data);
  if (typeof a.version === "number") args.version = a.version;
  else if (typeof a.aversion === "number") args.version = a.aversion;
  if (a.mode !== undefined) args.mode = parseMode(a.mode);
  if (typeof a.ttl === "number") args.ttl = a.ttl;
  if (Array.isArray(a.acl)) args.acl = a.acl.map(String);
  if (typeof a.czxid === "string") args.czxid = parseZxidText(a.czxid);
  if (typeof a.nowMs === "number") args.nowMs = a.nowMs;
  if (Array.isArray(a.ops)) {
    args.ops = a.ops.filter(isRecord).map((s) => {
      // Java's multi prefixes every sub-op's path with the chroot ("/" included).
      const path = String(s.path ?? "");
      return { op: String(s.op) as SubOpName, path: chroot === undefined || path === "" ? path : path.length === 1 ? chroot : chroot + path, args: parseArgs(isRecord(s.args) ? s.args : s) };
    });
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
  if (isRecord(f.result)) op.result = withServerPaths(op, f.result as OpResult);
  // An op invoked before its handle's first handshake ran in the session its completion names.
  if (NO_SESSION.has(op.session) && typeof f.session === "string" && !NO_SESSION.has(f.session)) op.session = f.session;
  if (f.sent === false && String(f.outcome) === "fail") op.local = true;
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

/**
 * A chrooted create's result with the created name as the server named it: Java's client cuts the
 * chroot's length off it, so the chroot in front gives it back. (A multi's created names and
 * getEphemerals' paths are recorded as the server named them.)
 */
function withServerPaths(op: Operation, r: OpResult): OpResult {
  const chroot = chroots.get(op);
  if (chroot === undefined || op.op !== "create" || typeof r.path !== "string") return r;
  return { ...r, path: chroot + r.path };
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
