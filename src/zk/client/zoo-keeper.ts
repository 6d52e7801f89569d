/**
 * `ZooKeeper`: the client handle (Java `org.apache.zookeeper.ZooKeeper`), with a promise API
 * and the Java names and semantics. `createClient(ctx, options)` makes one on a simulated
 * node and starts connecting at once.
 *
 * Invariants:
 * - Every promise handed to the user comes from `ctx.deferred()`, so its continuation runs at
 *   the virtual time it settles.
 * - Failures reject with a `KeeperException` (`code`, `codeName`, `path`, `results`), never a
 *   bare Error. Arguments Java rejects before sending (invalid path, bad TTL, empty ACL,
 *   mixed multi, no default watcher) reject with `clientSide = true` and reach no server.
 * - `zk.async` is the same API with Java's callbacks (async-callback.ts), built on these promises.
 * - Paths the user passes are client paths; the chroot is added on the way out and stripped on
 *   the way in as Java's client strips it (chroot.ts): created names and watch events, not a
 *   multi's created names nor getEphemerals' paths (and getEphemerals' prefix goes out as given).
 * - Each operation that reaches the connection is recorded in the trace as `client.invoke`
 *   then `client.complete` (see history.ts); CONNECTIONLOSS completes as "unknown".
 */
import type { NodeContext } from "../../world/index.js";
import { UserInputError } from "../../base/errors.js";
import { Code, codeName } from "../proto/error-code.js";
import { OpCode } from "../proto/op-code.js";
import type { MultiResult as WireMultiResult, RequestRecord, ResponseRecord } from "../proto/packets.js";
import {
  AddWatchMode,
  MAX_TTL_MS,
  Perms,
  WatcherType,
  isContainerMode,
  isKnownCreateMode,
  isSequentialMode,
  isTTLMode,
  type ACL,
  type ClientInfo,
  type Stat,
} from "../proto/records.js";
import { CONFIG_PATH, validatePath } from "../proto/path-utils.js";
import { Chroot } from "./chroot.js";
import { AsyncZooKeeper } from "./async-callback.js";
import { ClientCnxn, PASSWORD_BYTES, isAlive, newPacket, type PacketReply, type WatchDeregistration, type ZooKeeperState, type ClientCanary } from "./client-cnxn.js";
import { childrenFields, completionFields, dataFields, opIdCounter, statJson, withStat, type OpIdCounter } from "./history.js";
import { parseConnectString } from "./host-provider.js";
import { KeeperException, badArguments } from "./keeper-exception.js";
import { isReadOp, toBytes, toMultiOp, toOpResult, type Op, type OpData, type OpResult } from "./op.js";
import { ZKWatchManager, addWatchKind, type Watcher, type WatchRegistration, type WatchRegistrationKind } from "./watch-manager.js";
import type { SaslCredentials } from "./sasl-client.js";
import type { ClientCompleteFields, ClientInvokeFields, ClientInvokeHead, ClientOpArgs, ClientOpName, ClientOpResult, NamesJson, StatJson, SubOpJson, SubResultJson } from "../trace-events.js";

export interface ClientOptions {
  /** `"s1:2181,s2:2181/app"`: node ids with optional ports (default 2181), optional chroot. */
  connectString: string;
  /** Requested session timeout; the server clamps it into its [min, max]. */
  sessionTimeoutMs: number;
  /** The default watcher: session events, and reads asked with `watch = true`. */
  watcher?: Watcher;
  /**
   * Accept a read-only server (one cut off from its quorum, in read-only mode) when no
   * read/write server can be reached: reads only, writes fail NOTREADONLY, state CONNECTEDREADONLY.
   */
  canBeReadOnly?: boolean;
  /**
   * The JAAS `Client` section's DigestLoginModule login (`username`, `password`): every connection
   * authenticates with SASL DIGEST-MD5 before anything else is sent on it (SaslAuthenticated, or
   * AuthFailed and the handle is dead), and gains `sasl:<username>` on the server.
   */
  sasl?: SaslCredentials;
  /** Re-attach to an existing session (with its password). */
  sessionId?: bigint;
  sessionPasswd?: Uint8Array;
  /** A deliberately broken client (a test-only defect switch, see ClientCanary); never set in use. */
  canary?: ClientCanary;
}

/** A read's watch argument: `true` = the default watcher, a function = that watcher. */
export type WatchArg = boolean | Watcher | undefined;

