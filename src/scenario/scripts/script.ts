/**
 * Scenario scripts: user-level async code (as a ZooKeeper user would write it) that drives
 * clients through a story and states what must be true at each step. A failed expectation is a
 * violation of the "scenario.expect" checker; a script that throws or never finishes fails the
 * run too. Scripts run at the world level: they sleep in true virtual time and may inject
 * faults between steps.
 */
import type { Simulator } from "../../sim/simulator.js";
import type { FaultAction } from "../../sim/faults.js";
import { applyFault } from "../../sim/faults.js";
import { canonicalJson } from "../../sim/trace.js";
import type { ZooKeeper, ClientOptions, WatchedEvent } from "../../zk/client/index.js";
import { createClient, KeeperException } from "../../zk/client/index.js";
import { CLIENT_PORT } from "../../zk/proto/wire.js";
import type { ClientCanary } from "../../zk/client/index.js";
import { CLIENT_CANARIES, type AnyCanary } from "../canaries.js";

/** A knob of the recipe workload shape (see `RecipeWorkload` in recipe-support.ts). */
export type WorkloadKnob = "pacePercent" | "startOffsetsMs" | "priorities";

export interface ScriptContext {
  readonly sim: Simulator;
  readonly servers: readonly string[];
  readonly clients: readonly string[];
  /** The zk workload's parameters (a script with `paramKeys` reads its own from here). */
  readonly params: Readonly<Record<string, unknown>>;
  /** The deliberately broken build of this run (`--canary`), if any: recipes read theirs from here. */
  readonly canary: AnyCanary | undefined;
  /** What every client a script makes is created with beyond its own options: a client canary. */
  readonly clientDefaults: { canary?: ClientCanary };
  /** Creates a client on a client node and waits until it is connected. */
  connect(clientNode: string, options?: Partial<ClientOptions> & { servers?: readonly string[] }): Promise<ZooKeeper>;
  sleepMs(ms: number): Promise<void>;
  /** Polls `predicate` every 10 virtual ms; fails the expectation after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs: number, what: string): Promise<boolean>;
  /** Reports a "scenario.expect" violation unless `condition` holds; returns whether it held. */
  expect(condition: boolean, message: string): boolean;
  /** Reports a "scenario.expect" violation unless the two are equal (canonical JSON); returns whether they were. */
  expectEqual<T>(actual: T, expected: T, what: string): boolean;
  /** Expects `op` to fail with the ZooKeeper error `codeName` (e.g. "NONODE"). */
  expectError(op: Promise<unknown>, codeName: string, what: string): Promise<void>;
  fault(action: FaultAction): void;
  /** A narrated line for the run summary: what the script did or saw, never what it only hoped. */
  note(line: string): void;
  /** The story's closing line, narrated only when every expectation of the run so far held. */
  conclude(line: string): void;
}

export type Script = (s: ScriptContext) => Promise<void>;

export interface ScriptDef {
  name: string;
  description: string;
  /** Workload parameters of this script's own, beyond the zk workload's (validated by `checkParams`). */
  paramKeys?: readonly string[];
  /** Validates this script's parameters when the scenario is parsed (throws UserInputError). */
  checkParams?(params: Readonly<Record<string, unknown>>): void;
  /**
   * The recipe checkers that judge this script's runs by default: those reading the recipe
   * annotations it writes (the others would read nothing). Recipe scripts name theirs.
   */
  recipeCheckers?: readonly string[];
  /** The numbers of client nodes the story works with, [min, max] (default: any). */
  clientRange?: readonly [number, number];
  /** The `recipeWorkload` knobs the script reads (property tests generate those). */
  workloadKnobs?: readonly WorkloadKnob[];
  /**
   * False for a story that cannot survive its client's crash (its handles are opened outside
   * `withSessions`): generated recipe plans then draw no client crash for it. Default true.
   */
  clientCrashes?: boolean;
  /**
   * Why `--generate` is refused for this script: a story whose expectations hold only under its
   * own precisely timed faults (a generated pause of the same client breaks them, not the recipe).
   */
  noGenerate?: string;
  /**
   * The run length a generated scenario (`--generate`, property runs) of this story gets instead
   * of the short timing's: for a story whose own fault rounds, aimed at whoever holds a role,
   * outlast that run and so would be cut before its check phase (not a defect of the recipe).
   */
  generatedDurationMs?: number;
  run: Script;
}

