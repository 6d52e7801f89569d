/**
 * Model-based test of the standalone server's data path: the real `PrepRequestProcessor` →
 * `DataTree.processTxn` → `replyForTxn`, and `processRead` for reads, driven synchronously
 * with the same random command sequences (test/zk/model/ops.ts) as the independent
 * `ReferenceZooKeeper` (test/zk/model/reference-tree.ts, which shares no code with
 * src/zk/server/). After every command the two must agree on the reply (err code, returned
 * path, data, children, ACL, full Stat, multi results), on the last processed zxid, and on the
 * whole world: every node (path, data, ACL, visible Stat, kind of owner), the live sessions and
 * each session's ephemerals.
 *
 * A canary wraps the real DataTree so that setData forgets to bump `version` and demands that
 * the same property fails: the test can fail.
 *
 * Replay: the property runs with `{ seed: 42 }`; a failure prints fast-check's
 * `{ seed, path }` and the failing step with both observations.
 */
import fc from "fast-check";
import { isDeepStrictEqual, inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { Code } from "../../../src/zk/proto/error-code.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import type { FinalReply } from "../../../src/zk/server/final-request-processor.js";
import { processRead, replyForTxn } from "../../../src/zk/server/final-request-processor.js";
import type { MultiOp, MultiResult, RequestRecord } from "../../../src/zk/proto/packets.js";
import type { ACL, Id, SessionId, Stat, Zxid } from "../../../src/zk/proto/records.js";
import { authenticate } from "../../../src/zk/server/acl.js";
import { DataTree } from "../../../src/zk/server/data-tree.js";
import { PrepRequestProcessor, type SessionChecker } from "../../../src/zk/server/prep-request-processor.js";
import type { ServerWatcher } from "../../../src/zk/server/watch-manager.js";
import { ReferenceZooKeeper, type MultiOp as ModelMultiOp, type MultiOpResult } from "./reference-tree.js";
import { SESSION_SLOTS, SLOT_AUTH, UNKNOWN_SLOT, aclOf, commandsArb, encodeData, type Command, type SubOpCommand } from "./ops.js";

// ---- what both sides are compared on ----------------------------------------------------------

/** One reply, normalised. Absent fields mean "not in the reply". */
interface Observation {
  err: number;
  path?: string;
  data?: string | null;
  stat?: Stat;
  children?: string[];
  acl?: ACL[];
  results?: SubResultObservation[];
}
interface SubResultObservation {
  type: "create" | "delete" | "setData" | "check" | "error";
  err: number;
  path?: string;
  stat?: Stat;
}
type OwnerKind = "persistent" | "ephemeral" | "container" | "ttl";
interface NodeObservation { path: string; data: string | null; acl: ACL[]; stat: Stat; owner: OwnerKind }
interface WorldObservation {
  lastZxid: Zxid;
  nodes: NodeObservation[];
  sessions: SessionId[];
  ephemerals: { sessionId: SessionId; paths: string[] }[];
}

/** What the harness needs from either side. Session ids are chosen by the harness. */
interface Driver {
  createSession(sessionId: SessionId, timeMs: number): Observation;
  addAuth(sessionId: SessionId, userPassword: string): void;
  closeSession(sessionId: SessionId, timeMs: number): Observation;
  execute(command: NodeCommand, sessionId: SessionId, timeMs: number): Observation;
  world(): WorldObservation;
}

/** The commands that act on znodes (session commands are handled by the harness). */
type NodeCommand = Exclude<Command, { kind: "closeSession" | "addAuth" }>;

/** Server configuration shared by both sides. */
interface Config {
  extendedTypesEnabled: boolean;
}

const decoder = new TextDecoder();
const text = (data: Uint8Array | null | undefined): string | null => (data === null || data === undefined ? null : decoder.decode(data));

// ---- the model side -------------------------------------------------------------------------------

function modelSubOp(op: SubOpCommand): ModelMultiOp {
  switch (op.kind) {
    case "create":
      return { kind: "create", path: op.path, data: encodeData(op.data), acl: aclOf(op.acl), mode: op.mode };
    case "setData":
      return { kind: "setData", path: op.path, data: encodeData(op.data), version: op.version };
    case "delete":
    case "check":
      return op;
  }
}

function modelSubResult(r: MultiOpResult): SubResultObservation {
  if (r.kind === "create") return r.stat === undefined ? { type: "create", err: 0, path: r.path } : { type: "create", err: 0, path: r.path, stat: r.stat };
  if (r.kind === "setData") return { type: "setData", err: 0, stat: r.stat };
  return { type: r.kind, err: r.err };
}

/** Keeps only the fields present on success (the model returns none on failure). */
function observe(err: number, fields: Omit<Observation, "err">): Observation {
  if (err !== Code.OK) return { err };
  const o: Observation = { err };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) (o as unknown as Record<string, unknown>)[k] = v;
  return o;
}