interface CallSpec<T, O extends ClientOpName = ClientOpName> {
  /** The operation's name: the trace label of its packet. */
  op: string;
  /** Its history name (create2 is recorded as create, getChildren2 as getChildren), and its arguments there. */
  record: O;
  args: ClientOpArgs<O>;
  opCode: number;
  request: RequestRecord;
  /** The client path, for exceptions. */
  path?: string;
  watchRegistration?: WatchRegistration;
  watchDeregistration?: WatchDeregistration;
  /** Codes other than OK that resolve (exists: NONODE → null). */
  accept?: number;
  /** The resolved value; may throw a KeeperException (a failed multi). */
  value(response: ResponseRecord | null, err: number): T;
  summary?(value: T): ClientOpResult<O>;
}

/** How a reply becomes the resolved value and its history summary (`accept`, `value`, `summary`). */
type ReplyHandling<T, O extends ClientOpName> = Pick<CallSpec<T, O>, "accept" | "value" | "summary">;

// The reply handling of the frequent calls that need no handle state, made once: a closure made
// per call pays a lazy-compile check at its first (and only) call.
const noValue = (): undefined => undefined;
const statOf = (rsp: ResponseRecord | null): Stat => (rsp as { stat: Stat }).stat;
const statSummary = (stat: Stat): { stat: StatJson } => ({ stat: statJson(stat) });

const EXISTS_RESULT: ReplyHandling<Stat | null, "exists"> = {
  accept: Code.NONODE,
  value: (rsp, err) => (err === Code.NONODE ? null : (rsp as { stat: Stat }).stat),
  summary: (stat) => ({ stat: stat === null ? null : statJson(stat) }),
};

const GET_DATA_RESULT: ReplyHandling<{ data: Uint8Array | null; stat: Stat }, "getData"> = {
  value: (rsp) => {
    const r = rsp as { data: Uint8Array | null; stat: Stat };
    return { data: r.data, stat: r.stat };
  },
  summary: (v) => withStat(dataFields(v.data, {}), statJson(v.stat)),
};

const GET_CHILDREN_RESULT: ReplyHandling<string[], "getChildren"> = {
  value: (rsp) => (rsp as { children: string[] }).children,
  summary: (children) => childrenFields(children, {}),
};

const GET_CHILDREN2_RESULT: ReplyHandling<{ children: string[]; stat: Stat }, "getChildren"> = {
  value: (rsp) => {
    const r = rsp as { children: string[]; stat: Stat };
    return { children: r.children, stat: r.stat };
  },
  summary: (v) => childrenFields(v.children, { stat: statJson(v.stat) }),
};

export function createClient(ctx: NodeContext, options: ClientOptions): ZooKeeper {
  return new ZooKeeper(ctx, options);
}

export class ZooKeeper {
  readonly cnxn: ClientCnxn;
  readonly watchManager: ZKWatchManager;
  private readonly chroot: Chroot;
  private asyncApi: AsyncZooKeeper | undefined;
  /** This node's operation ids (history.ts), shared with the node's other handles. */
  private readonly opIds: OpIdCounter;
  /** The chroot-lost canary (ClientCanary) only: a multi's operations go out without the chroot. */
  private readonly multiLosesChroot: boolean;
  /** The names-as-count canary (ClientCanary) only: the history records lists of names as counts. */
  private readonly namesCanary: boolean;

  constructor(
    private readonly ctx: NodeContext,
    options: ClientOptions,
  ) {
    const { hosts, chroot } = parseConnectString(options.connectString);
    const timeoutMs = options.sessionTimeoutMs;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UserInputError(`createClient: sessionTimeoutMs must be a positive integer, got ${timeoutMs}`);
    const passwd = options.sessionPasswd ?? new Uint8Array(PASSWORD_BYTES);
    if (options.sessionPasswd !== undefined && options.sessionId === undefined) throw new UserInputError("createClient: sessionPasswd given without sessionId");
    this.chroot = new Chroot(chroot);
    this.opIds = opIdCounter(ctx);
    this.multiLosesChroot = options.canary === "chroot-lost";
    this.namesCanary = options.canary === "names-as-count";
    this.watchManager = new ZKWatchManager(options.watcher);
    this.cnxn = new ClientCnxn(ctx, {
      hosts,
      chroot: this.chroot,
      sessionTimeoutMs: timeoutMs,
      sessionId: options.sessionId ?? 0n,
      sessionPasswd: passwd,
      watchManager: this.watchManager,
      rng: ctx.rng,
      ...(options.canBeReadOnly === true ? { canBeReadOnly: true } : {}),
      ...(options.sasl !== undefined ? { sasl: options.sasl } : {}),
      ...(options.canary !== undefined ? { canary: options.canary } : {}),
    });
    this.cnxn.start();
  }

