/**
 * Reading the client library's `client.invoke` / `client.complete` events: the one reader of
 * client operations, for every client checker and for the history (`history.ts`). Each
 * operation has one typed shape in the trace schema (`ClientOps`, zk/trace-events.ts: its
 * arguments, its result, what a failure carries); this reads an event against the shape of its
 * operation with the strict readers (`check/event-reader.ts`), so a missing or mistyped field
 * throws `MalformedEvent` — a violation of the checker that met it, never a skipped event.
 *
 * What it gives: an `Invocation` (the head, the arguments the checkers judge by, in the history's
 * vocabulary: create modes by name, multi's sub-ops) and a `Completion` (outcome, code, reply
 * zxid as a bigint, the result in the history's `OpResult` form). `OpTable` pairs them by
 * (client, opId).
 *
 * Representation is read leniently as everywhere in check/: a create mode may be its name or its
 * wire flag, an error code its name or its number. The members of a result's Stat are checked
 * when present (a Stat member absent is not judged); everything else is present as the schema
 * says, or the event is malformed.
 *
 * Shares no code with the client: only the schema's types and zk/proto's constants.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { ClientOpName, SubOpName } from "../../zk/trace-events.js";
import { Code } from "../../zk/proto/error-code.js";
import { CreateMode, type CreateModeName } from "../../zk/proto/records.js";
import {
  MalformedEvent,
  booleanField,
  intField,
  intValue,
  listField,
  listValue,
  nullableStringField,
  nullableStringValue,
  objectValue,
  oneOfField,
  oneOfValue,
  optionalObjectField,
  optionalStringField,
  optionalStringListField,
  presentField,
  reportMalformed,
  stringField,
  stringListValue,
  stringValue,
  type Untrusted,
  type ViolationSink,
  zxidField,
} from "../event-reader.js";
import type { OpArgs, OpResult, StatFields, SubOp, SubResult } from "./history.js";
import { parseZxidText } from "../zxid-text.js";

/** What a `client.invoke` said, read. */
export interface Invocation {
  client: string;
  opId: number;
  /** The session at invocation ("0x0" before the first handshake). */
  session: string;
  op: ClientOpName;
  /** The path it names ("" for multi, whoAmI, closeSession). */
  path: string;
  /** The server the client was connected to, when it was. */
  server: string | undefined;
  /** The handle's chroot, when it has one: `path` and the sub-ops' paths are relative to it (`serverPathOf`). */
  chroot: string | undefined;
  /** Data, version, create mode, TTL, ACL, multi's sub-ops: what the history model reads. */
  args: OpArgs;
  /** exists, getData, getChildren: whether it left a watch. */
  watch: boolean;
  /** addWatch: its AddWatchMode (0 PERSISTENT, 1 PERSISTENT_RECURSIVE). */
  addWatchMode: number | undefined;
  node: string;
  eventIndex: number;
  atUs: number;
  /** Order of invocation among the events one `OpTable` read. */
  seq: number;
}

/** What a `client.complete` said, read against its invocation's operation. */
export interface Completion {
  session: string;
  outcome: "ok" | "fail" | "unknown";
  err: string | undefined;
  zxid: bigint | undefined;
  result: OpResult | undefined;
  /** Answered without the server: an empty multi (`local`), or refused before sending (`sent: false`). */
  local: boolean;
  /** The request's xid, for an "unknown" op that was sent. */
  xid: number | undefined;
  eventIndex: number;
  atUs: number;
}

const OP_NAMES: readonly ClientOpName[] = [
  "create", "delete", "setData", "setACL", "exists", "getData", "getChildren", "getACL", "sync", "getEphemerals",
  "getAllChildrenNumber", "whoAmI", "multi", "multiRead", "addWatch", "removeWatches", "removeAllWatches", "closeSession", "reconfig",
] satisfies readonly ClientOpName[];
const WRITE_SUB_OPS = ["create", "delete", "setData", "check"] as const satisfies readonly SubOpName[];
const READ_SUB_OPS = ["getData", "getChildren"] as const satisfies readonly SubOpName[];
const OP_NAME_SET: ReadonlySet<string> = new Set(OP_NAMES);
const OUTCOMES = ["ok", "fail", "unknown"] as const;
const MODE_NAMES = Object.keys(CreateMode) as CreateModeName[];
/** Wire flag → name, the first name of each value. */
const MODE_BY_FLAG = firstNames(CreateMode);
const CODE_BY_NUMBER = firstNames(Code);