class ModelDriver implements Driver {
  readonly zk: ReferenceZooKeeper;

  constructor(config: Config) {
    this.zk = new ReferenceZooKeeper({ extendedTypesEnabled: config.extendedTypesEnabled });
  }

  createSession(sessionId: SessionId, timeMs: number): Observation {
    this.zk.setTimeMs(timeMs);
    return { err: this.zk.createSession(sessionId).err };
  }
  addAuth(sessionId: SessionId, userPassword: string): void {
    expect(this.zk.addAuth(sessionId, "digest", userPassword).err).toBe(Code.OK);
  }
  closeSession(sessionId: SessionId, timeMs: number): Observation {
    this.zk.setTimeMs(timeMs);
    return { err: this.zk.closeSession(sessionId).err };
  }

  execute(c: NodeCommand, s: SessionId, timeMs: number): Observation {
    const zk = this.zk;
    zk.setTimeMs(timeMs);
    switch (c.kind) {
      case "create": {
        const r = zk.create(s, c.path, encodeData(c.data), aclOf(c.acl), c.mode, c.ttl);
        return observe(r.err, { path: r.path, stat: r.stat });
      }
      case "delete":
        return { err: zk.delete(s, c.path, c.version).err };
      case "setData": {
        const r = zk.setData(s, c.path, encodeData(c.data), c.version);
        return observe(r.err, { stat: r.stat });
      }
      case "setACL": {
        const r = zk.setACL(s, c.path, aclOf(c.acl), c.version);
        return observe(r.err, { stat: r.stat });
      }
      case "multi": {
        const r = zk.multi(s, c.ops.map(modelSubOp));
        return { err: r.err, results: r.results.map(modelSubResult) };
      }
      case "exists": {
        const r = zk.exists(s, c.path);
        return observe(r.err, { stat: r.stat });
      }
      case "getData": {
        const r = zk.getData(s, c.path);
        return observe(r.err, { data: text(r.data), stat: r.stat });
      }
      case "getChildren": {
        const r = zk.getChildren(s, c.path);
        // The model keeps names sorted; the server gives Java's hash order (checked against a real server by the conformance suite).
        return observe(r.err, { children: r.children === undefined ? undefined : [...r.children].sort(), stat: r.stat });
      }
      case "getACL": {
        const r = zk.getACL(s, c.path);
        return observe(r.err, { acl: r.acl, stat: r.stat });
      }
    }
  }

  world(): WorldObservation {
    const sessions = this.zk.sessionIds();
    return {
      lastZxid: this.zk.lastProcessedZxid,
      nodes: this.zk.dump().map((e) => ({ path: e.path, data: text(e.data), acl: e.acl, stat: e.stat, owner: e.owner.kind })),
      sessions,
      ephemerals: sessions.map((sessionId) => ({ sessionId, paths: this.zk.ephemeralsOf(sessionId) })),
    };
  }
}

// ---- the real-server side -----------------------------------------------------------------------

/**
 * A minimal standalone session tracker for prep (the real SessionTracker is not part of this
 * test): unknown → UNKNOWNSESSION, closing → SESSIONEXPIRED; global checks map unknown to
 * SESSIONEXPIRED.
 */
class StandaloneSessions implements SessionChecker {
  private readonly closing = new Map<SessionId, boolean>();
  checkSession(id: SessionId): number {
    const closing = this.closing.get(id);
    if (closing === undefined) return Code.UNKNOWNSESSION;
    return closing ? Code.SESSIONEXPIRED : Code.OK;
  }
  checkGlobalSession(id: SessionId): number {
    const err = this.checkSession(id);
    return err === Code.UNKNOWNSESSION ? Code.SESSIONEXPIRED : err;
  }
  setSessionClosing(id: SessionId): void {
    if (this.closing.has(id)) this.closing.set(id, true);
  }
  trackSession(id: SessionId): void {
    this.closing.set(id, false);
  }
  removeSession(id: SessionId): void {
    this.closing.delete(id);
  }
}