  /** The callback form of every op (Java's `AsyncCallback`): `zk.async.getData(path, false, cb, ctx)`. */
  get async(): AsyncZooKeeper {
    return (this.asyncApi ??= new AsyncZooKeeper(this));
  }

  // ---- session ---------------------------------------------------------------------------

  getSessionId(): bigint {
    return this.cnxn.sessionId;
  }
  getSessionIdHex(): string {
    return this.cnxn.sessionIdHex;
  }
  getSessionPasswd(): Uint8Array {
    return this.cnxn.sessionPasswd;
  }
  /** The negotiated session timeout (0 before the first handshake). */
  getSessionTimeout(): number {
    return this.cnxn.negotiatedSessionTimeoutMs;
  }
  getState(): ZooKeeperState {
    return this.cnxn.state;
  }
  getLastZxid(): bigint {
    return this.cnxn.lastZxid;
  }
  /** Replaces the default watcher (Java `register`). */
  register(watcher: Watcher | undefined): void {
    this.watchManager.defaultWatcher = watcher;
  }

  // ---- writes ----------------------------------------------------------------------------

  /** Creates a node; resolves with its actual path (sequential names have their suffix). */
  create(path: string, data: OpData, acl: ACL[], mode: number, ttl?: number): Promise<string> {
    const r = this.createRequest<string>("create", path, data, acl, mode, ttl, (rsp) => this.createdPath(rsp), (p) => ({ path: p }));
    return r instanceof KeeperException ? this.rejected(r) : this.call(r);
  }

  /** Like create, also resolving with the new node's Stat. */
  create2(path: string, data: OpData, acl: ACL[], mode: number, ttl?: number): Promise<{ path: string; stat: Stat }> {
    const r = this.createRequest<{ path: string; stat: Stat }>(
      "create2",
      path,
      data,
      acl,
      mode,
      ttl,
      (rsp) => ({ path: this.createdPath(rsp), stat: (rsp as { stat: Stat }).stat }),
      (v) => ({ path: v.path, stat: statJson(v.stat) }),
    );
    return r instanceof KeeperException ? this.rejected(r) : this.call(r);
  }

  /** The create's CallSpec, or the client-side refusal. */
  private createRequest<T>(
    op: "create" | "create2",
    path: string,
    data: OpData,
    acl: ACL[],
    mode: number,
    ttl: number | undefined,
    value: CallSpec<T, "create">["value"],
    summary: CallSpec<T, "create">["summary"],
  ): CallSpec<T, "create"> | KeeperException {
    if (!isKnownCreateMode(mode)) return badArguments(path, `unknown create mode ${mode}`);
    const problem = validatePath(path, isSequentialMode(mode));
    if (problem !== null) return badArguments(path, problem);
    const ttlProblem = checkTTL(mode, ttl);
    if (ttlProblem !== null) return badArguments(path, ttlProblem);
    if (acl.length === 0) return new KeeperException(Code.INVALIDACL, path, undefined, true);
    const bytes = toBytes(data);
    const serverPath = this.chroot.prepend(path);
    const head: { path: string; mode: number; ttl?: number; acl?: string[] } = { path, mode };
    if (ttl !== undefined) head.ttl = ttl;
    const args = dataFields(bytes, head);
    aclFields(acl, args);
    let opCode: number = op === "create" ? OpCode.create : OpCode.create2;
    let request: RequestRecord = { kind: "CreateRequest", path: serverPath, data: bytes, acl, flags: mode };
    if (isTTLMode(mode)) {
      opCode = OpCode.createTTL;
      request = { kind: "CreateTTLRequest", path: serverPath, data: bytes, acl, flags: mode, ttl: ttl! };
    } else if (isContainerMode(mode)) {
      opCode = OpCode.createContainer;
    }
    return { op, record: "create", args, opCode, request, path, value, summary };
  }

  private createdPath(rsp: ResponseRecord | null): string {
    const p = rsp !== null && "path" in rsp ? rsp.path : "";
    return this.chroot.stripCreated(p);
  }

  delete(path: string, version: number): Promise<void> {
    const problem = validatePath(path);
    if (problem !== null) return this.rejected(badArguments(path, problem));
    // Java sends "/" itself, chroot or not, so deleting the root always fails the same way.
    const serverPath = path === "/" ? path : this.chroot.prepend(path);
    return this.call({
      op: "delete",
      record: "delete",
      args: { path, version },
      opCode: OpCode.delete,
      request: { kind: "DeleteRequest", path: serverPath, version },
      path,
      value: noValue,
    });
  }