/** Records watch events delivered to a watcher, for expectations. */
export class EventLog {
  readonly events: WatchedEvent[] = [];
  readonly watcher = (e: WatchedEvent): void => {
    this.events.push(e);
  };
  /** Events of node types (None-type session events filtered out), as "Type path". */
  nodeEvents(): string[] {
    return this.events.filter((e) => e.type !== -1).map((e) => `${eventName(e.type)} ${e.path}`);
  }
  clear(): void {
    this.events.length = 0;
  }
}

const EVENT_NAMES: Record<number, string> = {
  [-1]: "None",
  1: "NodeCreated",
  2: "NodeDeleted",
  3: "NodeDataChanged",
  4: "NodeChildrenChanged",
  5: "DataWatchRemoved",
  6: "ChildWatchRemoved",
  7: "PersistentWatchRemoved",
};

export function eventName(type: number): string {
  return EVENT_NAMES[type] ?? `EventType(${type})`;
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
export const text = (b: Uint8Array | null | undefined): string => (b ? new TextDecoder().decode(b) : "");

export interface ScriptHost {
  report(checker: string, message: string): void;
  note(line: string): void;
}

/** The client options a run's canary sets: a client canary, or nothing. */
export function clientDefaultsOf(canary: AnyCanary | undefined): { canary?: ClientCanary } {
  return canary !== undefined && (CLIENT_CANARIES as readonly string[]).includes(canary) ? { canary: canary as ClientCanary } : {};
}

export function makeScriptContext(sim: Simulator, servers: readonly string[], clients: readonly string[], host: ScriptHost, params: Readonly<Record<string, unknown>> = {}, canary?: AnyCanary): ScriptContext {
  let failedExpectations = 0;
  const fail = (message: string): void => {
    failedExpectations++;
    host.report("scenario.expect", message);
  };
  const ctx: ScriptContext = {
    sim,
    servers,
    clients,
    params,
    canary,
    clientDefaults: clientDefaultsOf(canary),
    async connect(clientNode, options = {}) {
      const node = sim.node(clientNode);
      if (node.context === undefined) throw new Error(`client node ${clientNode} is down`);
      const { servers: only, ...rest } = options;
      const connectString = (only ?? servers).map((s) => `${s}:${CLIENT_PORT}`).join(",");
      const zk = createClient(node.context, { connectString, sessionTimeoutMs: 10_000, ...ctx.clientDefaults, ...rest });
      const ok = await ctx.waitFor(() => zk.getState() === "CONNECTED", 30_000, `${clientNode} connects`);
      if (!ok) throw new Error(`${clientNode} could not connect`);
      return zk;
    },
    sleepMs: (ms) => sim.sleepUs(ms * 1000),
    async waitFor(predicate, timeoutMs, what) {
      const deadline = sim.nowUs + timeoutMs * 1000;
      while (!predicate()) {
        if (sim.nowUs >= deadline) {
          fail(`timed out after ${timeoutMs} ms waiting for: ${what}`);
          return false;
        }
        await sim.sleepUs(10_000);
      }
      return true;
    },
    expect(condition, message) {
      if (!condition) fail(message);
      return condition;
    },
    expectEqual(actual, expected, what) {
      const a = canonicalJson(actual);
      const e = canonicalJson(expected);
      if (a !== e) fail(`${what}: expected ${e}, got ${a}`);
      return a === e;
    },
    async expectError(op, codeName, what) {
      try {
        await op;
        fail(`${what}: expected ${codeName}, but it succeeded`);
      } catch (err) {
        if (!(err instanceof KeeperException)) throw err;
        if (err.codeName !== codeName) fail(`${what}: expected ${codeName}, got ${err.codeName}`);
      }
    },
    fault: (action) => applyFault(sim, action),
    note: (line) => host.note(line),
    conclude: (line) => {
      if (failedExpectations === 0) host.note(line);
    },
  };
  return ctx;
}
