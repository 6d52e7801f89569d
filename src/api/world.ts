/**
 * The world a user's script runs in: the simulated ensemble's server and client node names,
 * virtual time, faults by name, waiting for a condition, and one handle per client node on which
 * the script connects the project's own ZooKeeper client (the promise API the recipes use),
 * sleeps on that node's clock and records its own trace events (`user.event`).
 *
 * Two clocks, on purpose: `World.sleepMs` is world time (a test driver's), `ClientNode.sleepMs`
 * is the node's own and freezes while the node is paused — code that models an application
 * process should sleep on its node, so a pause (a GC stall) stops it as it would stop the JVM.
 *
 * Invariants: everything here goes through the script context of the zk workload
 * (scenario/scripts/script.ts), so a user's script is scheduled, traced and checked exactly like
 * a built-in one; every argument is validated before it touches the simulator, with a
 * UserInputError naming the bad field.
 */
import { UserInputError } from "../sim/errors.js";
import { parseFaultSchedule, undoOf, applyFault, type FaultAction } from "../sim/faults.js";
import type { NodeContext } from "../sim/node-context.js";
import type { ZooKeeper } from "./zookeeper.js";
import type { ScriptContext } from "../scenario/scripts/script.js";
import { connectClient } from "../scenario/scripts/recipe-support.js";
import type { JsonValue } from "./trace-events.js";

/** A server node's name: "s1", "s2", … (voters first, then observers). */
export type ServerId = `s${number}`;

/** A client node's name: "c1", "c2", …. */
export type ClientId = `c${number}`;

/** A node of the world: a server or a client. */
export type NodeId = ServerId | ClientId;

/** A fault action with its node names typed (`node`, `groups`, `from`, `to`): "sx" or "client1" is a compile error. */
export type WithNodeIds<F> = F extends unknown ? { [K in keyof F]: K extends "node" ? NodeId : K extends "groups" ? readonly (readonly NodeId[])[] : K extends "from" | "to" ? readonly NodeId[] : F[K] } : never;

/** A fault by name, in the scenario vocabulary (docs/faults.md), with an optional undo after `forMs`. */
export type FaultSpec = WithNodeIds<FaultAction> & { forMs?: number };

/** Options of `World.waitFor`. */
export interface WaitOptions {
  /** Give up after this many virtual ms (returns false). */
  timeoutMs: number;
  /** Check the condition every this many virtual ms (default 10). */
  pollMs?: number;
}

/** Options of `ClientNode.connect`. */
export interface ConnectOptions {
  /** The session timeout the client asks for (default 10 000 ms; servers clamp it to [2, 20] ticks). */
  sessionTimeoutMs?: number;
  /** Give up connecting after this many virtual ms (default 60 000): the script then throws. */
  connectBudgetMs?: number;
}

/** One client node of the world: where a user's application code runs. */
export interface ClientNode {
  /** The node's name ("c1", "c2", …). */
  readonly id: ClientId;
  /** A new ZooKeeper handle on this node, resolved once its session is connected. */
  connect(options?: ConnectOptions): Promise<ZooKeeper>;
  /** Sleeps on the node's own clock: frozen while the node is paused, never resolves if it crashes. */
  sleepMs(ms: number): Promise<void>;
  /** The node's local clock in ms (it runs fast or slow under a `clock` fault). */
  nowMs(): number;
  /** Records a user event (`user.event`) in the trace, for user-defined checkers: `record("acquired", { token: 7 })`. */
  record(name: string, data?: { readonly [key: string]: JsonValue }): void;
}

/** What a user's script receives: the world of one run. */
export interface World {
  /** Server node names, voters first then observers ("s1", …). */
  readonly servers: readonly ServerId[];
  /** Client node names ("c1", …). */
  readonly clients: readonly ClientId[];
  /** Virtual ms since the run began. */
  nowMs(): number;
  /** Sleeps in world (virtual) time. */
  sleepMs(ms: number): Promise<void>;
  /** The handle on client node `id` (one of `clients`). */
  client(id: ClientId): ClientNode;
  /** Injects a fault now, e.g. `{ kind: "partition", groups: [["s1"], ["s2", "s3"]], forMs: 5000 }`. */
  fault(fault: FaultSpec): void;
  /** Polls `condition` until it holds (true) or `timeoutMs` pass (false). */
  waitFor(condition: () => boolean | Promise<boolean>, options: WaitOptions): Promise<boolean>;
  /** Reports a violation ("user.expect") unless `condition` holds; returns it. */
  expect(condition: boolean, message: string): boolean;
  /** A narrated line for the run's summary. */
  note(line: string): void;
  /**
   * Marks a state the script reached (`world.label("took-lock")`): a `user.label` trace event,
   * counted by `userScriptProperty`'s coverage report (in how many generated cases it was reached).
   */
  label(name: string): void;
}