  setData(path: string, data: OpData, version: number): Promise<Stat> {
    const problem = validatePath(path);
    if (problem !== null) return this.rejected(badArguments(path, problem));
    const bytes = toBytes(data);
    return this.call({
      op: "setData",
      record: "setData",
      args: dataFields(bytes, { path, version }),
      opCode: OpCode.setData,
      request: { kind: "SetDataRequest", path: this.chroot.prepend(path), data: bytes, version },
      path,
      value: statOf,
      summary: statSummary,
    });
  }

  setACL(path: string, acl: ACL[], aversion: number): Promise<Stat> {
    const problem = validatePath(path);
    if (problem !== null) return this.rejected(badArguments(path, problem));
    if (acl.length === 0) return this.rejected(new KeeperException(Code.INVALIDACL, path, undefined, true));
    const args: ClientOpArgs<"setACL"> = { path, aversion };
    aclFields(acl, args);
    return this.call({
      op: "setACL",
      record: "setACL",
      args,
      opCode: OpCode.setACL,
      request: { kind: "SetACLRequest", path: this.chroot.prepend(path), acl, version: aversion },
      path,
      value: statOf,
      summary: statSummary,
    });
  }

  // ---- reads -----------------------------------------------------------------------------

  /** The node's Stat, or null if it does not exist (a watch is then left for its creation). */
  exists(path: string, watch?: WatchArg): Promise<Stat | null> {
    return this.read(path, watch, "exists", OpCode.exists, "ExistsRequest", EXISTS_RESULT);
  }

  getData(path: string, watch?: WatchArg): Promise<{ data: Uint8Array | null; stat: Stat }> {
    return this.read(path, watch, "getData", OpCode.getData, "GetDataRequest", GET_DATA_RESULT);
  }

  getChildren(path: string, watch?: WatchArg): Promise<string[]> {
    return this.read(path, watch, "getChildren", OpCode.getChildren, "GetChildrenRequest", GET_CHILDREN_RESULT);
  }

  getChildren2(path: string, watch?: WatchArg): Promise<{ children: string[]; stat: Stat }> {
    return this.read(path, watch, "getChildren2", OpCode.getChildren2, "GetChildren2Request", GET_CHILDREN2_RESULT);
  }

  private read<T, O extends "exists" | "getData" | "getChildren">(
    path: string,
    watch: WatchArg,
    op: O | "getChildren2",
    opCode: number,
    kind: "ExistsRequest" | "GetDataRequest" | "GetChildrenRequest" | "GetChildren2Request",
    rest: ReplyHandling<T, O>,
  ): Promise<T> {
    const problem = validatePath(path);
    if (problem !== null) return this.rejected(badArguments(path, problem));
    const watcher = this.watcherOf(watch);
    if (watcher instanceof KeeperException) return this.rejected(watcher);
    const regKind: WatchRegistrationKind = op === "exists" ? "exists" : op === "getData" ? "data" : "child";
    // Built field by field: an object spread here sent V8 down a slow generic path on every read.
    const spec: CallSpec<T, O> = {
      accept: rest.accept,
      value: rest.value,
      summary: rest.summary,
      op,
      record: (op === "getChildren2" ? "getChildren" : op) as O,
      args: { path, watch: watcher !== undefined },
      opCode,
      request: { kind, path: this.chroot.prepend(path), watch: watcher !== undefined },
      path,
    };
    if (watcher !== undefined) spec.watchRegistration = { kind: regKind, clientPath: path, watcher };
    return this.call(spec);
  }

  getACL(path: string): Promise<{ acl: ACL[]; stat: Stat }> {
    const problem = validatePath(path);
    if (problem !== null) return this.rejected(badArguments(path, problem));
    return this.call({
      op: "getACL",
      record: "getACL",
      args: { path },
      opCode: OpCode.getACL,
      request: { kind: "GetACLRequest", path: this.chroot.prepend(path) },
      path,
      value: (rsp) => {
        const r = rsp as { acl: ACL[]; stat: Stat };
        return { acl: r.acl, stat: r.stat };
      },
      summary: (v) => ({ stat: statJson(v.stat), acl: v.acl.map(aclText) }),
    });
  }

