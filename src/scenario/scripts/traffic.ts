/**
 * Client traffic for fault scripts (Maelstrom's client + generator): each client node runs a
 * loop of random ZooKeeper operations on a small key space under one root, reconnecting with a
 * new session when its handle closes (expiry), until told to stop; then every client syncs and
 * reads the key space, and all must agree (the heal-then-read phase).
 *
 * A client node may crash (a nemesis's client crash): its handle dies with the process, never
 * closed (its session is abandoned and expires on the servers; an op in flight stays unknown),
 * and once the node is started again the client opens a new session from its new process.
 *
 * Parameterised by `TrafficParams` (key space, gap between ops, session timeout, op mix), which
 * the swarm script draws from its seed and the "client-traffic" script reads from the scenario
 * document (`workload.traffic`). Any ZooKeeper error is an expected outcome (the checkers judge
 * the history); anything else fails the run.
 *
 * Determinism: the op is drawn as `rng.int(0, totalWeight - 1)` over the mix in `OP_KINDS`
 * order, so the default mix draws exactly what the original swarm client drew.
 */
import { UserInputError, checkKnownFields } from "../../sim/errors.js";
import type { Rng } from "../../sim/rng.js";
import { CreateMode, Ids } from "../../zk/proto/records.js";
import { createClient, KeeperException, Op, type ZooKeeper } from "../../zk/client/index.js";
import { CLIENT_PORT } from "../../zk/proto/wire.js";
import type { ScriptContext } from "./script.js";
import type { NodeContext } from "../../sim/node-context.js";
import type { Deferred } from "../../base/deferred.js";

export const TRAFFIC_ROOT = "/swarm";
const OPEN = Ids.OPEN_ACL_UNSAFE;

/** The operations a client draws from, by weight (`getChildren` lists the root). */
export const OP_KINDS = ["create", "setData", "getData", "delete", "multi", "ephemeral", "getChildren"] as const;
export type OpKind = (typeof OP_KINDS)[number];
export type OpMix = Record<OpKind, number>;

/** The swarm's mix: setData twice as likely as anything else. */
export const DEFAULT_OP_MIX: OpMix = { create: 1, setData: 2, getData: 1, delete: 1, multi: 1, ephemeral: 1, getChildren: 1 };

export interface TrafficParams {
  /** Keys `/swarm/k0` … `/swarm/k{keys-1}`. */
  keys: number;
  /** Each client waits 1…opGapMsMax ms between ops; 0: none (a closed loop, as a benchmark runs). */
  opGapMsMax: number;
  /** The session timeout each client asks for. */
  sessionTimeoutMs: number;
  mix: OpMix;
  /**
   * On a connection to another server than the one that served its last op, the client's
   * first op there is a read (`getData` of a drawn key) instead of a drawn op: a client moved to
   * a lagging server reads at once what that server holds, before any write that would wait
   * for a quorum. Off (absent) by default: the draws are then exactly the plain mix's.
   */
  readFirstOnMove?: boolean;
}

/** One client's workload: random ops on the key space until `stop()`, reconnecting as needed. */
export class TrafficClient {
  private zk: ZooKeeper | undefined;
  /** The process (node incarnation) `zk` lives in: a crash ends it. */
  private zkProcess: NodeContext | undefined;
  /**
   * Settles when the client node crashes (then a new one is armed): an op in flight never
   * completes. Each op waits on a fresh one (the last op's is dropped): every `Promise.race`
   * leaves a reaction on the promise it waits for, and one promise per process kept them all
   * until the node crashed (~3.5 MB a virtual minute in `soak-1h`).
   */
  private crashed: Deferred<void>;
  /** The server of the connection the last op went out on (readFirstOnMove only). */
  private servedBy: string | undefined;
  private stopped = false;
  private readonly totalWeight: number;
  /** `params.mix` in `OP_KINDS` order, for the draw. */
  private readonly weights: number[];
  readonly done: Promise<void>;

  constructor(
    private readonly s: ScriptContext,
    private readonly node: string,
    private readonly rng: Rng,
    private readonly params: TrafficParams,
  ) {
    this.weights = OP_KINDS.map((k) => params.mix[k]);
    this.totalWeight = this.weights.reduce((a, w) => a + w, 0);
    this.crashed = s.sim.deferred<void>();
    const unsubscribe = s.sim.trace.subscribe(
      (e) => {
        if (e.node !== node) return;
        this.crashed.resolve();
        this.crashed = s.sim.deferred<void>();
      },
      ["crash"],
    );
    this.done = this.loop().finally(unsubscribe);
  }

