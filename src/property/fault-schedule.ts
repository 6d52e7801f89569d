/**
 * `faultScheduleArbitrary`: generated fault schedules for property tests — a list of
 * disruptions (disruptions.ts), each starting and undone inside a fault window, drawn from every
 * kind the simulator supports: partitions (groups, and cuts symmetric or one-way), a server
 * isolated from the other servers but not from its clients, crash +
 * restart, pauses (short, or longer than the session timeout) + resume, clog/unclog, loss and
 * duplication rates, clock skew, slow fsync and a full disk. Once the window closes everything
 * is healed, so a run is fault phase → heal → convergence and the liveness checker applies.
 * The kinds are sim/faults.ts's and each undo is its `undoOf`: the same vocabulary as the
 * scenario nemeses (src/scenario/nemesis/) and the recipe runner's plans.
 *
 * Shrinking goes toward fewer disruptions (the list), earlier and shorter ones (offsets and
 * durations toward their minimum), milder rates, and fewer nodes involved.
 */
import fc from "fast-check";
import type { Fault } from "../sim/faults.js";
import { DISRUPTION_KINDS, faultsOf, type Disruption, type DisruptionKind } from "./disruptions.js";

export interface ClusterNodes {
  /** Server node names (crash, disk faults and fsync target only these). */
  servers: readonly string[];
  /** Client node names. */
  clients: readonly string[];
}

/** Disruptions start at or after `startMs` and are undone by `endMs` (virtual ms since the start). */
export interface FaultWindow {
  startMs: number;
  endMs: number;
}

export interface FaultScheduleOptions {
  /** At most this many disruptions (default 4). */
  maxDisruptions?: number;
  /** The kinds to draw from (default: every kind). */
  kinds?: readonly DisruptionKind[];
  /** Pauses are either short or longer than this (default 6000: the workload's default session timeout). */
  sessionTimeoutMs?: number;
  /** The shortest disruption (default 200 ms). */
  minForMs?: number;
  /**
   * How often each kind is drawn, relative to the others (whole numbers ≥ 1; a kind left out
   * weighs 1): `{ isolate: 4 }` draws an isolated server four times as often as a crash.
   */
  weights?: Partial<Record<DisruptionKind, number>>;
}

const DEFAULT_MAX_DISRUPTIONS = 4;

/** Generated disruptions inside the window (each undone by `window.endMs`). */
export function disruptionsArbitrary(nodes: ClusterNodes, window: FaultWindow, options: FaultScheduleOptions = {}): fc.Arbitrary<Disruption[]> {
  checkInputs(nodes, window, options);
  // A lone server has no peers to be isolated from: the default leaves that kind out.
  const kinds = options.kinds ?? DISRUPTION_KINDS.filter((k) => k !== "isolate" || nodes.servers.length > 1);
  const one = fc.oneof(...kinds.map((k) => ({ arbitrary: kindArbitrary(k, nodes, window, options), weight: options.weights?.[k] ?? 1 })));
  return fc.array(one, { maxLength: options.maxDisruptions ?? DEFAULT_MAX_DISRUPTIONS });
}

/** Generated fault schedules: `disruptionsArbitrary(…)` as the `Fault[]` a scenario holds. */
export function faultScheduleArbitrary(nodes: ClusterNodes, window: FaultWindow, options: FaultScheduleOptions = {}): fc.Arbitrary<Fault[]> {
  return disruptionsArbitrary(nodes, window, options).map(faultsOf);
}

function checkInputs(nodes: ClusterNodes, window: FaultWindow, options: FaultScheduleOptions): void {
  const at = "faultScheduleArbitrary";
  if (nodes.servers.length === 0) throw new RangeError(`${at}: nodes.servers must name at least one server`);
  if (!(Number.isInteger(window.startMs) && Number.isInteger(window.endMs) && window.startMs >= 0)) throw new RangeError(`${at}: window bounds must be whole ms ≥ 0`);
  const minForMs = options.minForMs ?? 200;
  if (window.endMs - window.startMs < minForMs) throw new RangeError(`${at}: the window [${window.startMs}, ${window.endMs}] is shorter than minForMs (${minForMs})`);
  for (const k of options.kinds ?? []) if (!DISRUPTION_KINDS.includes(k)) throw new RangeError(`${at}: unknown disruption kind "${k}" (known: ${DISRUPTION_KINDS.join(", ")})`);
  if (options.kinds?.includes("isolate") && nodes.servers.length < 2) throw new RangeError(`${at}: "isolate" needs at least two servers (it cuts one off from the others)`);
  for (const [k, w] of Object.entries(options.weights ?? {})) {
    if (!DISRUPTION_KINDS.includes(k as DisruptionKind)) throw new RangeError(`${at}: weights names an unknown disruption kind "${k}" (known: ${DISRUPTION_KINDS.join(", ")})`);
    if (!(Number.isSafeInteger(w) && w >= 1)) throw new RangeError(`${at}: weights.${k} must be a whole number ≥ 1, got ${JSON.stringify(w)}`);
  }
  if ((options.kinds ?? DISRUPTION_KINDS).length === 0 && (options.maxDisruptions ?? DEFAULT_MAX_DISRUPTIONS) > 0) throw new RangeError(`${at}: kinds is empty`);
}