  /** Asks the server this client is connected to to catch up with the leader. */
  sync(path: string): Promise<void> {
    const problem = validatePath(path);
    if (problem !== null) return this.rejected(badArguments(path, problem));
    return this.call({
      op: "sync",
      record: "sync",
      args: { path },
      opCode: OpCode.sync,
      request: { kind: "SyncRequest", path: this.chroot.prepend(path) },
      path,
      value: noValue,
    });
  }

  /**
   * The session's ephemerals whose server path starts with `prefixPath`. As Java's client does
   * (3.8 and later), the prefix is sent as given and the paths come back as the server names
   * them: a chrooted handle's prefix is *not* prefixed with its chroot, nor its results stripped.
   */
  getEphemerals(prefixPath = "/"): Promise<string[]> {
    const problem = validatePath(prefixPath);
    if (problem !== null) return this.rejected(badArguments(prefixPath, problem));
    return this.call({
      op: "getEphemerals",
      record: "getEphemerals",
      args: { path: prefixPath },
      opCode: OpCode.getEphemerals,
      request: { kind: "GetEphemeralsRequest", prefixPath },
      path: prefixPath,
      value: (rsp) => (rsp as { ephemerals: string[] }).ephemerals,
      summary: (list) => childrenFields(list, {}),
    });
  }

  getAllChildrenNumber(path: string): Promise<number> {
    const problem = validatePath(path);
    if (problem !== null) return this.rejected(badArguments(path, problem));
    return this.call({
      op: "getAllChildrenNumber",
      record: "getAllChildrenNumber",
      args: { path },
      opCode: OpCode.getAllChildrenNumber,
      request: { kind: "GetAllChildrenNumberRequest", path: this.chroot.prepend(path) },
      path,
      value: (rsp) => (rsp as { totalNumber: number }).totalNumber,
      summary: (n) => ({ total: n }),
    });
  }

  whoAmI(): Promise<ClientInfo[]> {
    return this.call({
      op: "whoAmI",
      record: "whoAmI",
      args: {},
      opCode: OpCode.whoAmI,
      request: { kind: "Empty" },
      value: (rsp) => (rsp as { clientInfo: ClientInfo[] }).clientInfo,
      summary: (infos) => ({ ids: infos.map((i) => `${i.authScheme}:${i.user}`) }),
    });
  }

  // ---- dynamic reconfiguration (docs/zookeeper.md §7.10) -----------------------------------

  /**
   * `getConfig`: the data and stat of /zookeeper/config, the ensemble's configuration
   * (`server.N=…` lines, `version=`). Java reads that path whatever the chroot.
   */
  getConfig(watch?: WatchArg): Promise<{ data: Uint8Array | null; stat: Stat }> {
    const watcher = this.watcherOf(watch);
    if (watcher instanceof KeeperException) return this.rejected(watcher);
    const spec: CallSpec<{ data: Uint8Array | null; stat: Stat }, "getData"> = {
      ...GET_DATA_RESULT,
      op: "getConfig",
      record: "getData",
      args: { path: CONFIG_PATH, watch: watcher !== undefined },
      opCode: OpCode.getData,
      request: { kind: "GetDataRequest", path: CONFIG_PATH, watch: watcher !== undefined },
      path: CONFIG_PATH,
    };
    if (watcher !== undefined) spec.watchRegistration = { kind: "data", clientPath: CONFIG_PATH, watcher };
    return this.call(spec);
  }

  /**
   * `ZooKeeperAdmin.reconfigure`: add/remove servers (`joining`: comma-separated
   * `server.N=host:port:port[:role];clientPort`, `leaving`: comma-separated sids) or replace the
   * membership (`newMembers`); `fromConfig` is the config version it applies to, −1 for any. The
   * answer is the new config. Needs `reconfigEnabled` on the servers and the super user (or
   * skipACL); errors: RECONFIGDISABLED, NOAUTH, RECONFIGINPROGRESS, NEWCONFIGNOQUORUM,
   * BADVERSION, BADARGUMENTS.
   */
  reconfig(joining: string | null, leaving: string | null, newMembers: string | null, fromConfig: bigint = -1n): Promise<{ data: Uint8Array | null; stat: Stat }> {
    const args: ClientOpArgs<"reconfig"> = { fromConfig: fromConfig < 0n ? "-1" : `0x${fromConfig.toString(16)}` };
    if (joining !== null) args.joiningServers = joining;
    if (leaving !== null) args.leavingServers = leaving;
    if (newMembers !== null) args.newMembers = newMembers;
    return this.call({
      op: "reconfig",
      record: "reconfig",
      args,
      opCode: OpCode.reconfig,
      request: { kind: "ReconfigRequest", joiningServers: joining, leavingServers: leaving, newMembers, curConfigId: fromConfig < 0n ? -1n : fromConfig },
      value: GET_DATA_RESULT.value,
      summary: (v) => withStat(dataFields(v.data, {}), statJson(v.stat)),
    });
  }