function firstNames<N extends string>(values: Readonly<Record<N, number>>): ReadonlyMap<number, N> {
  const names = new Map<number, N>();
  for (const n of Object.keys(values) as N[]) if (!names.has(values[n])) names.set(values[n], n);
  return names;
}

/** Ops whose invocation names no path. */
const PATHLESS: ReadonlySet<ClientOpName> = new Set<ClientOpName>(["multi", "multiRead", "whoAmI", "closeSession", "reconfig"]);

/**
 * The last `client.invoke` and `client.complete` read, with what was read: the client checkers
 * of a run (eight `OpTable`s and the history) are handed the same event object one after
 * another, so each event is read once and its reading shared. What is shared is never written
 * to (an `Invocation`, a `Completion`, their args and results are read-only to every checker);
 * a malformed event is not remembered (each reader reports it).
 */
let lastInvokeEvent: TraceEvent | undefined;
let lastInvocation: Invocation | undefined;
let lastCompleteEvent: TraceEvent | undefined;
let lastCompletedOp: ClientOpName | undefined;
let lastCompletion: Completion | undefined;

/** Reads a `client.invoke`; throws `MalformedEvent` when it does not follow its operation's shape. */
export function readInvocation(e: TraceEvent<"client.invoke">, seq: number): Invocation {
  if (e === lastInvokeEvent) return lastInvocation!.seq === seq ? lastInvocation! : { ...lastInvocation!, seq };
  const inv = readInvocationFields(e, seq);
  lastInvokeEvent = e;
  lastInvocation = inv;
  return inv;
}

/**
 * The hot fields are read by name where they are used (a property load per field, no lookup by a
 * field name held in a variable), well-formed values taken as they are; anything else goes
 * through the strict reader, which reads it again and complains in the same order.
 */
const NO_FIELDS: Untrusted = {};

/** An event's fields to read by name, `{}` when it has none (then every read is the strict reader's). */
export function fieldsOf(e: TraceEvent): Untrusted {
  const fields: object = e.fields ?? NO_FIELDS;
  return fields as Untrusted;
}

function readInvocationFields(e: TraceEvent<"client.invoke">, seq: number): Invocation {
  const f = fieldsOf(e);
  const opText = f.op;
  const op = typeof opText === "string" && OP_NAME_SET.has(opText) ? (opText as ClientOpName) : oneOfField(e, "op", OP_NAMES);
  const client = f.client;
  const opId = f.opId;
  const session = f.session;
  const path = f.path;
  const server = f.server;
  const chroot = f.chroot;
  const inv: Invocation = {
    client: typeof client === "string" ? client : stringField(e, "client"),
    opId: typeof opId === "number" && Number.isSafeInteger(opId) ? opId : intField(e, "opId"),
    session: typeof session === "string" ? session : stringField(e, "session"),
    op,
    path: PATHLESS.has(op) ? "" : typeof path === "string" ? path : stringField(e, "path"),
    server: typeof server === "string" ? server : server == null ? undefined : optionalStringField(e, "server"),
    chroot: (typeof chroot === "string" ? chroot : chroot == null ? undefined : optionalStringField(e, "chroot")) || undefined,
    args: {},
    watch: false,
    addWatchMode: undefined,
    node: e.node,
    eventIndex: e.index,
    atUs: e.atUs,
    seq,
  };
  readArguments(e, inv);
  return inv;
}

/** The arguments of `inv.op`, as `ClientOps` shapes them. */
function readArguments(e: TraceEvent<"client.invoke">, inv: Invocation): void {
  switch (inv.op) {
    case "create":
      inv.args = withTtlAndAcl(e, { data: nullableStringField(e, "data"), mode: modeValue(e, "mode", presentField(e, "mode")) }, e.fields);
      return;
    case "setData":
      inv.args = { data: nullableStringField(e, "data"), version: intField(e, "version") };
      return;
    case "delete":
      inv.args = { version: intField(e, "version") };
      return;
    case "setACL": {
      inv.args = { version: intField(e, "aversion") };
      const acl = optionalStringListField(e, "acl");
      if (acl !== undefined) inv.args.acl = acl;
      return;
    }
    case "exists":
    case "getData":
    case "getChildren":
      inv.watch = booleanField(e, "watch");
      return;
    case "multi":
      inv.args = { ops: listField(e, "ops").map((s, i) => writeSubOpValue(e, `ops[${i}]`, s)) };
      return;
    case "multiRead":
      inv.args = { ops: listField(e, "ops").map((s, i) => readSubOpValue(e, `ops[${i}]`, s)) };
      return;
    case "addWatch":
      inv.addWatchMode = intField(e, "mode");
      return;
    case "removeWatches":
    case "removeAllWatches":
      intField(e, "type");
      booleanField(e, "local");
      return;
    case "getACL":
    case "sync":
    case "getEphemerals":
    case "getAllChildrenNumber":
    case "whoAmI":
    case "closeSession":
      return;
    case "reconfig":
      stringField(e, "fromConfig");
      return;
  }
}

