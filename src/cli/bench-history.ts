/**
 * Deterministic linearizable ZooKeeper histories: the performance harness of the checker and
 * the generator behind its property tests.
 *
 * How a history is made: clients run one operation at a time, each with a random latency and
 * think time, so operations of different clients overlap. Every operation gets a
 * linearization point inside its interval; applying the operations in that order to a plain
 * mutable data tree (`OracleTree`, written separately from the checker's model so that the
 * two do not share mistakes) gives every result and error. Writes that reach the tree take
 * consecutive zxids; reads carry the last zxid applied. Then the history is blurred the way a
 * real one is: some operations become "unknown" (their effect, if any, lands at any later
 * time, or never), some ok results are dropped.
 *
 * Everything comes from one seed (seedrandom's Alea): same options, same history.
 */
import seedrandom from "seedrandom";
import type { Operation, OpResult, SubOp } from "../check/history/history.js";

export interface HistoryGenOptions {
  seed?: number | string;
  nOps: number;
  clients?: number;
  /** Number of keys /kv/k0 … under the /kv parent. */
  paths?: number;
  indeterminateFraction?: number;
  droppedResultFraction?: number;
  /** Share of ops on the /q queue (sequential creates, getChildren): one shared family. */
  queueFraction?: number;
  /** Share of creates that are ephemeral. */
  ephemeralFraction?: number;
  /** Share of multi ops (check + setData on one key, or setData on two paired keys). */
  multiFraction?: number;
}

const ROOT = "/kv";
const QUEUE = "/q";
/** Placeholder path of a consumer's delete: the queue's head when the delete takes effect. */
const QUEUE_HEAD = "/q/<head>";

/**
 * The 10,000-op benchmark history: 10 clients, 50 keys, reads and writes mixed, 5% of ops
 * indeterminate, 2% of results dropped, a queue (sequential creates, listings, consumers
 * deleting the head), some multis. Seeded: the
 * same arguments give the same history.
 */
export function benchmarkLinearizability(nOps = 10_000, indeterminateFraction = 0.05): Operation[] {
  return generateLinearizableHistory({ seed: "zksim-linearizability-bench", nOps, clients: 10, paths: 50, indeterminateFraction });
}

interface Planned {
  op: Operation;
  linUs: number;
  /** An unknown op that never took effect. */
  lost: boolean;
}

export function generateLinearizableHistory(options: HistoryGenOptions): Operation[] {
  const rng = seedrandom.alea(`history:${options.seed ?? 0}`);
  const o = {
    clients: options.clients ?? 5,
    paths: options.paths ?? 5,
    unknown: options.indeterminateFraction ?? 0.05,
    dropped: options.droppedResultFraction ?? 0.02,
    queue: options.queueFraction ?? 0.08,
    ephemeral: options.ephemeralFraction ?? 0,
    multi: options.multiFraction ?? 0.04,
  };
  const rand = (n: number) => Math.floor(rng() * n);
  const planned: Planned[] = [setupOp(0, ROOT, 0), setupOp(1, QUEUE, 20)];
  const clientFree = Array.from({ length: o.clients }, (_, c) => 100 + c * 7);
  while (planned.length < options.nOps) {
    const c = argmin(clientFree);
    const invokeUs = clientFree[c]!;
    const latencyUs = 50 + rand(1500);
    const completeUs = invokeUs + latencyUs;
    const unknown = rng() < o.unknown;
    const op = pickOp(planned.length, c, invokeUs, rng, o);
    op.completeUs = unknown ? undefined : completeUs;
    op.outcome = unknown ? "unknown" : "ok";
    // An unknown op may land long after the client gave up on it, or never.
    const linUs = unknown ? invokeUs + rng() * latencyUs * 4 : invokeUs + rng() * latencyUs;
    planned.push({ op, linUs, lost: unknown && rng() < 0.5 });
    clientFree[c] = completeUs + rand(300);
  }
  keepSubmissionOrder(planned);
  apply(planned, rng, o.dropped);
  return planned.map((p) => p.op);
}

/**
 * ZooKeeper runs a session's requests in the order they were sent (docs/zookeeper.md §6), even across
 * a lost connection: an unknown op that lands does so before the client's next op that lands.
 */
function keepSubmissionOrder(planned: Planned[]): void {
  const nextLinUs = new Map<string, number>();
  for (let k = planned.length - 1; k >= 0; k--) {
    const p = planned[k]!;
    if (p.lost) continue;
    const next = nextLinUs.get(p.op.client);
    if (p.op.outcome === "unknown" && next !== undefined && p.linUs >= next) p.linUs = (p.op.invokeUs + next) / 2;
    nextLinUs.set(p.op.client, p.linUs);
  }
}