const OWNER = "standalone";
const REMOTE_ADDRESS = "127.0.0.1";
const NO_WATCHER: ServerWatcher = {
  watcherId: 0,
  process(): void {
    throw new Error("no watch was set, none may fire");
  },
};
const LONG_MIN = -(1n << 63n);

/** Decodes a persisted ephemeralOwner (§1.2) without the server's helpers. */
function ownerKind(owner: bigint, extendedTypesEnabled: boolean): OwnerKind {
  if (owner === 0n) return "persistent";
  if (owner === LONG_MIN) return "container";
  if (extendedTypesEnabled && (BigInt.asUintN(64, owner) >> 56n) === 0xffn) return "ttl";
  return "ephemeral";
}

class ServerDriver implements Driver {
  readonly tree: DataTree;
  private readonly sessions = new StandaloneSessions();
  private readonly prep: PrepRequestProcessor;
  private readonly authInfo = new Map<SessionId, Id[]>();
  private hzxid = 0n;
  private cxid = 0;

  constructor(config: Config, makeTree: (config: Config) => DataTree = (c) => new DataTree(c)) {
    this.tree = makeTree(config);
    this.prep = new PrepRequestProcessor(this.tree, this.sessions, { extendedTypesEnabled: config.extendedTypesEnabled });
  }

  /** prep → processTxn → reply, as the standalone pipeline does for one write. */
  private write(sessionId: SessionId, type: number, request: RequestRecord, timeMs: number, timeoutMs?: number): FinalReply {
    this.hzxid += 1n;
    const req = { sessionId, cxid: ++this.cxid, type, request, authInfo: this.authInfo.get(sessionId) ?? [], owner: OWNER };
    const prepped = this.prep.prep(timeoutMs === undefined ? req : { ...req, sessionTimeoutMs: timeoutMs }, this.hzxid, timeMs);
    // A write without a txn would not consume its zxid: the lastZxid comparison reports it.
    if (prepped.kind !== "txn") return { err: prepped.err, response: null, disposition: "reply" };
    const rc = this.tree.processTxn(prepped.entry.header, prepped.entry.txn);
    this.prep.applied(prepped.entry.header.zxid);
    if (type === OpCode.closeSession) this.sessions.removeSession(sessionId);
    return replyForTxn(type, rc);
  }

  /** Session check at prep (no txn), then the read against the tree. */
  private read(sessionId: SessionId, type: number, request: RequestRecord, timeMs: number): FinalReply {
    const authInfo = this.authInfo.get(sessionId) ?? [];
    const prepped = this.prep.prep({ sessionId, cxid: ++this.cxid, type, request, authInfo, owner: OWNER }, this.hzxid + 1n, timeMs);
    if (prepped.kind === "txn") throw new Error(`read op ${type} produced a txn`);
    if (prepped.err !== Code.OK) return { err: prepped.err, response: null, disposition: "reply" };
    return processRead(this.tree, type, request, NO_WATCHER, authInfo, sessionId);
  }

  createSession(sessionId: SessionId, timeMs: number): Observation {
    this.authInfo.set(sessionId, [{ scheme: "ip", id: REMOTE_ADDRESS }]);
    return { err: this.write(sessionId, OpCode.createSession, { kind: "Empty" }, timeMs, 30_000).err };
  }
  addAuth(sessionId: SessionId, userPassword: string): void {
    const r = authenticate("digest", new TextEncoder().encode(userPassword), REMOTE_ADDRESS);
    if (r.kind !== "ok") throw new Error(`addauth failed: ${r.err}`);
    const ids = this.authInfo.get(sessionId) ?? [];
    for (const id of r.ids) if (!ids.some((k) => k.scheme === id.scheme && k.id === id.id)) ids.push(id);
    this.authInfo.set(sessionId, ids);
  }
  closeSession(sessionId: SessionId, timeMs: number): Observation {
    const err = this.write(sessionId, OpCode.closeSession, { kind: "Empty" }, timeMs).err;
    this.authInfo.delete(sessionId);
    return { err };
  }