  stop(): void {
    this.stopped = true;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const startedUs = this.s.sim.nowUs;
      // A paused client node is frozen: its user code issues nothing until it resumes.
      if (this.s.sim.node(this.node).status === "up") await this.step();
      if (this.params.opGapMsMax > 0) await this.s.sleepMs(this.rng.int(1, this.params.opGapMsMax));
      // Back to back (gap 0): the next op at once, unless no virtual time passed (no op was
      // sent): then 1 ms, so that a client with nothing to do never spins at one instant.
      else if (this.s.sim.nowUs === startedUs) await this.s.sleepMs(1);
    }
    if (this.zk !== undefined && this.zkProcess?.alive === true) await this.untilCrash(tolerate(this.zk.close()));
  }

  /**
   * Opens a new session if the last one closed (expired) or died with a crashed process, then
   * one random op if connected; a crash meanwhile ends the wait for the op (it stays unknown).
   */
  private async step(): Promise<void> {
    const ctx = this.s.sim.node(this.node).context;
    if (ctx === undefined) throw new Error(`client node ${this.node} is down`);
    if (this.zk === undefined || this.zk.getState() === "CLOSED" || this.zkProcess?.alive !== true) {
      this.zkProcess = ctx;
      this.zk = createClient(ctx, { connectString: this.s.servers.map((id) => `${id}:${CLIENT_PORT}`).join(","), sessionTimeoutMs: this.params.sessionTimeoutMs, ...this.s.clientDefaults });
    }
    if (this.zk.getState() !== "CONNECTED" || this.totalWeight === 0) return;
    if (this.params.readFirstOnMove === true) {
      const server = this.zk.cnxn.currentAddress?.host;
      const moved = this.servedBy !== undefined && server !== this.servedBy;
      this.servedBy = server;
      if (moved) return this.untilCrash(tolerate(this.zk.getData(`${TRAFFIC_ROOT}/k${this.rng.int(0, this.params.keys - 1)}`)));
    }
    await this.untilCrash(tolerate(this.randomOp(this.zk)));
  }

  /** The op, or the node's crash, whichever comes first. */
  private untilCrash(op: Promise<void>): Promise<void> {
    const crashed = this.s.sim.deferred<void>();
    this.crashed = crashed;
    // What `Promise.race([op, crashed.promise])` does (each promise's `then` with the result's
    // settling functions, in that order: the same reactions, so the same continuation order),
    // without the race's walk of an array through the iterator protocol, once per op.
    return new Promise<void>((resolve, reject) => {
      void op.then(resolve, reject);
      void crashed.promise.then(resolve, reject);
    });
  }

  private drawOp(): OpKind {
    let x = this.rng.int(0, this.totalWeight - 1);
    for (let i = 0; i < OP_KINDS.length; i++) if ((x -= this.weights[i]!) < 0) return OP_KINDS[i]!;
    throw new Error("unreachable: the draw is below the total weight");
  }

  private key(): string {
    return `${TRAFFIC_ROOT}/k${this.rng.int(0, this.params.keys - 1)}`;
  }

  private value(): string {
    return `${this.node}:${this.rng.int(0, 1_000_000)}`;
  }

  private randomOp(zk: ZooKeeper): Promise<unknown> {
    switch (this.drawOp()) {
      case "create":
        return zk.create(this.key(), this.value(), OPEN, CreateMode.PERSISTENT);
      case "setData":
        return zk.setData(this.key(), this.value(), -1);
      case "getData":
        return zk.getData(this.key());
      case "delete":
        return zk.delete(this.key(), -1);
      case "multi":
        return zk.multi([Op.create(this.key(), this.value(), OPEN, CreateMode.PERSISTENT), Op.setData(this.key(), this.value(), -1)]);
      case "ephemeral":
        return zk.create(`${TRAFFIC_ROOT}/e-${this.node}-${this.rng.int(0, 2)}`, this.value(), OPEN, CreateMode.EPHEMERAL);
      case "getChildren":
        return zk.getChildren(TRAFFIC_ROOT);
    }
  }
}

/**
 * Any ZooKeeper error is an expected outcome here (the checkers judge it); anything else is a bug.
 * A `then`, not an async function with an await in a try: one reaction when `p` settles either
 * way, then the result settles, as the async function did (the same continuation order).
 */
export function tolerate(p: Promise<unknown>): Promise<void> {
  return p.then(ignoreValue, rethrowUnlessKeeperException);
}