/** A span inside the window: starts at an offset from its start, lasts `forMs` (clipped at its end). */
function spanArbitrary(window: FaultWindow, forMs: fc.Arbitrary<number>, minForMs: number): fc.Arbitrary<{ atMs: number; forMs: number }> {
  return fc.record({ offsetMs: fc.integer({ min: 0, max: window.endMs - window.startMs - minForMs }), forMs }).map(({ offsetMs, forMs: f }) => {
    const atMs = window.startMs + offsetMs;
    return { atMs, forMs: Math.min(f, window.endMs - atMs) };
  });
}

/** Links between two non-empty sides of the nodes (each node on the from side, the to side, or neither). */
function linksArbitrary(all: readonly string[]): fc.Arbitrary<{ from: string[]; to: string[]; oneWay: boolean }> {
  return fc
    .record({ sides: fc.array(fc.constantFrom(0, 1, 2), { minLength: all.length, maxLength: all.length }), oneWay: fc.boolean() })
    .filter(({ sides }) => sides.includes(1) && sides.includes(2))
    .map(({ sides, oneWay }) => ({ from: all.filter((_, i) => sides[i] === 1), to: all.filter((_, i) => sides[i] === 2), oneWay }));
}

/** Groups of a partition: each node in group 0, 1 or 2; empty groups dropped (one group: nothing cut). */
function groupsArbitrary(all: readonly string[]): fc.Arbitrary<string[][]> {
  return fc
    .array(fc.constantFrom(0, 1, 2), { minLength: all.length, maxLength: all.length })
    .map((g) => [0, 1, 2].map((k) => all.filter((_, i) => g[i] === k)).filter((group) => group.length > 0));
}

const percent = (min: number, max: number) => fc.integer({ min, max }).map((p) => p / 100);

function kindArbitrary(kind: DisruptionKind, nodes: ClusterNodes, window: FaultWindow, options: FaultScheduleOptions): fc.Arbitrary<Disruption> {
  const minForMs = options.minForMs ?? 200;
  const windowMs = window.endMs - window.startMs;
  const span = (maxForMs: number) => spanArbitrary(window, fc.integer({ min: minForMs, max: Math.max(minForMs, Math.min(maxForMs, windowMs)) }), minForMs);
  const all = [...nodes.servers, ...nodes.clients];
  const server = fc.constantFrom(...nodes.servers);
  const anyNode = fc.constantFrom(...all);
  const withSpan = <T extends object>(body: fc.Arbitrary<T>, maxForMs = windowMs) => fc.tuple(span(maxForMs), body).map(([s, b]) => ({ ...s, ...b }));
  switch (kind) {
    case "crash":
      return withSpan(fc.record({ kind: fc.constant("crash" as const), node: server }));
    case "pause": {
      // Short pauses, or pauses past the session timeout (expiry while frozen): both shrink to their shortest.
      const sessionTimeoutMs = options.sessionTimeoutMs ?? 6000;
      const shortPause = spanArbitrary(window, fc.integer({ min: minForMs, max: Math.max(minForMs, Math.min(3000, windowMs)) }), minForMs);
      const longMs = Math.min(windowMs, sessionTimeoutMs + 1);
      const longPause = spanArbitrary(window, fc.integer({ min: longMs, max: Math.max(windowMs, longMs) }), longMs);
      return fc.tuple(fc.oneof(shortPause, longPause), anyNode).map(([s, node]) => ({ ...s, kind: "pause" as const, node }));
    }
    case "isolate":
      // Re-aimed at each case's servers by projectDisruption (the peers are the other servers).
      return withSpan(server.map((node) => ({ kind: "isolate" as const, node, peers: nodes.servers.filter((s) => s !== node) })));
    case "partition":
      return withSpan(fc.record({ kind: fc.constant("partition" as const), groups: groupsArbitrary(all) }));
    case "cut":
      return withSpan(linksArbitrary(all).map((l) => ({ kind: "cut" as const, ...l })));
    case "clog":
      return withSpan(fc.tuple(linksArbitrary(all), fc.integer({ min: 10, max: 3000 })).map(([l, extraDelayMs]) => ({ kind: "clog" as const, ...l, extraDelayMs })));
    case "loss":
      return withSpan(fc.tuple(linksArbitrary(all), percent(1, 50)).map(([l, rate]) => ({ kind: "loss" as const, ...l, rate })));
    case "duplicate":
      return withSpan(fc.tuple(linksArbitrary(all), percent(1, 50)).map(([l, rate]) => ({ kind: "duplicate" as const, ...l, rate })));
    case "clock":
      // Rates from half speed to double speed, never exactly 1 (shrinks toward a mild fast clock).
      return withSpan(fc.record({ kind: fc.constant("clock" as const), node: anyNode, rate: fc.oneof(percent(101, 200), percent(50, 99)) }));
    case "slow-fsync":
      return withSpan(fc.record({ kind: fc.constant("slow-fsync" as const), node: server, fsyncLatencyMs: fc.integer({ min: 20, max: 2000 }) }));
    case "disk-full":
      return withSpan(fc.record({ kind: fc.constant("disk-full" as const), node: server }));
  }
}