  execute(c: NodeCommand, s: SessionId, timeMs: number): Observation {
    switch (c.kind) {
      case "create":
        return fromReply(this.write(s, ...createRequest(c), timeMs));
      case "delete":
        return fromReply(this.write(s, OpCode.delete, { kind: "DeleteRequest", path: c.path, version: c.version }, timeMs));
      case "setData":
        return fromReply(this.write(s, OpCode.setData, { kind: "SetDataRequest", path: c.path, data: encodeData(c.data), version: c.version }, timeMs));
      case "setACL":
        return fromReply(this.write(s, OpCode.setACL, { kind: "SetACLRequest", path: c.path, acl: aclOf(c.acl), version: c.version }, timeMs));
      case "multi":
        return fromReply(this.write(s, OpCode.multi, { kind: "MultiOperationRecord", ops: c.ops.map(serverSubOp) }, timeMs));
      case "exists":
        return fromReply(this.read(s, OpCode.exists, { kind: "ExistsRequest", path: c.path, watch: false }, timeMs));
      case "getData":
        return fromReply(this.read(s, OpCode.getData, { kind: "GetDataRequest", path: c.path, watch: false }, timeMs));
      case "getChildren":
        return fromReply(this.read(s, OpCode.getChildren2, { kind: "GetChildren2Request", path: c.path, watch: false }, timeMs));
      case "getACL":
        return fromReply(this.read(s, OpCode.getACL, { kind: "GetACLRequest", path: c.path }, timeMs));
    }
  }

  world(): WorldObservation {
    const snapshot = this.tree.serialize();
    const nodes = snapshot.nodes.map((n): NodeObservation => {
      const got = this.tree.getData(n.path);
      const acl = this.tree.getACL(n.path);
      if (got === null || acl === null) throw new Error(`serialized node ${n.path} cannot be read`);
      return { path: n.path, data: text(got.data), acl: acl.acl, stat: got.stat, owner: ownerKind(n.stat.ephemeralOwner, this.tree.extendedTypesEnabled) };
    });
    const sessions = snapshot.sessions.map((s) => s.sessionId);
    return {
      lastZxid: this.tree.lastProcessedZxid,
      nodes,
      sessions,
      ephemerals: sessions.map((sessionId) => ({ sessionId, paths: [...this.tree.getEphemerals(sessionId)].sort() })),
    };
  }
}

/** The opcode a Java client uses: createContainer for CONTAINER, createTTL with a ttl, else create2. */
function createRequest(c: Extract<Command, { kind: "create" }>): [number, RequestRecord] {
  const base = { path: c.path, data: encodeData(c.data), acl: aclOf(c.acl), flags: c.mode };
  if (c.ttl !== undefined) return [OpCode.createTTL, { kind: "CreateTTLRequest", ...base, ttl: c.ttl }];
  if (c.mode === 4) return [OpCode.createContainer, { kind: "CreateRequest", ...base }];
  return [OpCode.create2, { kind: "CreateRequest", ...base }];
}

function serverSubOp(op: SubOpCommand): MultiOp {
  switch (op.kind) {
    case "create": {
      const type = op.mode === 4 ? OpCode.createContainer : OpCode.create;
      return { type, request: { kind: "CreateRequest", path: op.path, data: encodeData(op.data), acl: aclOf(op.acl), flags: op.mode } };
    }
    case "delete":
      return { type: OpCode.delete, request: { kind: "DeleteRequest", path: op.path, version: op.version } };
    case "setData":
      return { type: OpCode.setData, request: { kind: "SetDataRequest", path: op.path, data: encodeData(op.data), version: op.version } };
    case "check":
      return { type: OpCode.check, request: { kind: "CheckVersionRequest", path: op.path, version: op.version } };
  }
}

function fromReply(reply: FinalReply): Observation {
  const r = reply.response;
  if (reply.err !== Code.OK || r === null) return { err: reply.err };
  switch (r.kind) {
    case "Create2Response":
      return { err: 0, path: r.path, stat: r.stat };
    case "CreateResponse":
      return { err: 0, path: r.path };
    case "SetDataResponse":
    case "SetACLResponse":
    case "ExistsResponse":
      return { err: 0, stat: r.stat };
    case "GetDataResponse":
      return { err: 0, data: text(r.data), stat: r.stat };
    case "GetChildren2Response":
      return { err: 0, children: [...r.children].sort(), stat: r.stat };
    case "GetACLResponse":
      return { err: 0, acl: r.acl, stat: r.stat };
    case "MultiResponse":
      return { err: 0, results: r.results.map(serverSubResult) };
    case "Empty":
      return { err: 0 };
    default:
      throw new Error(`unexpected reply ${r.kind}`);
  }
}