  // ---- multi -----------------------------------------------------------------------------

  /**
   * Runs `ops` atomically (all writes → opcode multi) or, when all are reads, as a multiRead.
   * A failed transaction rejects with the first non-OK code and every result attached.
   */
  multi(ops: readonly Op[]): Promise<OpResult[]> {
    for (const op of ops) {
      const problem = validateOp(op);
      if (problem !== null) return this.rejected(badArguments(op.path, problem));
    }
    const reads = ops.filter(isReadOp).length;
    if (reads > 0 && reads < ops.length) return this.rejected(badArguments(undefined, "mixing read and write operations in a multi is not allowed"));
    const read = ops.length > 0 && reads === ops.length;
    const op = read ? "multiRead" : "multi";
    const args = { ops: ops.map(opArgs) };
    if (ops.length === 0) return this.answeredLocally(op, args, [] as OpResult[]);
    return this.call({
      op,
      record: op,
      args,
      opCode: read ? OpCode.multiRead : OpCode.multi,
      request: { kind: "MultiOperationRecord", ops: ops.map((o) => toMultiOp(o, this.multiLosesChroot ? o.path : this.chroot.prepend(o.path))) },
      value: (rsp) => {
        // As Java's client: a multi's created names come back as the server names them (no chroot stripped).
        const results = (rsp as { results: WireMultiResult[] }).results.map((r) => toOpResult(r, (p) => p));
        const failed = read ? undefined : results.find((r) => r.kind === "error" && r.err !== Code.OK);
        if (failed !== undefined && failed.kind === "error") throw new KeeperException(failed.err, undefined, results);
        return results;
      },
      summary: (results) => ({ results: results.map(opResultJson) }),
    });
  }

  /** multi with read operations only (getData / getChildren); each result stands alone. */
  multiRead(ops: readonly Op[]): Promise<OpResult[]> {
    const write = ops.find((o) => !isReadOp(o));
    if (write !== undefined) return this.rejected(badArguments(write.path, `multiRead takes getData/getChildren only, got ${write.kind}`));
    return this.multi(ops);
  }

  // ---- watches and auth ------------------------------------------------------------------

  /** A persistent (or persistent recursive) watch: survives triggering until removed. */
  addWatch(path: string, watcher: Watcher, mode: number): Promise<void> {
    const problem = validatePath(path);
    if (problem !== null) return this.rejected(badArguments(path, problem));
    if (mode !== AddWatchMode.PERSISTENT && mode !== AddWatchMode.PERSISTENT_RECURSIVE) return this.rejected(badArguments(path, `unknown AddWatchMode ${mode}`));
    return this.call({
      op: "addWatch",
      record: "addWatch",
      args: { path, mode },
      opCode: OpCode.addWatch,
      request: { kind: "AddWatchRequest", path: this.chroot.prepend(path), mode },
      path,
      watchRegistration: { kind: addWatchKind(mode), clientPath: path, watcher },
      value: () => undefined,
    });
  }

  /**
   * Removes one watcher of `type` on `path`. As in Java 3.8, the server is asked with
   * checkWatches (its registration stays: other watchers of this client may share it);
   * with `local`, the watcher is removed even if the server cannot be reached.
   */
  removeWatches(path: string, watcher: Watcher, type: number, local: boolean): Promise<void> {
    return this.removeWatchesOp("removeWatches", OpCode.checkWatches, path, watcher, type, local);
  }

  /** Removes every watcher of `type` on `path`, here and on the server (removeWatches). */
  removeAllWatches(path: string, type: number, local: boolean): Promise<void> {
    return this.removeWatchesOp("removeAllWatches", OpCode.removeWatches, path, undefined, type, local);
  }

