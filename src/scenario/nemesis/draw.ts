/**
 * The generator family's building blocks over a seeded `Rng`: each draws one disruption — a
 * fault of sim/faults.ts with its undo after `forMs` — over any node names (ZooKeeper servers
 * and clients, or a teaching protocol's nodes). The zab-swarm and random nemeses compose them;
 * the property tests' fast-check arbitraries (src/property/fault-schedule.ts) draw the same
 * kinds with the same undo (`undoOf`), so a generated schedule reads the same whoever drew it.
 *
 * Invariants: a drawn fault is valid for `parseFaultSchedule` over the nodes it was drawn from;
 * every draw comes from the `Rng` given (no other randomness); a link fault never has an empty
 * side.
 */
import type { Fault, FaultAction } from "../../sim/faults.js";
import type { TraceStep } from "../../sim/fault-when.js";
import type { Rng } from "../../sim/rng.js";

/**
 * The disruption kinds a nemesis draws: each has an undo (`undoOf`). A link's extra delay is
 * `clog` (undone by `unclog`); `delay` sets a link's base delays, which has no undo of its own,
 * so only hand-written schedules use it (`reorder`, like loss, is undone by a rate of 0).
 */
export const DRAWN_KINDS = ["crash", "pause", "partition", "cut", "clog", "loss", "duplicate", "slow-fsync"] as const;
export type DrawnKind = (typeof DRAWN_KINDS)[number];

/** Each of `items` with probability `p` (order kept). */
export function subset<T>(rng: Rng, items: readonly T[], p: number): T[] {
  return items.filter(() => rng.chance(p));
}

/** Two sides of a link fault: `from` among `fromNodes`, `to` among `toNodes`; undefined if a side is empty. */
export function drawLinks(rng: Rng, fromNodes: readonly string[], toNodes: readonly string[], p = 0.5): { from: string[]; to: string[] } | undefined {
  const from = subset(rng, fromNodes, p);
  const to = subset(rng, toNodes, p);
  return from.length === 0 || to.length === 0 ? undefined : { from, to };
}

/** How long a crashed node stays down: a quick bounce (30 %) or 0.5–15 s. */
export function drawDownMs(rng: Rng): number {
  return rng.chance(0.3) ? rng.int(0, 200) : rng.int(500, 15_000);
}

/** One fault entry: `action` at `atMs` (or on `when`), undone `forMs` after it fired. */
export function entry(action: FaultAction, atMs: number, forMs?: number, when?: TraceStep[]): Fault {
  return { ...action, atMs, ...(when !== undefined ? { when } : {}), ...(forMs !== undefined ? { forMs } : {}) } as Fault;
}

/**
 * One disruption of `kind` over `nodes` (crash and disk faults only on `servers`), as a fault
 * with its undo: the shared vocabulary of the random nemesis. Undefined when the draw left
 * nothing to disrupt.
 */
export function drawAction(rng: Rng, kind: DrawnKind, servers: readonly string[], nodes: readonly string[]): FaultAction | undefined {
  switch (kind) {
    case "crash":
      return { kind: "crash", node: rng.pick(servers) };
    case "pause":
      return { kind: "pause", node: rng.pick(nodes) };
    case "partition": {
      const side = nodes.map(() => rng.int(0, 1));
      const groups = [0, 1].map((g) => nodes.filter((_, i) => side[i] === g)).filter((g) => g.length > 0);
      return groups.length < 2 ? undefined : { kind: "partition", groups };
    }
    case "cut": {
      const links = drawLinks(rng, nodes, nodes);
      return links && { kind: "cut", ...links, oneWay: rng.chance(0.5) };
    }
    case "clog": {
      const links = drawLinks(rng, nodes, nodes);
      return links && { kind: "clog", ...links, extraDelayMs: rng.int(20, 3000), oneWay: rng.chance(0.5) };
    }
    case "loss":
    case "duplicate": {
      const links = drawLinks(rng, nodes, nodes);
      return links && { kind, rate: rng.int(1, 40) / 100, ...links, oneWay: rng.chance(0.5) };
    }
    case "slow-fsync":
      return { kind: "disk", node: rng.pick(servers), fault: "slow-fsync", fsyncLatencyMs: rng.int(20, 2000) };
  }
}