function serverSubResult(r: MultiResult): SubResultObservation {
  const body = r.response;
  switch (r.type) {
    case OpCode.create:
    case OpCode.create2:
      if (body?.kind === "Create2Response") return { type: "create", err: r.err, path: body.path, stat: body.stat };
      if (body?.kind === "CreateResponse") return { type: "create", err: r.err, path: body.path };
      throw new Error(`create result without a path: ${inspect(r)}`);
    case OpCode.setData:
      if (body?.kind !== "SetDataResponse") throw new Error(`setData result without a stat: ${inspect(r)}`);
      return { type: "setData", err: r.err, stat: body.stat };
    case OpCode.delete:
      return { type: "delete", err: r.err };
    case OpCode.check:
      return { type: "check", err: r.err };
    case OpCode.error:
      return { type: "error", err: r.err };
    default:
      throw new Error(`unexpected multi result type ${r.type}`);
  }
}

// ---- the harness ------------------------------------------------------------------------------------

const FIRST_SESSION_ID = 0x0100000ac3920000n;
/** Never opened: what a stale packet of a long-gone session carries. */
const UNKNOWN_SESSION_ID = 0x0100000ac39200ffn;
const START_TIME_MS = 1_700_000_000_000;
const TIME_STEP_MS = 7;

function show(x: unknown): string {
  return inspect(x, { depth: 8, breakLength: 140 });
}

/**
 * Runs `commands` on the model and on the server built by `makeServer`; returns null when
 * they agree all along, else a description of the first disagreement.
 */
function firstDisagreement(commands: readonly Command[], config: Config, makeServer: (config: Config) => ServerDriver): string | null {
  const model = new ModelDriver(config);
  const server = makeServer(config);
  let nextId = FIRST_SESSION_ID;
  let timeMs = START_TIME_MS;
  const slots: SessionId[] = [];

  const compare = (step: string, expected: unknown, actual: unknown): string | null =>
    isDeepStrictEqual(expected, actual) ? null : `${step}\n  model:  ${show(expected)}\n  server: ${show(actual)}`;
  const compareWorld = (step: string): string | null => {
    const diff = worldDiff(model.world(), server.world());
    return diff.length === 0 ? null : `${step} — the trees differ afterwards:\n${diff.join("\n")}`;
  };

  const open = (slot: number): string | null => {
    const id = nextId++;
    slots[slot] = id;
    timeMs += TIME_STEP_MS;
    const mismatch = compare(`createSession(slot ${slot})`, model.createSession(id, timeMs), server.createSession(id, timeMs));
    const auth = SLOT_AUTH[slot];
    if (auth !== null && auth !== undefined) {
      model.addAuth(id, auth);
      server.addAuth(id, auth);
    }
    return mismatch;
  };

  for (let slot = 0; slot < SESSION_SLOTS; slot++) {
    const mismatch = open(slot);
    if (mismatch !== null) return mismatch;
  }
  for (const [index, command] of commands.entries()) {
    const step = `step ${index}: ${show(command)}`;
    const sessionId = command.slot === UNKNOWN_SLOT ? UNKNOWN_SESSION_ID : slots[command.slot]!;
    timeMs += TIME_STEP_MS;
    let mismatch: string | null = null;
    if (command.kind === "closeSession") {
      mismatch = compare(step, model.closeSession(sessionId, timeMs), server.closeSession(sessionId, timeMs));
      if (command.slot !== UNKNOWN_SLOT) mismatch ??= open(command.slot);
    } else if (command.kind === "addAuth") {
      model.addAuth(sessionId, command.userPassword);
      server.addAuth(sessionId, command.userPassword);
    } else {
      mismatch = compare(step, model.execute(command, sessionId, timeMs), server.execute(command, sessionId, timeMs));
    }
    mismatch ??= compareWorld(step);
    if (mismatch !== null) return mismatch;
  }
  const invariants = model.zk.checkInvariants();
  return invariants.length === 0 ? null : `model invariants: ${invariants.join("; ")}`;
}