function setupOp(id: number, path: string, atUs: number): Planned {
  const op: Operation = {
    id,
    client: "setup",
    session: "0x1",
    op: "create",
    path,
    args: { data: "", mode: "PERSISTENT" },
    invokeUs: atUs,
    completeUs: atUs + 10,
    outcome: "ok",
  };
  return { op, linUs: atUs + 5, lost: false };
}

/** What every op of a client's turn shares. */
interface Base {
  id: number;
  client: string;
  session: string;
  invokeUs: number;
}

/**
 * One op, from one object literal (the fields in the order they always had): spreading the base
 * into a literal with more fields after it gave every op a hidden class of its own in V8 (9,973
 * classes for 10,000 ops), which turned every field read of whatever consumed the history into a
 * megamorphic lookup; histories built from a trace (`HistoryBuilder`) come from one literal too.
 */
function opOf(b: Base, op: Operation["op"], path: string, args: Operation["args"]): Operation {
  return { id: b.id, client: b.client, session: b.session, invokeUs: b.invokeUs, completeUs: undefined, outcome: "ok", op, path, args };
}

function pickOp(id: number, c: number, invokeUs: number, rng: () => number, o: { paths: number; queue: number; ephemeral: number; multi: number }): Operation {
  const key = () => `${ROOT}/k${Math.floor(rng() * o.paths)}`;
  const base: Base = { id, client: `c${c}`, session: `0x${(0x100 + c).toString(16)}`, invokeUs };
  const data = `c${c}-${id}`;
  const r = rng();
  if (r < o.queue) {
    // Producers append, consumers list and take the head (chosen when it runs: see apply).
    const q = rng();
    if (q < 0.4) return opOf(base, "create", `${QUEUE}/item-`, { data, mode: "PERSISTENT_SEQUENTIAL" });
    if (q < 0.7) return opOf(base, "getChildren", QUEUE, {});
    return opOf(base, "delete", QUEUE_HEAD, { version: -1 });
  }
  if (r < o.queue + o.multi) {
    // Two-key multis touch fixed pairs (k0,k1), (k2,k3)…: related keys, as an application
    // would have; random pairs would glue every key into one partition.
    const k = Math.floor(rng() * o.paths);
    const a = `${ROOT}/k${k}`;
    const b = rng() < 0.5 || (k ^ 1) >= o.paths ? a : `${ROOT}/k${k ^ 1}`;
    const ops: SubOp[] = a === b ? [{ op: "check", path: a, args: { version: -1 } }, { op: "setData", path: a, args: { data, version: -1 } }] : [{ op: "setData", path: a, args: { data, version: -1 } }, { op: "setData", path: b, args: { data: data + "'", version: -1 } }];
    return opOf(base, "multi", a, { ops });
  }
  const path = key();
  const k = rng();
  if (k < 0.35) return opOf(base, "getData", path, {});
  if (k < 0.45) return opOf(base, "exists", path, {});
  if (k < 0.72) return opOf(base, "setData", path, { data, version: -1 });
  if (k < 0.86) {
    const mode = rng() < o.ephemeral ? "EPHEMERAL" : "PERSISTENT";
    return opOf(base, "create", path, { data, mode });
  }
  if (k < 0.97) return opOf(base, "delete", path, { version: -1 });
  return opOf(base, "check", path, { version: -1 });
}

/** Applies ops in linearization order: results, errors, zxids, versions for conditional ops. */
function apply(planned: Planned[], rng: () => number, droppedFraction: number): void {
  const tree = new OracleTree();
  let zxid = 0x100000000n;
  const byLin = [...planned].sort((a, b) => a.linUs - b.linUs || a.op.id - b.op.id);
  for (const { op, lost } of byLin) {
    if (op.path === QUEUE_HEAD) op.path = `${QUEUE}/${tree.firstChild(QUEUE) ?? "item-0000000000"}`;
    if (lost) continue;
    chooseVersions(op, tree, rng);
    const isRead = op.op === "getData" || op.op === "exists" || op.op === "getChildren" || op.op === "check";
    const out = tree.run(op);
    if (!isRead) zxid++;
    if (op.outcome === "unknown") continue;
    op.zxid = zxid;
    if (out.err !== undefined && !(op.op === "exists" && out.err === "NONODE")) {
      op.outcome = "fail";
      op.err = out.err;
      if (op.op === "multi") op.result = out.result;
      continue;
    }
    if (rng() >= droppedFraction) op.result = out.result;
  }
}

/** Conditional ops use the version the node has now (success) or a stale one (BADVERSION). */
function chooseVersions(op: Operation, tree: OracleTree, rng: () => number): void {
  const pick = (path: string) => {
    const v = tree.version(path);
    if (v === undefined || rng() < 0.6) return -1;
    return rng() < 0.6 ? v : v - 1;
  };
  if (op.op === "setData" || op.op === "delete" || op.op === "check") op.args.version = pick(op.path);
  for (const s of op.args.ops ?? []) s.args.version = pick(s.path);
}