/** A create mode: its name, or its wire flag. */
function modeValue(e: TraceEvent, where: string, v: unknown): CreateModeName {
  const byFlag = typeof v === "number" ? MODE_BY_FLAG.get(v) : undefined;
  return byFlag ?? oneOfValue(e, where, v, MODE_NAMES);
}

/** A sub-op of multi: create, delete, setData or check. */
function writeSubOpValue(e: TraceEvent, where: string, v: unknown): SubOp {
  const s = objectValue(e, where, v);
  const op = oneOfValue(e, `${where}.op`, s.op, WRITE_SUB_OPS);
  const path = stringValue(e, `${where}.path`, s.path);
  switch (op) {
    case "create":
      return { op, path, args: withTtlAndAcl(e, { data: nullableStringValue(e, `${where}.data`, s.data), mode: modeValue(e, `${where}.mode`, s.mode) }, s, `${where}.`) };
    case "setData":
      return { op, path, args: { data: nullableStringValue(e, `${where}.data`, s.data), version: intValue(e, `${where}.version`, s.version) } };
    case "delete":
    case "check":
      return { op, path, args: { version: intValue(e, `${where}.version`, s.version) } };
  }
}

/** A sub-op of multiRead: getData or getChildren, and its path. */
function readSubOpValue(e: TraceEvent, where: string, v: unknown): SubOp {
  const s = objectValue(e, where, v);
  return { op: oneOfValue(e, `${where}.op`, s.op, READ_SUB_OPS), path: stringValue(e, `${where}.path`, s.path), args: {} };
}

/** A create's TTL and ACL (`scheme:id:perms` each), when it names them (absent ACL: OPEN_ACL_UNSAFE). */
function withTtlAndAcl(e: TraceEvent, args: OpArgs, f: Untrusted | object, where = ""): OpArgs {
  const u = f as Untrusted;
  if (u.ttl !== undefined) args.ttl = intValue(e, `${where}ttl`, u.ttl);
  if (u.acl !== undefined) args.acl = stringListValue(e, `${where}acl`, u.acl);
  return args;
}

/**
 * The server path of a path an invocation names, or of a name its create returned: the handle's
 * chroot put back the way Java's client builds and cuts paths — chroot for "/", chroot + path
 * otherwise; a created name is the server's with the chroot's length cut off, so chroot + name.
 * A multi's created names are recorded as the server named them.
 */
export function serverPathOf(inv: Pick<Invocation, "chroot">, path: string, created = false): string {
  const chroot = inv.chroot;
  if (chroot === undefined) return path;
  return created || path.length !== 1 ? chroot + path : chroot;
}

/**
 * Reads a `client.complete` of `inv`; throws `MalformedEvent` when it does not follow the schema
 * (a result is read against `inv.op`'s shape).
 */
export function readCompletion(e: TraceEvent<"client.complete">, inv: Invocation): Completion {
  if (e === lastCompleteEvent && inv.op === lastCompletedOp) return lastCompletion!;
  const done = readCompletionFields(e, inv.op);
  lastCompleteEvent = e;
  lastCompletedOp = inv.op;
  lastCompletion = done;
  return done;
}