  private removeWatchesOp(op: "removeWatches" | "removeAllWatches", opCode: number, path: string, watcher: Watcher | undefined, type: number, local: boolean): Promise<void> {
    const problem = validatePath(path);
    if (problem !== null) return this.rejected(badArguments(path, problem));
    if (type !== WatcherType.Children && type !== WatcherType.Data && type !== WatcherType.Any) return this.rejected(badArguments(path, `unknown WatcherType ${type}`));
    const kind = opCode === OpCode.checkWatches ? "CheckWatchesRequest" : "RemoveWatchesRequest";
    return this.call({
      op,
      record: op,
      args: { path, type, local },
      opCode,
      request: { kind, path: this.chroot.prepend(path), type },
      path,
      watchDeregistration: { clientPath: path, watcher, type, local },
      value: () => undefined,
    });
  }

  /** Adds credentials for this session, now and after every reconnect (failure → AuthFailed event). */
  addAuthInfo(scheme: string, auth: Uint8Array | string): void {
    const bytes = toBytes(auth)!;
    // Recorded for the history checkers: the identities a session's later requests carry.
    if (isAlive(this.cnxn.state)) {
      const text: Record<string, unknown> = {};
      dataFields(bytes, text);
      this.ctx.annotate("client.auth", { client: this.ctx.id, session: this.cnxn.sessionIdHex, scheme, auth: String(text.data) });
    }
    this.cnxn.addAuthInfo(scheme, bytes);
  }

  /** closeSession, then CLOSED (ephemerals go with the session). Resolves however it ends. */
  close(): Promise<void> {
    const d = this.ctx.deferred<void>();
    if (this.cnxn.state === "CLOSED" || this.cnxn.state === "AUTH_FAILED") {
      d.resolve();
      return d.promise;
    }
    const opId = this.invoke("closeSession", {});
    this.cnxn.queuePacket(
      newPacket(OpCode.closeSession, { kind: "Empty" }, "closeSession", undefined, (reply) => {
        this.complete(completionFields(reply, reply.err, this.completionHead(opId)));
        this.cnxn.disconnect();
        d.resolve();
      }),
    );
    return d.promise;
  }

  // ---- plumbing --------------------------------------------------------------------------

  private call<T, O extends ClientOpName>(spec: CallSpec<T, O>): Promise<T> {
    const d = this.ctx.deferred<T>();
    const opId = this.invoke(spec.record, spec.args);
    const onFinish = (reply: PacketReply): void => this.settle(spec, opId, reply, d);
    this.cnxn.queuePacket(newPacket(spec.opCode, spec.request, spec.op, undefined, onFinish, spec.watchRegistration, spec.watchDeregistration));
    return d.promise;
  }

  private settle<T, O extends ClientOpName>(spec: CallSpec<T, O>, opId: number, reply: PacketReply, d: { resolve(v: T): void; reject(e: unknown): void }): void {
    if (reply.err !== Code.OK && reply.err !== spec.accept) {
      this.complete(completionFields(reply, reply.err, this.completionHead(opId)));
      d.reject(new KeeperException(reply.err, spec.path));
      return;
    }
    let value: T;
    try {
      value = spec.value(reply.response, reply.err);
    } catch (err) {
      if (!(err instanceof KeeperException)) throw err;
      const fields = completionFields(reply, err.code, this.completionHead(opId));
      if (err.results !== undefined) fields.result = { results: err.results.map(opResultJson) };
      this.complete(fields);
      d.reject(err);
      return;
    }
    const fields = completionFields(reply, Code.OK, this.completionHead(opId));
    const summary = spec.summary?.(value);
    if (this.namesCanary && summary !== undefined) namesAsCount(summary); // broken on purpose
    if (summary !== undefined) fields.result = summary;
    this.complete(fields);
    d.resolve(value);
  }

  private answeredLocally<T, O extends ClientOpName>(op: O, args: ClientOpArgs<O>, value: T): Promise<T> {
    const opId = this.invoke(op, args);
    const fields = this.completionHead(opId);
    fields.outcome = "ok";
    fields.local = true;
    this.complete(fields);
    const d = this.ctx.deferred<T>();
    d.resolve(value);
    return d.promise;
  }

  private rejected<T>(err: KeeperException): Promise<T> {
    const d = this.ctx.deferred<T>();
    d.reject(err);
    return d.promise;
  }

  private watcherOf(watch: WatchArg): Watcher | undefined | KeeperException {
    if (typeof watch === "function") return watch;
    if (watch !== true) return undefined;
    const w = this.watchManager.defaultWatcher;
    return w ?? badArguments(undefined, "watch = true needs a default watcher, and this client has none");
  }