/** Only what differs between two worlds, node by node, so a report stays readable. */
function worldDiff(model: WorldObservation, server: WorldObservation): string[] {
  const out: string[] = [];
  const field = (name: string, a: unknown, b: unknown): void => {
    if (!isDeepStrictEqual(a, b)) out.push(`  ${name}\n    model:  ${show(a)}\n    server: ${show(b)}`);
  };
  field("lastProcessedZxid", model.lastZxid, server.lastZxid);
  field("sessions", model.sessions, server.sessions);
  field("ephemerals", model.ephemerals, server.ephemerals);
  const paths = [...new Set([...model.nodes, ...server.nodes].map((n) => n.path))].sort();
  for (const path of paths) {
    const a = model.nodes.find((n) => n.path === path);
    const b = server.nodes.find((n) => n.path === path);
    const name = `node ${JSON.stringify(path)}`;
    if (a === undefined || b === undefined) {
      field(name, a, b);
      continue;
    }
    field(`${name} data`, a.data, b.data);
    field(`${name} acl`, a.acl, b.acl);
    field(`${name} owner`, a.owner, b.owner);
    for (const key of Object.keys(a.stat) as (keyof Stat)[]) field(`${name} stat.${key}`, a.stat[key], b.stat[key]);
  }
  return out;
}

function agreementProperty(config: Config, makeServer: (config: Config) => ServerDriver): fc.IPropertyWithHooks<[Command[]]> {
  return fc.property(commandsArb, (commands) => {
    const mismatch = firstDisagreement(commands, config, makeServer);
    if (mismatch !== null) throw new Error(mismatch);
  });
}

/** The canary's bug: a DataTree whose setData keeps the old version. */
class VersionForgettingDataTree extends DataTree {
  override setData(path: string, data: Uint8Array | null, version: number, zxid: Zxid, timeMs: number): Stat | null {
    const current = this.getNode(path)?.stat.version ?? version;
    return super.setData(path, data, current, zxid, timeMs);
  }
}

const RUNS = { numRuns: 300, seed: 42 } as const;
const DEFAULTS: Config = { extendedTypesEnabled: false };
const realServer = (config: Config): ServerDriver => new ServerDriver(config);

describe("server: data tree: model-based (standalone)", () => {
  it("server: data tree: agrees with the reference model on random workloads (300 runs, seed 42)", () => {
    fc.assert(agreementProperty(DEFAULTS, realServer), RUNS);
  });

  it("server: data tree: agrees with the reference model with TTL nodes enabled (100 runs, seed 42)", () => {
    fc.assert(agreementProperty({ extendedTypesEnabled: true }, realServer), { ...RUNS, numRuns: 100 });
  });

  it("server: data tree: canary — setData that forgets to bump version is caught", () => {
    const forgetful = (config: Config): ServerDriver => new ServerDriver(config, (c) => new VersionForgettingDataTree(c));
    // Differential: only runs on which the unmodified server agrees with the model count, so
    // the verdict depends on the injected bug alone, not on any discrepancy still open.
    const canary = fc.property(commandsArb, (commands) => {
      fc.pre(firstDisagreement(commands, DEFAULTS, realServer) === null);
      const mismatch = firstDisagreement(commands, DEFAULTS, forgetful);
      if (mismatch !== null) throw new Error(mismatch);
    });
    const result = fc.check(canary, RUNS);
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/version/);
  });

  it("server: data tree: the workload exercises the interesting outcomes", () => {
    const seen = new Set<string>();
    for (const commands of fc.sample(commandsArb, RUNS)) {
      const model = new ModelDriver(DEFAULTS);
      const ids = [0, 1, 2].map((slot) => FIRST_SESSION_ID + BigInt(slot));
      ids.forEach((id, slot) => {
        model.createSession(id, 0);
        const auth = SLOT_AUTH[slot];
        if (auth !== null && auth !== undefined) model.addAuth(id, auth);
      });
      for (const c of commands) {
        if (c.kind === "closeSession" || c.kind === "addAuth" || c.slot === UNKNOWN_SLOT) continue;
        const o = model.execute(c, ids[c.slot]!, 0);
        seen.add(`${c.kind}:${o.err}`);
        for (const r of o.results ?? []) seen.add(`multi:${r.err}`);
      }
    }
    const wanted = [
      "create:0", "create:-101", "create:-102", "create:-108", "create:-110", "create:-114", "create:-8", "create:-6",
      "delete:0", "delete:-101", "delete:-102", "delete:-103", "delete:-111", "delete:-8",
      "setData:0", "setData:-102", "setData:-103", "setData:-8",
      "setACL:0", "setACL:-102", "setACL:-103", "setACL:-114",
      "getData:0", "getData:-102", "getChildren:0", "getACL:0", "exists:0", "exists:-101",
      "multi:0", "multi:-2", "multi:-101", "multi:-110",
    ];
    expect(wanted.filter((w) => !seen.has(w))).toEqual([]);
  });
});