function readCompletionFields(e: TraceEvent<"client.complete">, op: ClientOpName): Completion {
  const f = fieldsOf(e);
  const outcomeText = f.outcome;
  const outcome = outcomeText === "ok" || outcomeText === "fail" || outcomeText === "unknown" ? outcomeText : oneOfField(e, "outcome", OUTCOMES);
  const resultValueRead = f.result;
  const result = resultValueRead != null && typeof resultValueRead === "object" && !Array.isArray(resultValueRead) ? (resultValueRead as Untrusted) : optionalObjectField(e, "result");
  const session = f.session;
  const err = f.err;
  const zxid = f.zxid;
  const local = f.local;
  const sent = f.sent;
  const xid = f.xid;
  return {
    session: typeof session === "string" ? session : stringField(e, "session"),
    outcome,
    err: err === undefined ? undefined : typeof err === "string" ? err : errField(e, err),
    zxid: zxid == null ? undefined : typeof zxid === "string" ? (parseZxidText(zxid) ?? zxidField(e, "zxid")) : zxidField(e, "zxid"),
    result: result === undefined ? undefined : resultValue(e, op, result),
    local: (local == null ? undefined : typeof local === "boolean" ? local : booleanField(e, "local")) === true ||
      (sent == null ? undefined : typeof sent === "boolean" ? sent : booleanField(e, "sent")) === false,
    xid: xid == null ? undefined : typeof xid === "number" && Number.isSafeInteger(xid) ? xid : intField(e, "xid"),
    eventIndex: e.index,
    atUs: e.atUs,
  };
}

/** The error code's name (a number is read as the code it is). */
function errField(e: TraceEvent<"client.complete">, v: unknown): string | undefined {
  if (typeof v === "number") return CODE_BY_NUMBER.get(v) ?? `CODE(${v})`;
  return optionalStringField(e, "err");
}

/** A result as `op`'s shape has it, in the history's form. */
function resultValue(e: TraceEvent, op: ClientOpName, r: Untrusted): OpResult {
  const out: OpResult = {};
  if (r.path !== undefined) out.path = stringValue(e, "result.path", r.path);
  if (r.data !== undefined) out.data = nullableStringValue(e, "result.data", r.data);
  if (r.stat !== undefined) out.stat = op === "exists" && r.stat === null ? null : statValue(e, "result.stat", r.stat);
  if (r.children !== undefined) out.children = stringListValue(e, "result.children", r.children);
  if (r.count !== undefined) out.count = intValue(e, "result.count", r.count);
  if (r.results !== undefined) out.results = listValue(e, "result.results", r.results).map((s, i) => subResultValue(e, `result.results[${i}]`, s));
  if (r.acl !== undefined) out.acl = stringListValue(e, "result.acl", r.acl);
  if (r.total !== undefined) out.total = intValue(e, "result.total", r.total);
  if (r.ids !== undefined) out.ids = stringListValue(e, "result.ids", r.ids);
  return out;
}

function subResultValue(e: TraceEvent, where: string, v: unknown): SubResult {
  const s = objectValue(e, where, v);
  const out: SubResult = { err: stringValue(e, `${where}.err`, s.err) };
  if (s.path !== undefined) out.path = stringValue(e, `${where}.path`, s.path);
  if (s.stat !== undefined) out.stat = statValue(e, `${where}.stat`, s.stat);
  if (s.data !== undefined) out.data = nullableStringValue(e, `${where}.data`, s.data);
  if (s.children !== undefined) out.children = stringListValue(e, `${where}.children`, s.children);
  if (s.count !== undefined) out.count = intValue(e, `${where}.count`, s.count);
  return out;
}

const STAT_ZXIDS = ["czxid", "mzxid", "pzxid", "ephemeralOwner"] as const;
const STAT_NUMBERS = ["ctime", "mtime", "version", "cversion", "aversion", "dataLength", "numChildren"] as const;

/** A Stat: each member present is checked (zxids and the owner as hex text, the rest integers). */
function statValue(e: TraceEvent, where: string, v: unknown): StatFields {
  const s = objectValue(e, where, v);
  const out: StatFields = {};
  for (const k of STAT_ZXIDS) {
    const x = s[k];
    if (x === undefined) continue;
    // Kept as the text the history compares; read as a zxid to check it is one (memoised: the
    // checkers parse the same zxids later). The name of the field is made only for a complaint.
    const text = typeof x === "string" ? x : stringValue(e, `${where}.${k}`, x);
    if (parseZxidText(text) === undefined) throw new MalformedEvent(e, `${where}.${k}`, x, "a zxid");
    out[k] = text;
  }
  for (const k of STAT_NUMBERS) {
    const x = s[k];
    if (x !== undefined) out[k] = typeof x === "number" && Number.isSafeInteger(x) ? x : intValue(e, `${where}.${k}`, x);
  }
  return out;
}