const ignoreValue = (): void => {};
const rethrowUnlessKeeperException = (err: unknown): void => {
  if (!(err instanceof KeeperException)) throw err;
};

/**
 * After convergence: every client node syncs and reads the persistent keys; all must agree.
 * A write whose client saw CONNECTIONLOSS may still take effect after the heal — its session can
 * outlive the handle that gave up on it, and its request may sit in TCP retransmission until the
 * link is back (the "unknown" third state) — so the views are compared again after a pause, up to
 * a few rounds, and must agree once nothing is in flight any more. Whether each intermediate
 * read was allowed is the linearizability checker's business.
 */
export async function finalReads(s: ScriptContext): Promise<void> {
  let views: string[] = [];
  for (let round = 0; round < 4; round++) {
    views = [];
    for (const node of s.clients) views.push(await readAll(s, node));
    if (views.every((v) => v === views[0])) return;
    await s.sleepMs(5000);
  }
  s.expect(false, `after sync, every client reads the same keys: ${views.join(" | ")}`);
}

async function readAll(s: ScriptContext, node: string): Promise<string> {
  const zk = await s.connect(node);
  await zk.sync(TRAFFIC_ROOT);
  const keys = (await zk.getChildren(TRAFFIC_ROOT)).filter((k) => k.startsWith("k")).sort();
  const values: string[] = [];
  for (const k of keys) values.push(`${k}=${new TextDecoder().decode((await zk.getData(`${TRAFFIC_ROOT}/${k}`)).data ?? new Uint8Array())}`);
  await zk.close();
  return values.join(",");
}

/** Bounds of the `traffic` document (`{"keys": 4, "opGapMsMax": 300, "sessionTimeoutMs": 6000, "mix": {...}}`). */
export const TRAFFIC_BOUNDS = {
  keys: [1, 64],
  opGapMsMax: [0, 10_000],
  sessionTimeoutMs: [1000, 120_000],
  weight: [0, 100],
  /** The virtual time (ms since the start) at which the clients stop writing and convergence begins. */
  untilMs: [0, 3_600_000],
} as const;

export interface TrafficDocument extends TrafficParams {
  /** Traffic runs until this virtual time; then the heal-then-read phase. */
  untilMs: number;
}

/** Parses the `traffic` parameter; every mistake names its field. Missing fields take defaults. */
export function parseTraffic(raw: unknown, at = "workload.traffic"): TrafficDocument {
  if (raw === undefined) raw = {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserInputError(`${at}: expected an object like {"keys": 4, "opGapMsMax": 300, "sessionTimeoutMs": 6000, "untilMs": 20000}`);
  const doc = raw as Record<string, unknown>;
  const allowed = ["keys", "opGapMsMax", "sessionTimeoutMs", "mix", "untilMs"];
  checkKnownFields(doc, allowed, at);
  const int = (v: unknown, field: string, dflt: number, [min, max]: readonly [number, number]) => {
    if (v === undefined) return dflt;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) throw new UserInputError(`${at}.${field}: expected an integer in [${min}, ${max}], got ${JSON.stringify(v)}`);
    return v;
  };
  const mixRaw = doc.mix ?? {};
  if (typeof mixRaw !== "object" || mixRaw === null || Array.isArray(mixRaw)) throw new UserInputError(`${at}.mix: expected weights by op, e.g. {"setData": 2, "getData": 1}`);
  for (const k of Object.keys(mixRaw)) if (!(OP_KINDS as readonly string[]).includes(k)) throw new UserInputError(`${at}.mix: unknown op "${k}" (known: ${OP_KINDS.join(", ")})`);
  const m = mixRaw as Record<string, unknown>;
  const mix = Object.fromEntries(OP_KINDS.map((k) => [k, doc.mix === undefined ? DEFAULT_OP_MIX[k] : int(m[k], `mix.${k}`, 0, TRAFFIC_BOUNDS.weight)])) as OpMix;
  return {
    keys: int(doc.keys, "keys", 4, TRAFFIC_BOUNDS.keys),
    opGapMsMax: int(doc.opGapMsMax, "opGapMsMax", 300, TRAFFIC_BOUNDS.opGapMsMax),
    sessionTimeoutMs: int(doc.sessionTimeoutMs, "sessionTimeoutMs", 6000, TRAFFIC_BOUNDS.sessionTimeoutMs),
    mix,
    untilMs: int(doc.untilMs, "untilMs", 20_000, TRAFFIC_BOUNDS.untilMs),
  };
}
