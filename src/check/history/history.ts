/**
 * Client histories: what each client asked ZooKeeper, when, and what it was told.
 *
 * This is the vocabulary of the history checkers (Maelstrom/Jepsen: a history is a list of
 * operations, each an invocation and, maybe, a completion). It is built from the trace's
 * client annotations and shares no code with the client or the server; only constants and
 * types come from `zk/proto`.
 *
 * Built from the trace's `client.invoke` / `client.complete` events (each operation's typed shape:
 * `ClientOps` in zk/trace-events.ts), read by `client-events.ts`, and `zk.apply` events. Stat
 * zxids stay hex text, as recorded; the reply zxid is a bigint.
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
import type { TraceEvent } from "../../sim/trace.js";
import type { CodeName } from "../../zk/proto/error-code.js";
import type { CreateModeName } from "../../zk/proto/records.js";
import { intField, optionalStringField, stringField, zxidField } from "../event-reader.js";
import { readCompletion, readInvocation, type Completion, type Invocation } from "./client-events.js";

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
  /** reap: the last zxid its server had applied when it chose (a write applied later is unseen by the choice). */
  seenZxid?: bigint;
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

/**
 * A shallow copy of `op` with every field of `Operation` present, in one order (an absent field
 * undefined): every copy has the same hidden class (V8's map), whatever fields the original grew
 * and in which order. The checkers that read ops again and again (the linearizability search,
 * its partitioner and model) then read each field with one monomorphic lookup; copies of ops with
 * five or six different shapes made those lookups megamorphic, and in a run where 30-odd checkers
 * share V8's stub cache, a megamorphic lookup often misses it. The copy reads the same as the op
 * to every reader (an undefined field is an absent one: nothing lists an op's keys).
 */