/** `client/opId`: the name of one operation in messages and reports. */
export function opName(inv: { client: string; opId: number | string }): string {
  return `${inv.client}/${inv.opId}`;
}

/**
 * Values by operation (client, opId) with no key text built per event: a map by client, then
 * opId. For the per-op state the client checkers keep between an invocation and its completion.
 */
export class ByOp<T> {
  private readonly byClient = new Map<string, Map<number, T>>();

  get(client: string, opId: number): T | undefined {
    return this.byClient.get(client)?.get(opId);
  }

  set(client: string, opId: number, value: T): void {
    let byOpId = this.byClient.get(client);
    if (byOpId === undefined) this.byClient.set(client, (byOpId = new Map()));
    byOpId.set(opId, value);
  }

  /** Forgets every value of `client` (its process crashed: its operations end with it). */
  forgetClient(client: string): void {
    this.byClient.delete(client);
  }

  /** How many values are held. */
  get size(): number {
    let n = 0;
    for (const byOpId of this.byClient.values()) n += byOpId.size;
    return n;
  }

  /** The value of (client, opId), removed. */
  take(client: string, opId: number): T | undefined {
    const byOpId = this.byClient.get(client);
    const value = byOpId?.get(opId);
    if (value !== undefined) byOpId!.delete(opId);
    return value;
  }
}

/**
 * Pairs invocations with completions by (client, opId); every event it cannot read, and every
 * completion of nothing invoked, goes to `log` as a violation.
 */
export class OpTable {
  private readonly open = new Map<string, Map<number, Invocation>>();
  /** `client/opId` of invocations reported malformed: their completions are not reported again. */
  private readonly malformed = new Set<string>();
  private seq = 0;

  constructor(private readonly log: ViolationSink) {}

  /** Records an invocation; returns it (undefined, and reported, when the event is malformed). */
  invoke(e: TraceEvent<"client.invoke">): Invocation | undefined {
    try {
      const inv = readInvocation(e, this.seq++);
      // A second invocation of an open (client, opId) replaces the first.
      this.opsOf(inv.client).set(inv.opId, inv);
      return inv;
    } catch (err) {
      reportMalformed(this.log, e, err);
      this.rememberMalformed(e);
      return undefined;
    }
  }

  /** A malformed invocation's name, when its client and opId can be read (else nothing to pair). */
  private rememberMalformed(e: TraceEvent<"client.invoke">): void {
    try {
      this.malformed.add(opName({ client: stringField(e, "client"), opId: intField(e, "opId") }));
    } catch {
      // Its completion, if any, cannot be told apart from a stray one: reported as such.
    }
  }

  /**
   * The completion of a recorded invocation, which is forgotten; undefined (and reported) when
   * the event is malformed or completes nothing that was invoked. The completion of an
   * invocation already reported malformed is dropped silently: one bad event, one violation.
   */
  complete(e: TraceEvent<"client.complete">): { inv: Invocation; done: Completion } | undefined {
    try {
      const f = fieldsOf(e);
      const clientText = f.client;
      const opIdValue = f.opId;
      const client = typeof clientText === "string" ? clientText : stringField(e, "client");
      const opId = typeof opIdValue === "number" && Number.isSafeInteger(opIdValue) ? opIdValue : intField(e, "opId");
      const byOpId = this.open.get(client);
      const inv = byOpId?.get(opId);
      if (inv === undefined) {
        if (this.malformed.delete(opName({ client, opId }))) return undefined;
        this.log.add(e, `malformed trace: completion of op ${client}/${opId} without an invocation`);
        return undefined;
      }
      byOpId!.delete(opId);
      return { inv, done: readCompletion(e, inv) };
    } catch (err) {
      reportMalformed(this.log, e, err);
      return undefined;
    }
  }

  private opsOf(client: string): Map<number, Invocation> {
    let byOpId = this.open.get(client);
    if (byOpId === undefined) this.open.set(client, (byOpId = new Map()));
    return byOpId;
  }

  /** Invocations not completed yet, in invocation order. */
  pending(): Invocation[] {
    const all: Invocation[] = [];
    for (const byOpId of this.open.values()) all.push(...byOpId.values());
    return all.sort((a, b) => a.seq - b.seq);
  }
}