  private invoke<O extends ClientOpName>(op: O, args: ClientOpArgs<O>): number {
    const opId = ++this.opIds.last;
    const head: ClientInvokeHead<O> = { client: this.ctx.id, session: this.cnxn.sessionIdHex, opId, op };
    if (this.cnxn.state === "CONNECTED" && this.cnxn.currentAddress !== undefined) head.server = this.cnxn.currentAddress.host;
    if (this.chroot.path !== undefined) head.chroot = this.chroot.path;
    this.ctx.annotate("client.invoke", invokeFields(head, args));
    return opId;
  }

  /**
   * The first fields of a `client.complete` annotation, for `completionFields` to add to: built
   * in place, since copying the outcome into a head object costs more than the rest of it.
   */
  private completionHead(opId: number): ClientCompleteFields {
    return { client: this.ctx.id, session: this.cnxn.sessionIdHex, opId };
  }

  private complete(fields: ClientCompleteFields): void {
    this.ctx.annotate("client.complete", fields);
  }
}

/** `EphemeralType.validateTTL`: a TTL mode needs 0 < ttl ≤ 2^40−1; other modes take none. */
function checkTTL(mode: number, ttl: number | undefined): string | null {
  if (isTTLMode(mode)) {
    if (ttl === undefined || !Number.isInteger(ttl) || ttl <= 0 || ttl > MAX_TTL_MS) return `ttl ${ttl} must be in (0, ${MAX_TTL_MS}] for a TTL mode`;
    return null;
  }
  if (ttl !== undefined && ttl >= 0) return `ttl ${ttl} is not valid for mode ${mode}`;
  return null;
}

/** `Op.validate`: the path (sequential creates validate path + "1"), the mode, the TTL. */
function validateOp(op: Op): string | null {
  if (op.kind === "create") {
    if (!isKnownCreateMode(op.mode)) return `unknown create mode ${op.mode}`;
    return validatePath(op.path, isSequentialMode(op.mode)) ?? checkTTL(op.mode, op.ttl);
  }
  return validatePath(op.path);
}

/** A multi sub-op as history arguments (`SubOpJson`): op, path, then data, version, mode (a create's ttl, acl) as it has them. */
function opArgs(op: Op): SubOpJson {
  switch (op.kind) {
    case "create": {
      const a: SubOpJson & { op: "create" } = { ...dataFields(toBytes(op.data), { op: op.kind, path: op.path }), mode: op.mode };
      if (op.ttl !== undefined) a.ttl = op.ttl;
      aclFields(op.acl, a);
      return a;
    }
    case "setData":
      return { ...dataFields(toBytes(op.data), { op: op.kind, path: op.path }), version: op.version };
    case "delete":
    case "check":
      return { op: op.kind, path: op.path, version: op.version };
    case "getData":
    case "getChildren":
      return { op: op.kind, path: op.path };
  }
}

/**
 * `acl` as history text (`"scheme:id:perms"` each), left out when it is OPEN_ACL_UNSAFE (world
 * anyone ALL), which the history reads as the default: most calls pass that one.
 */
function aclFields(acl: readonly ACL[], into: { acl?: string[] }): void {
  if (acl.length === 1 && acl[0]!.perms === Perms.ALL && acl[0]!.id.scheme === "world" && acl[0]!.id.id === "anyone") return;
  into.acl = acl.map(aclText);
}

function aclText(a: ACL): string {
  return `${a.id.scheme}:${a.id.id}:${a.perms}`;
}

/** The names-as-count canary: a recorded list of names becomes its length. */
function namesAsCount(summary: object): void {
  const s = summary as NamesJson;
  if (s.children === undefined) return;
  s.count = s.children.length;
  delete s.children;
}

/** A multi result as history JSON: `{ err, path?, stat? }` with err "OK" on success. */
function opResultJson(r: OpResult): SubResultJson {
  if (r.kind === "error") return { err: codeName(r.err) };
  const out: SubResultJson = { err: "OK" };
  if (r.kind === "create") out.path = r.path;
  if ((r.kind === "create" || r.kind === "setData" || r.kind === "getData") && r.stat !== undefined) out.stat = statJson(r.stat);
  if (r.kind === "getData") dataFields(r.data, out);
  if (r.kind === "getChildren") childrenFields(r.children, out);
  return out;
}

/**
 * The fields of `client.invoke`: the head, then the arguments (Object.assign, not a spread or a
 * for-in: both are slow for varying shapes). The head's `op` names the arguments' operation.
 */
function invokeFields<O extends ClientOpName>(head: ClientInvokeHead<O>, args: ClientOpArgs<O>): ClientInvokeFields {
  return Object.assign(head, args) as ClientInvokeFields;
}