/** The world over a script context of the zk workload. */
export function makeWorld(s: ScriptContext, report: (checker: string, message: string) => void): World {
  const servers = namesOf(s.servers, isServerId);
  const clients = namesOf(s.clients, isClientId);
  const nodes = [...servers, ...clients];
  const clientNodes = new Map(clients.map((id) => [id, makeClientNode(s, id)]));
  return {
    servers,
    clients,
    nowMs: () => s.sim.nowUs / 1000,
    sleepMs: (ms) => s.sleepMs(nonNegative(ms, "world.sleepMs: ms")),
    client(id) {
      const node = clientNodes.get(id);
      if (node === undefined) throw new UserInputError(`world.client: no client node "${id}" (the world has ${s.clients.join(", ")})`);
      return node;
    },
    fault(spec) {
      const { forMs, ...action } = checkFault(spec, nodes);
      applyFault(s.sim, action);
      if (forMs === undefined) return;
      for (const undo of undoOf(action)) s.sim.schedule(s.sim.nowUs + forMs * 1000, () => applyFault(s.sim, undo));
    },
    async waitFor(condition, options) {
      if (typeof condition !== "function") throw new UserInputError("world.waitFor: condition must be a function returning a boolean");
      const timeoutMs = nonNegative(options?.timeoutMs, "world.waitFor: timeoutMs");
      const pollMs = options.pollMs === undefined ? 10 : nonNegative(options.pollMs, "world.waitFor: pollMs");
      if (pollMs === 0) throw new UserInputError("world.waitFor: pollMs must be greater than 0");
      const deadlineUs = s.sim.nowUs + timeoutMs * 1000;
      for (;;) {
        if (await condition()) return true;
        if (s.sim.nowUs >= deadlineUs) return false;
        await s.sleepMs(pollMs);
      }
    },
    expect(condition, message) {
      if (!condition) report("user.expect", message);
      return condition;
    },
    note: (line) => s.note(line),
    label(name) {
      if (typeof name !== "string" || name === "") throw new UserInputError("world.label: name must be a non-empty string");
      s.sim.trace.record(s.sim.nowUs, "user.label", "", undefined, undefined, undefined, { name });
    },
  };
}

const isServerId = (id: string): id is ServerId => /^s[1-9][0-9]*$/.test(id);
const isClientId = (id: string): id is ClientId => /^c[1-9][0-9]*$/.test(id);

/** The world's node names as their types say (an invariant of the world builder: s1…, c1…). */
function namesOf<T extends string>(ids: readonly string[], is: (id: string) => id is T): readonly T[] {
  if (!ids.every(is)) throw new Error(`world: node names not of the form s1…/c1…: ${ids.join(", ")}`);
  return ids;
}

function makeClientNode(s: ScriptContext, id: ClientId): ClientNode {
  const host = (): NodeContext => {
    const ctx = s.sim.node(id).context;
    if (ctx === undefined) throw new Error(`client node ${id} is down`);
    return ctx;
  };
  return {
    id,
    connect(options = {}) {
      const sessionTimeoutMs = options.sessionTimeoutMs === undefined ? 10_000 : positiveInt(options.sessionTimeoutMs, `client(${id}).connect: sessionTimeoutMs`);
      const budgetMs = options.connectBudgetMs === undefined ? 60_000 : positiveInt(options.connectBudgetMs, `client(${id}).connect: connectBudgetMs`);
      return connectClient(s, id, sessionTimeoutMs, budgetMs);
    },
    sleepMs: (ms) => host().sleepMs(nonNegative(ms, `client(${id}).sleepMs: ms`)),
    nowMs: () => host().nowMs(),
    record(name, data = {}) {
      if (typeof name !== "string" || name === "") throw new UserInputError(`client(${id}).record: name must be a non-empty string`);
      if (typeof data !== "object" || data === null || Array.isArray(data)) throw new UserInputError(`client(${id}).record(${name}): data must be an object of JSON values`);
      // A copy: the checkers read the event after the script has gone on (in batches, and a kept
      // trace later still), and must see the data as it was when recorded.
      host().annotate("user.event", { name, client: id, data: copyOfData(data, `client(${id}).record(${name})`) });
    },
  };
}

/** A deep copy of a recorded event's data (JSON values: anything else is the caller's mistake). */
function copyOfData<T extends object>(data: T, where: string): T {
  try {
    return structuredClone(data);
  } catch {
    throw new UserInputError(`${where}: data must be an object of JSON values`);
  }
}

/** The fault as the scenario parser reads it (same vocabulary, same messages), without a time. */
function checkFault(spec: FaultSpec, nodes: readonly string[]): FaultAction & { forMs?: number } {
  if (typeof spec !== "object" || spec === null) throw new UserInputError(`world.fault: expected a fault like { kind: "crash", node: "s1" }`);
  if ("atMs" in spec || "when" in spec) throw new UserInputError("world.fault: a fault injected by a script happens now: leave out atMs and when");
  try {
    const [fault] = parseFaultSchedule([{ ...spec, atMs: 0 }], nodes, "world.fault");
    const { atMs: _atMs, ...action } = fault!;
    return action;
  } catch (err) {
    if (err instanceof UserInputError) throw new UserInputError(err.message.replace("world.fault[0]", "world.fault"));
    throw err;
  }
}

function nonNegative(v: unknown, at: string): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new UserInputError(`${at} must be a number ≥ 0, got ${JSON.stringify(v)}`);
  return v;
}

function positiveInt(v: unknown, at: string): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1) throw new UserInputError(`${at} must be a whole number ≥ 1, got ${JSON.stringify(v)}`);
  return v;
}
