/**
 * A tiny standalone-server pipeline for the state-machine tests: prep (leader) → apply
 * (DataTree) → reply (final processor), with a fake session tracker, a zxid counter and a
 * recording watcher. Not a checker: it only wires the units under test together.
 */
import { Code } from "../../../src/zk/proto/error-code.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import type { RequestRecord } from "../../../src/zk/proto/packets.js";
import { Ids, makeZxid, type ACL, type Id, type SessionId, type WatcherEvent, type Zxid } from "../../../src/zk/proto/records.js";
import type { TxnEntry } from "../../../src/zk/proto/txn.js";
import { DataTree, type ProcessTxnResult } from "../../../src/zk/server/data-tree.js";
import { processRead, replyForTxn, type FinalReply } from "../../../src/zk/server/final-request-processor.js";
import {
  PrepRequestProcessor,
  type PrepOptions,
  type PrepResult,
  type SessionChecker,
} from "../../../src/zk/server/prep-request-processor.js";
import type { ServerWatcher } from "../../../src/zk/server/watch-manager.js";

export const S1: SessionId = 0x0100000ac3920000n;
export const S2: SessionId = 0x0100000ac3920001n;
export const IP: Id = { scheme: "ip", id: "127.0.0.1" };

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
export const dec = (b: Uint8Array | null): string => (b === null ? "<null>" : new TextDecoder().decode(b));

export class FakeSessions implements SessionChecker {
  readonly known = new Set<SessionId>([S1, S2]);
  readonly closing = new Set<SessionId>();
  readonly owners = new Map<SessionId, unknown>();
  /** What an unknown session yields (standalone UNKNOWNSESSION, leader SESSIONEXPIRED). */
  unknownCode: number = Code.UNKNOWNSESSION;

  checkSession(id: SessionId, owner: unknown): number {
    if (!this.known.has(id)) return this.unknownCode;
    if (this.closing.has(id)) return Code.SESSIONEXPIRED;
    const o = this.owners.get(id);
    if (o === undefined) this.owners.set(id, owner);
    else if (o !== owner) return Code.SESSIONMOVED;
    return Code.OK;
  }
  checkGlobalSession(id: SessionId, owner: unknown): number {
    if (!this.known.has(id) || this.closing.has(id)) return Code.SESSIONEXPIRED;
    return this.checkSession(id, owner);
  }
  setSessionClosing(id: SessionId): void {
    this.closing.add(id);
  }
  trackSession(id: SessionId): void {
    this.known.add(id);
  }
}

export class RecordingWatcher implements ServerWatcher {
  readonly events: (WatcherEvent & { zxid: Zxid })[] = [];
  constructor(readonly watcherId: number) {}
  process(event: WatcherEvent, zxid: Zxid): void {
    this.events.push({ ...event, zxid });
  }
  /** `Type:path` strings, then cleared. */
  take(): string[] {
    const out = this.events.map((e) => `${eventName(e.type)}:${e.path}`);
    this.events.length = 0;
    return out;
  }
}

function eventName(type: number): string {
  return ({ 1: "Created", 2: "Deleted", 3: "DataChanged", 4: "ChildrenChanged" } as Record<number, string>)[type] ?? String(type);
}

export interface Outcome {
  prep: PrepResult;
  result: ProcessTxnResult | null;
  reply: FinalReply | null;
}

export class Harness {
  readonly tree: DataTree;
  readonly sessions = new FakeSessions();
  readonly prep: PrepRequestProcessor;
  private counter = 0;
  timeMs = 1_000_000;
  readonly owner = { name: "local" };

  constructor(opts: Partial<PrepOptions> = {}) {
    this.tree = new DataTree({ extendedTypesEnabled: opts.extendedTypesEnabled ?? false });
    this.prep = new PrepRequestProcessor(this.tree, this.sessions, opts);
  }

  get lastZxid(): Zxid {
    return makeZxid(1, this.counter);
  }