export function copyOperation(op: Operation): Operation {
  return {
    id: op.id,
    client: op.client,
    session: op.session,
    op: op.op,
    path: op.path,
    args: op.args,
    invokeUs: op.invokeUs,
    completeUs: op.completeUs,
    outcome: op.outcome,
    err: op.err,
    result: op.result,
    zxid: op.zxid,
    opId: op.opId,
    node: op.node,
    server: op.server,
    local: op.local,
    credentials: op.credentials,
    credentialsUncertain: op.credentialsUncertain,
    truth: op.truth,
  };
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

/** An operation's name in reports and pairings: `client/opId`. */
export function operationKey(op: { client: string; opId?: string | number }): string {
  return `${op.client}/${String(op.opId)}`;
}

/**
 * Builds operations from invocations and completions read by `client-events.ts`, in invocation
 * order (ids from `idBase`): only the operations the sequential model describes (`OpName`). A
 * definite-looking failure whose code is indeterminate (CONNECTIONLOSS…) is "unknown". `zk.apply`
 * events (session, cxid, zxid) give the unknown ops that were sent their ground truth
 * (`Operation.truth`), at `build`.
 */
export class HistoryBuilder {
  readonly ops: Operation[] = [];
  /** The request (session, xid) an unknown op that was sent names, to find its apply. */
  private readonly sentAs = new Map<Operation, { session: string; xid: number }>();
  /** Session → cxid → the first apply of that request (`txn`: the txn's type, `zk.apply`'s op). */
  private readonly applied = new Map<string, Map<number, AppliedRequest>>();
  /**
   * Per op (`ops[k]`'s at `k`), what the builder knows of it, as bits: `FROM_CLIENT` it came from
   * a `client.invoke` (not an expiry's close or a reap the caller added), `ENDED` a
   * `client.complete` ended it (answered, refused or lost), `UNSENT` it is unknown and its request
   * was never written to a connection (`sent: false`). Numbers beside the ops, where three weak
   * sets took an entry (and the collector's work) per op.
   */
  private readonly flags: number[] = [];
  /** Client → the sessions its handles established (`client.state` CONNECTED), first time each. */
  private readonly establishedBy = new Map<string, { session: string; atUs: number }[]>();
  /** Node → when it crashed (a crash ends every handle of a client process). */
  private readonly crashesUs = new Map<string, number[]>();
  /** The chroot of each op invoked through a chrooted handle (a create's result name is relative to it). */
  private readonly chroots = new WeakMap<Operation, string>();

  /** `auth`: the credentials log, kept across the histories of one run (credentials outlive a window). */
  constructor(
    private readonly idBase = 0,
    readonly auth = new AuthLog(),
  ) {}

  /** The operation of an invocation (undefined for a call the model does not describe). */
  invoked(inv: Invocation): Operation | undefined {
    if (!MODELLED_OPS.has(inv.op)) return undefined;
    // Every field present from the start (as `copyOperation` lays them out): the ops keep one
    // hidden class whatever their completions fill in.
    const op: Operation = {
      id: this.nextId,
      client: inv.client,
      session: inv.session,
      op: inv.op as OpName,
      path: serverPath(inv.op, inv.path, inv.chroot),
      args: inv.chroot === undefined || inv.args.ops === undefined ? inv.args : { ...inv.args, ops: inv.args.ops.map((s) => ({ ...s, path: subOpServerPath(s.path, inv.chroot) })) },
      invokeUs: inv.atUs,
      completeUs: undefined,
      outcome: "unknown",
      err: undefined,
      result: undefined,
      zxid: undefined,
      opId: String(inv.opId),
      node: inv.node,
      server: inv.server,
      local: undefined,
      credentials: undefined,
      credentialsUncertain: undefined,
      truth: undefined,
    };
    if (inv.chroot !== undefined) this.chroots.set(op, inv.chroot);
    this.ops.push(op);
    this.flags.push(FROM_CLIENT);
    this.auth.invoked(op);
    return op;
  }

  /** An operation made by the caller (an expiry's closeSession), in invocation order. */
  add(op: Omit<Operation, "id">): Operation {
    const full: Operation = { id: this.nextId, ...op };
    this.ops.push(full);
    this.flags.push(0);
    return full;
  }

  /** An operation of an earlier history, carried on (the same object, a new id). */
  carry(op: Operation): void {
    op.id = this.nextId;
    this.ops.push(op);
    this.flags.push(0);
  }

  /** The bits of `flags` for `op`: 0 for an op not of this history. */
  private flagsOf(op: Operation): number {
    const k = op.id - this.idBase;
    return this.ops[k] === op ? this.flags[k]! : 0;
  }

  /** Sets bits of `flags` for `op` (nothing for an op not of this history: none of its questions is about such an op). */
  private mark(op: Operation, bits: number): void {
    const k = op.id - this.idBase;
    if (this.ops[k] === op) this.flags[k]! |= bits;
  }

  /** The id the next operation gets. */
  get nextId(): number {
    return this.idBase + this.ops.length;
  }

  /** How `op` ended. */
  completed(op: Operation, done: Completion): void {
    this.mark(op, ENDED);
    if (done.err !== undefined) op.err = done.err;
    if (done.zxid !== undefined) op.zxid = done.zxid;
    if (done.result !== undefined) op.result = this.withServerPaths(op, done.result);
    // An op invoked before its handle's first handshake ran in the session its completion names.
    if (NO_SESSION.has(op.session) && !NO_SESSION.has(done.session)) op.session = done.session;
    if (done.local && done.outcome === "fail") op.local = true;
    if (done.outcome === "ok" || done.outcome === "fail") {
      op.outcome = done.outcome;
      op.completeUs = done.atUs;
      // A definite-looking failure whose code is indeterminate (CONNECTIONLOSS) is :info.
      if (done.outcome === "fail" && classifyOutcome(op) === "unknown") {
        op.outcome = "unknown";
        op.completeUs = undefined;
      }
    }
    if (op.outcome === "unknown" && done.xid !== undefined) this.sentAs.set(op, { session: done.session, xid: done.xid });
    if (op.outcome === "unknown" && done.local) this.mark(op, UNSENT);
    this.auth.completed(op);
  }

  /**
   * A chrooted create's result with the created name as the server named it: Java's client cuts the
   * chroot's length off it, so the chroot in front gives it back. (A multi's created names and
   * getEphemerals' paths are recorded as the server named them.)
   */
  private withServerPaths(op: Operation, r: OpResult): OpResult {
    const chroot = this.chroots.get(op);
    if (chroot === undefined || op.op !== "create" || r.path === undefined) return r;
    return { ...r, path: chroot + r.path };
  }

  /**
   * A `zk.apply`: the first apply of each request is its ground truth. `provesCommit`: the server
   * applies only txns a quorum committed, for good (a leader of the txn's epoch, a standalone
   * server: see `settle`); `atUs`: when.
   */
  appliedTxn(session: string, cxid: number, zxid: bigint, op: string, err: string | undefined, atUs = 0, provesCommit = false): void {
    // Every server applies each txn: keyed by session, then cxid, with no key text built.
    let bySession = this.applied.get(session);
    if (bySession === undefined) this.applied.set(session, (bySession = new Map()));
    const first = bySession.get(cxid);
    if (first !== undefined) {
      if (first.zxid !== zxid) first.collided = true;
      else if (provesCommit) first.provenUs ??= atUs;
      return;
    }
    const txn: AppliedRequest = op === "error" && err !== undefined ? { zxid, err, txn: op, collided: false } : { zxid, txn: op, collided: false };
    if (err !== undefined) txn.applyErr = err;
    if (provesCommit) txn.provenUs = atUs;
    bySession.set(cxid, txn);
  }

  /** A `client.state` CONNECTED: a handle of `client` holds `session` from `atUs`. */
  sessionEstablished(client: string, session: string, atUs: number): void {
    let list = this.establishedBy.get(client);
    if (list === undefined) this.establishedBy.set(client, (list = []));
    if (!list.some((s) => s.session === session)) list.push({ session, atUs });
  }

  /** A `crash` of `node`: its handles, and the requests they still held, are gone. */
  crashed(node: string, atUs: number): void {
    const list = this.crashesUs.get(node) ?? [];
    list.push(atUs);
    this.crashesUs.set(node, list);
    this.auth.handleEnded(node);
  }

  /** The operations, the unknown ones with their ground truth and each its credentials. */
  build(): Operation[] {
    this.attributeUnanswered();
    this.auth.settle(this.ops);
    for (const [op, sent] of this.sentAs) {
      const txn = this.applied.get(sent.session)?.get(sent.xid);
      op.truth = txn === undefined ? { applied: false } : { applied: true, zxid: txn.zxid, ...(txn.err === undefined ? {} : { err: txn.err }) };
    }
    return this.ops;
  }

  /**
   * What the servers' trace settles of the unknown client writes (call after `build`): each such
   * op that provably never took effect (`"never"`), or that provably did — with the outcome, the
   * completion and the zxid its txn gives it. Ops not in the map stay unknown. The rules
   * (docs/bug-power.md, "Linearizability settled from the servers' applies (session 40)"):
   * - never sent (`sent: false`: the client failed it before writing it to any connection) —
   *   no server saw it;
   * - sent as (session, cxid), and `maybeTookEffect(session, cxid)` is false: the caller knows
   *   no server can have taken that request into its tree (no leader proposed it, no server
   *   applied it, and no logged txn entered a tree unannounced) — only at the end of the run;
   * - sent as (session, cxid) and applied, for good (`provesCommit`), after its invocation, as a
   *   txn of its kind under one zxid only, which no answered op names and no other client write
   *   that could have carried the same (session, cxid) could have made (one whose request is not
   *   known: never answered, or answered without it): it took effect no later than that apply —
   *   ok with that zxid, or, for an error txn, failed with a code the model explains (it changed
   *   nothing: any other code leaves it out).
   */
  settle(maybeTookEffect: ((session: string, cxid: number) => boolean) | undefined): Map<Operation, Settlement> {
    const out = new Map<Operation, Settlement>();
    let claimed: Set<bigint> | undefined;
    for (const op of this.ops) {
      if (op.outcome !== "unknown" || (this.flagsOf(op) & FROM_CLIENT) === 0 || isReadOnly(op)) continue;
      if ((this.flagsOf(op) & UNSENT) !== 0) {
        out.set(op, "never");
        continue;
      }
      const sent = this.sentAs.get(op);
      if (sent === undefined) continue;
      const txn = this.applied.get(sent.session)?.get(sent.xid);
      if (txn === undefined) {
        if (maybeTookEffect?.(sent.session, sent.xid) === false) out.set(op, "never");
        continue;
      }
      const provenUs = txn.provenUs;
      if (txn.collided || provenUs === undefined || provenUs < op.invokeUs) continue;
      if (txn.txn !== "error" && (!(TXN_KINDS[op.op] ?? []).includes(txn.txn) || txn.applyErr !== undefined)) continue;
      claimed ??= this.claimedZxids();
      if (claimed.has(txn.zxid) || this.mayShareRequest(op, sent.session, provenUs)) continue;
      if (txn.txn !== "error") out.set(op, { outcome: "ok", completeUs: provenUs, zxid: txn.zxid });
      else if (op.op !== "multi" && txn.err !== undefined && STATE_ERRORS.has(txn.err)) out.set(op, { outcome: "fail", err: txn.err, completeUs: provenUs, zxid: txn.zxid });
      else out.set(op, "never");
    }
    return out;
  }

  /** Zxids the replies of answered writes name: their own txns. */
  private claimedZxids(): Set<bigint> {
    const claimed = new Set<bigint>();
    for (const op of this.ops) if (op.zxid !== undefined && op.completeUs !== undefined && !isReadOnly(op)) claimed.add(op.zxid);
    return claimed;
  }

  /**
   * Whether another client write invoked by `beforeUs` may have gone out as the same request as
   * `op` (same session, same cxid: a second handle of the session numbers from the same cxid) —
   * one of `session`, or of none yet, whose request the history does not know.
   */
  private mayShareRequest(op: Operation, session: string, beforeUs: number): boolean {
    for (const other of this.ops) {
      if (other === op || other.invokeUs > beforeUs || (this.flagsOf(other) & FROM_CLIENT) === 0 || isReadOnly(other)) continue;
      if (other.session !== session && !NO_SESSION.has(other.session)) continue;
      if ((this.flagsOf(other) & UNSENT) !== 0 || this.sentAs.has(other) || other.local === true) continue;
      if ((this.flagsOf(other) & ENDED) !== 0 && other.outcome !== "unknown") continue; // answered: its reply names its own txn
      return true;
    }
    return false;
  }

  /**
   * A write invoked before its handle's first handshake and never answered still names no
   * session; the server ran it (if at all) in the session that handle then established — behind
   * its ConnectRequest, so as the session's first requests. The trace does not say which handle
   * an op was invoked on, so the server's applies decide: the op takes a session its client
   * established after the op was invoked (and before its process crashed, which ends the handle)
   * whose applies include a request of the op's kind that no answered op accounts for — when
   * exactly one session qualifies and no other such op of the client competes for it. Otherwise
   * it keeps no session (ambiguous: left as it was). An op that completed (even refused or lost)
   * is no such op: a completion of a sent request names its session.
   */
  private attributeUnanswered(): void {
    const orphans = this.ops.filter((op) => NO_SESSION.has(op.session) && (this.flagsOf(op) & ENDED) === 0 && !isReadOnly(op) && this.establishedBy.has(op.client));
    if (orphans.length === 0) return;
    const claimed = new Set<bigint>();
    for (const op of this.ops) if (op.zxid !== undefined && op.completeUs !== undefined && !isReadOnly(op)) claimed.add(op.zxid);
    for (const sent of this.sentAs.values()) {
      const txn = this.applied.get(sent.session)?.get(sent.xid);
      if (txn !== undefined) claimed.add(txn.zxid);
    }
    const candidates = new Map<Operation, string[]>();
    for (const op of orphans) {
      const kinds = TXN_KINDS[op.op] ?? [];
      const lostUs = (this.crashesUs.get(op.node ?? op.client) ?? []).find((t) => t >= op.invokeUs) ?? Infinity;
      const sessions = this.establishedBy
        .get(op.client)!
        .filter((s) => s.atUs >= op.invokeUs && s.atUs < lostUs && [...(this.applied.get(s.session)?.values() ?? [])].some((t) => !claimed.has(t.zxid) && (t.txn === "error" || kinds.includes(t.txn))))
        .map((s) => s.session);
      candidates.set(op, sessions);
    }
    for (const [op, sessions] of candidates) {
      if (sessions.length !== 1) continue;
      const rivals = [...candidates].filter(([other, theirs]) => other !== op && other.client === op.client && theirs.includes(sessions[0]!));
      if (rivals.length === 0) op.session = sessions[0]!;
    }
  }
}

/** `HistoryBuilder.flags`' bits. */
const FROM_CLIENT = 1;
const ENDED = 2;
const UNSENT = 4;

/** A request's applies: the first one, whether another zxid was applied for it too, and when a server whose apply proves the commit applied it. */
interface AppliedRequest {
  zxid: bigint;
  /** An error txn's code (the write failed there and changed nothing). */
  err?: string;
  txn: string;
  /** The apply's error, whatever the txn (a txn that failed at the tree). */
  applyErr?: string;
  collided: boolean;
  provenUs?: number;
}

/** How `HistoryBuilder.settle` settles an unknown write: it never took effect, or it did, so. */
export type Settlement = "never" | { outcome: "ok" | "fail"; completeUs: number; zxid: bigint; err?: string };

/** The txn types (`zk.apply`'s op) a request of each write may be applied as (besides `error`). */
const TXN_KINDS: Partial<Record<OpName, readonly string[]>> = {
  create: ["create", "create2", "createTTL", "createContainer"],
  delete: ["delete"],
  setData: ["setData"],
  setACL: ["setACL"],
  multi: ["multi"],
  check: ["check"],
};

/** The calls the sequential model describes (a reap is made by the caller, `add`). */
const MODELLED_OPS: ReadonlySet<string> = new Set<OpName>([
  "create", "delete", "setData", "getData", "exists", "getChildren", "sync", "check", "multi", "multiRead",
  "setACL", "getACL", "getEphemerals", "getAllChildrenNumber", "whoAmI", "closeSession",
]);

/**
 * The path the server sees for a client path, as Java's client builds it
 * (`ZooKeeper.prependChroot`): the chroot for "/", chroot + path otherwise. Two exceptions follow
 * Java: `delete("/")` sends "/" itself, and getEphemerals sends its prefix as given.
 */
function serverPath(op: string, path: string, chroot: string | undefined): string {
  if (chroot === undefined || op === "getEphemerals" || (op === "delete" && path === "/")) return path;
  return path.length === 1 ? chroot : chroot + path;
}

/** Java's multi prefixes every sub-op's path with the chroot ("/" included). */
function subOpServerPath(path: string, chroot: string | undefined): string {
  return chroot === undefined || path === "" ? path : path.length === 1 ? chroot : chroot + path;
}

/**
 * The credentials each op carried (`client.auth` events). A handle sends its auth packets in
 * order with its requests on one connection, and again first on every new connection, so an op
 * carries the credentials its session had added before it was invoked — unless one was added
 * while it was still in flight (it may have been re-sent after them, on a new connection), or
 * before the handle had a session (the event does not say which session): then it is uncertain.
 * Credentials belong to the handle, not the session (Java: the server keeps them per connection,
 * `ServerCnxn.authInfo`; the handle's `ClientCnxn.authInfo` re-sends them on each connection it
 * opens): a handle that ends (CLOSED, AUTH_FAILED, its process crashed) takes them with it, and a
 * new handle on the same session (built with its id and password) starts with none.
 * Kept per client node as a log with a running count; nothing is built when no auth was added.
 */
export class AuthLog {
  /** Per node: credentials added, and the ends of handles (`cred` absent; `session` absent: every handle of the node). */
  private readonly byNode = new Map<string, { session?: string; cred?: Credential; added: number }[]>();
  private readonly seqAtInvoke = new Map<Operation, { at: number; added: number }>();
  private readonly uncertain = new Set<Operation>();

  /** A `client.auth`: credentials `client` added to `session`. */
  added(client: string, session: string, cred: Credential): void {
    const log = this.byNode.get(client) ?? [];
    log.push({ session, cred, added: this.addedCount(log) + 1 });
    this.byNode.set(client, log);
  }

  /** The handle of `client` on `session` ended (a terminal state), or every handle of the node (its crash): their credentials are gone. */
  handleEnded(client: string, session?: string): void {
    const log = this.byNode.get(client);
    if (log === undefined || log.length === 0) return;
    log.push(session === undefined ? { added: this.addedCount(log) } : { session, added: this.addedCount(log) });
  }

  private addedCount(log: readonly { added: number }[]): number {
    return log.length === 0 ? 0 : log[log.length - 1]!.added;
  }

  invoked(op: Operation): void {
    const log = this.byNode.get(op.client);
    if (log !== undefined) this.seqAtInvoke.set(op, { at: log.length, added: this.addedCount(log) });
  }

  completed(op: Operation): void {
    const at = this.seqAtInvoke.get(op);
    const log = this.byNode.get(op.client);
    if (at !== undefined && log !== undefined && this.addedCount(log) > at.added) this.uncertain.add(op);
  }

  /** Fills in `credentials` (the ops' sessions are final now). */
  settle(ops: readonly Operation[]): void {
    if (this.byNode.size === 0) return;
    for (const op of ops) {
      const log = this.byNode.get(op.client);
      if (log === undefined) continue;
      const invoked = this.seqAtInvoke.get(op);
      const at = invoked?.at ?? 0;
      let mine: Credential[] = [];
      let noSession = false;
      for (let i = 0; i < at; i++) {
        const a = log[i]!;
        if (a.cred === undefined) {
          // A handle ended: what it had added is gone (a later handle on the session starts afresh).
          if (a.session === undefined || a.session === op.session) mine = [];
          if (a.session === undefined) noSession = false;
          continue;
        }
        if (a.session === op.session) mine.push(a.cred);
        else if (NO_SESSION.has(a.session!)) noSession = true;
      }
      if (mine.length > 0) op.credentials = mine;
      const inFlight = op.completeUs === undefined ? this.addedCount(log) > (invoked?.added ?? 0) : this.uncertain.has(op);
      if (inFlight || noSession) op.credentialsUncertain = true;
    }
  }
}

/** A `client.state` CONNECTED: the session a handle of the client established (`HistoryBuilder.sessionEstablished`). */
export function readEstablished(builder: HistoryBuilder, e: TraceEvent): void {
  const state = stringField(e, "state");
  if (state === "CONNECTED") builder.sessionEstablished(stringField(e, "client"), stringField(e, "session"), e.atUs);
  // A terminal state ends the handle, and with it the credentials it had added.
  else if (state === "CLOSED" || state === "AUTH_FAILED") builder.auth.handleEnded(stringField(e, "client"), stringField(e, "session"));
}

/** A `client.auth` event read, for `AuthLog.added`. */
export function readAuth(e: TraceEvent<"client.auth">): { client: string; session: string; cred: Credential } {
  return { client: stringField(e, "client"), session: stringField(e, "session"), cred: { scheme: stringField(e, "scheme"), auth: stringField(e, "auth") } };
}

/**
 * Operations from a trace's `client.invoke` / `client.complete` events (`HistoryBuilder`), paired
 * by (client, opId); an invocation never completed is "unknown". A malformed event throws its
 * `MalformedEvent`; a completion without its invocation, or an operation invoked twice, throws.
 */
export function historyFromTrace(events: Iterable<TraceEvent>): Operation[] {
  const builder = new HistoryBuilder();
  const open = new Map<string, { inv: Invocation; op: Operation | undefined }>();
  let seq = 0;
  for (const e of events) {
    switch (e.kind) {
      case "zk.apply":
        builder.appliedTxn(stringField(e, "session"), intField(e, "cxid"), zxidField(e, "zxid"), stringField(e, "op"), optionalStringField(e, "err"));
        break;
      case "client.invoke": {
        const inv = readInvocation(e, seq++);
        const key = operationKey(inv);
        if (open.has(key)) throw new Error(`historyFromTrace: op ${key} invoked twice (at ${e.atUs}µs)`);
        open.set(key, { inv, op: builder.invoked(inv) });
        break;
      }
      case "client.complete": {
        const key = `${stringField(e, "client")}/${intField(e, "opId")}`;
        const pending = open.get(key);
        if (pending === undefined) throw new Error(`historyFromTrace: completion of ${key} at ${e.atUs}µs without an invocation`);
        open.delete(key);
        const done = readCompletion(e, pending.inv);
        if (pending.op !== undefined) builder.completed(pending.op, done);
        break;
      }
      case "client.auth": {
        const a = readAuth(e);
        builder.auth.added(a.client, a.session, a.cred);
        break;
      }
      case "client.state":
        readEstablished(builder, e);
        break;
      case "crash":
        builder.crashed(e.node, e.atUs);
        break;
    }
  }
  return builder.build();
}