function argmin(xs: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i]! < xs[best]!) best = i;
  return best;
}

// ---- the oracle: a plain mutable data tree --------------------------------------------------

interface OracleNode {
  data: string;
  version: number;
  creations: number;
  owner: string | undefined;
  children: Set<string>;
}

interface RunOut {
  err?: string;
  result: OpResult;
}

export class OracleTree {
  private nodes = new Map<string, OracleNode>();

  constructor() {
    for (const p of ["/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"]) {
      this.nodes.set(p, { data: "", version: 0, creations: 0, owner: undefined, children: new Set() });
    }
    this.nodes.get("/")!.children.add("zookeeper");
    this.nodes.get("/zookeeper")!.children.add("quota").add("config");
  }

  firstChild(path: string): string | undefined {
    const kids = [...(this.nodes.get(path)?.children ?? [])].sort();
    return kids[0];
  }

  version(path: string): number | undefined {
    return this.nodes.get(path)?.version;
  }

  run(op: Operation): RunOut {
    const n = this.nodes.get(op.path);
    switch (op.op) {
      case "getData":
        return n ? { result: { data: n.data, stat: this.stat(n) } } : { err: "NONODE", result: {} };
      case "exists":
        return n ? { result: { stat: this.stat(n) } } : { err: "NONODE", result: { stat: null } };
      case "getChildren":
        return n ? { result: { children: [...n.children].sort() } } : { err: "NONODE", result: {} };
      case "multi":
        return this.multi(op);
      default: {
        const err = this.write({ op: op.op as SubOp["op"], path: op.path, args: op.args }, op.session);
        if (typeof err === "object") return { result: { path: err.created } };
        return err === "OK" ? { result: op.op === "setData" ? { stat: this.stat(this.nodes.get(op.path)!) } : {} } : { err, result: {} };
      }
    }
  }

  private multi(op: Operation): RunOut {
    const saved = new Map([...this.nodes].map(([p, n]) => [p, { ...n, children: new Set(n.children) }]));
    const codes: string[] = [];
    for (const s of op.args.ops ?? []) {
      const r = this.write(s, op.session);
      codes.push(typeof r === "object" ? "OK" : r);
      if (codes[codes.length - 1] !== "OK") {
        this.nodes = saved;
        // Every sub-op has a result: the ones after the failure were never tried (§4).
        const results = [...codes, ...(op.args.ops ?? []).slice(codes.length).map(() => "RUNTIMEINCONSISTENCY")].map((err) => ({ err }));
        return { err: codes[codes.length - 1]!, result: { results } };
      }
    }
    return { result: { results: codes.map((err) => ({ err })) } };
  }

  /** "OK", an error code, or the created name. */
  private write(s: SubOp, session: string): string | { created: string } {
    const n = this.nodes.get(s.path);
    const version = s.args.version ?? -1;
    switch (s.op) {
      case "create": {
        const parentPath = s.path.slice(0, s.path.lastIndexOf("/")) || "/";
        const parent = this.nodes.get(parentPath);
        if (!parent) return "NONODE";
        const mode = s.args.mode ?? "PERSISTENT";
        const name = mode.includes("SEQUENTIAL") ? s.path + String(parent.creations).padStart(10, "0") : s.path;
        if (this.nodes.has(name)) return "NODEEXISTS";
        if (parent.owner !== undefined) return "NOCHILDRENFOREPHEMERALS";
        parent.creations++;
        parent.children.add(name.slice(parentPath.length === 1 ? 1 : parentPath.length + 1));
        this.nodes.set(name, { data: s.args.data ?? "", version: 0, creations: 0, owner: mode.startsWith("EPHEMERAL") ? session : undefined, children: new Set() });
        return { created: name };
      }
      case "delete": {
        if (!n) return "NONODE";
        if (version !== -1 && version !== n.version) return "BADVERSION";
        if (n.children.size > 0) return "NOTEMPTY";
        const parentPath = s.path.slice(0, s.path.lastIndexOf("/")) || "/";
        this.nodes.get(parentPath)!.children.delete(s.path.slice(s.path.lastIndexOf("/") + 1));
        this.nodes.delete(s.path);
        return "OK";
      }
      case "setData":
        if (!n) return "NONODE";
        if (version !== -1 && version !== n.version) return "BADVERSION";
        n.data = s.args.data ?? "";
        n.version++;
        return "OK";
      case "check":
        if (!n) return "NONODE";
        return version !== -1 && version !== n.version ? "BADVERSION" : "OK";
    }
    throw new Error(`OracleTree: ${String(s.op)} is not a write`);
  }

  private stat(n: OracleNode) {
    return { version: n.version, numChildren: n.children.size, cversion: 2 * n.creations - n.children.size, dataLength: new TextEncoder().encode(n.data).length };
  }
}