  /** Prep only (pipelining); consumes a zxid when a txn results. */
  prepare(type: number, request: RequestRecord, session: SessionId = S1, authInfo: Id[] = [IP]): PrepResult {
    const zxid = makeZxid(1, this.counter + 1);
    const r = this.prep.prep({ sessionId: session, cxid: 1, type, request, authInfo, owner: this.owner }, zxid, this.timeMs);
    if (r.kind === "txn") this.counter++;
    return r;
  }

  apply(entry: TxnEntry, requestType: number): { result: ProcessTxnResult; reply: FinalReply } {
    const result = this.tree.processTxn(entry.header, entry.txn);
    this.prep.removeOutstandingUpTo(entry.header.zxid);
    return { result, reply: replyForTxn(requestType, result) };
  }

  /** Prep and apply at once (a standalone server with an idle pipeline). */
  write(type: number, request: RequestRecord, session: SessionId = S1, authInfo: Id[] = [IP]): Outcome {
    const prep = this.prepare(type, request, session, authInfo);
    if (prep.kind !== "txn") return { prep, result: null, reply: null };
    const { result, reply } = this.apply(prep.entry, type);
    return { prep, result, reply };
  }

  read(type: number, request: RequestRecord, watcher: ServerWatcher = NO_WATCHER, authInfo: Id[] = [IP], session: SessionId = S1): FinalReply {
    return processRead(this.tree, type, request, watcher, authInfo, session);
  }

  // ---- shorthands ---------------------------------------------------------------------

  create(path: string, data = "", flags = 0, acl: ACL[] = Ids.OPEN_ACL_UNSAFE, session: SessionId = S1, authInfo: Id[] = [IP]): FinalReply {
    return this.write(OpCode.create, { kind: "CreateRequest", path, data: enc(data), acl, flags }, session, authInfo).reply as FinalReply;
  }
  createdPath(path: string, flags = 0, session: SessionId = S1): string {
    const r = this.create(path, "", flags, Ids.OPEN_ACL_UNSAFE, session);
    if (r.err !== 0 || r.response?.kind !== "CreateResponse") throw new Error(`create ${path} failed: ${r.err}`);
    return r.response.path;
  }
  delete(path: string, version = -1, session: SessionId = S1, authInfo: Id[] = [IP]): FinalReply {
    return this.write(OpCode.delete, { kind: "DeleteRequest", path, version }, session, authInfo).reply as FinalReply;
  }
  setData(path: string, data: string, version = -1, authInfo: Id[] = [IP]): FinalReply {
    return this.write(OpCode.setData, { kind: "SetDataRequest", path, data: enc(data), version }, S1, authInfo).reply as FinalReply;
  }
  setACL(path: string, acl: ACL[], version = -1, authInfo: Id[] = [IP]): FinalReply {
    return this.write(OpCode.setACL, { kind: "SetACLRequest", path, acl, version }, S1, authInfo).reply as FinalReply;
  }
  createSession(session: SessionId, sessionTimeoutMs: number): Outcome {
    const prep = this.prep.prep({ sessionId: session, cxid: 0, type: OpCode.createSession, request: { kind: "Empty" }, authInfo: [], owner: this.owner, sessionTimeoutMs }, makeZxid(1, this.counter + 1), this.timeMs);
    if (prep.kind !== "txn") return { prep, result: null, reply: null };
    this.counter++;
    const { result, reply } = this.apply(prep.entry, OpCode.createSession);
    return { prep, result, reply };
  }
  closeSession(session: SessionId): Outcome {
    return this.write(OpCode.closeSession, { kind: "Empty" }, session);
  }
  exists(path: string, watcher: ServerWatcher = NO_WATCHER, watch = false): FinalReply {
    return this.read(OpCode.exists, { kind: "ExistsRequest", path, watch }, watcher);
  }
  stat(path: string) {
    const s = this.tree.statNode(path);
    if (s === null) throw new Error(`no node ${path}`);
    return s;
  }
  children(path: string): string[] {
    return this.tree.getChildren(path)?.children ?? [];
  }
}

export const NO_WATCHER: ServerWatcher = {
  watcherId: -1,
  process: () => {
    throw new Error("NO_WATCHER must not receive events");
  },
};
