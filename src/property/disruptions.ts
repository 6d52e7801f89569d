/**
 * Disruptions: a fault together with its undo, as one shrinkable value — the unit of a generated
 * fault schedule. `faultsOf` turns a list of them into the plain `Fault[]` schedule a scenario
 * holds (sim/faults.ts), each disruption as its fault at `atMs` and its undo at `atMs + forMs`.
 *
 * Invariant (what makes "fault phase → heal → convergence" hold by construction): every undo is
 * the fault's `undoOf` (sim/faults.ts), which restores what the fault changed and stays correct
 * when disruptions overlap. So once the last undo has landed, the world is healed.
 */
import { timedWithUndo, type Fault, type FaultAction } from "../sim/faults.js";

interface Span {
  atMs: number;
  forMs: number;
}

interface Links {
  from: string[];
  to: string[];
  oneWay: boolean;
}

export type Disruption =
  /** Crash a server; start it again (recovering from its disk). */
  | (Span & { kind: "crash"; node: string })
  /** Freeze a node (a GC pause, SIGSTOP) with its state; a pause past the session timeout expires sessions. */
  | (Span & { kind: "pause"; node: string })
  /**
   * Cut a server off from the other servers, both ways, while its clients still reach it (Jepsen's
   * isolated node): a follower falls behind the quorum and keeps serving reads for up to syncLimit
   * ticks; a leader keeps its clients until it notices it lost its quorum. `peers`: the other servers.
   */
  | (Span & { kind: "isolate"; node: string; peers: string[] })
  /** Split the nodes into groups that cannot talk; heal every link. */
  | (Span & { kind: "partition"; groups: string[][] })
  /** Cut the links from → to (one-way: only that direction). */
  | (Span & Links & { kind: "cut" })
  /** Delay the links from → to by `extraDelayMs` without cutting them. */
  | (Span & Links & { kind: "clog"; extraDelayMs: number })
  /** Lose a fraction of the messages on the links (a connection retransmits: delay, not loss). */
  | (Span & Links & { kind: "loss"; rate: number })
  /** Duplicate a fraction of the messages on the links. */
  | (Span & Links & { kind: "duplicate"; rate: number })
  /** Run a node's clock at `rate` (skew: its timeouts fire early or late). */
  | (Span & { kind: "clock"; node: string; rate: number })
  /** A server's fsyncs take `fsyncLatencyMs`. */
  | (Span & { kind: "slow-fsync"; node: string; fsyncLatencyMs: number })
  /** A server's disk is full (writes fail with ENOSPC, the server stops); undo: free it and restart the server. */
  | (Span & { kind: "disk-full"; node: string });

export type DisruptionKind = Disruption["kind"];

export const DISRUPTION_KINDS: readonly DisruptionKind[] = ["crash", "pause", "isolate", "partition", "cut", "clog", "loss", "duplicate", "clock", "slow-fsync", "disk-full"];

/** The fault a disruption starts with (sim/faults.ts's vocabulary: slow-fsync and disk-full are `disk` faults). */
export function disruptionAction(d: Disruption): FaultAction {
  switch (d.kind) {
    case "crash":
    case "pause":
      return { kind: d.kind, node: d.node };
    case "isolate":
      return { kind: "cut", from: [d.node], to: [...d.peers], oneWay: false };
    case "partition":
      return { kind: "partition", groups: d.groups.map((g) => [...g]) };
    case "cut":
      return { kind: "cut", ...links(d) };
    case "clog":
      return { kind: "clog", ...links(d), extraDelayMs: d.extraDelayMs };
    case "loss":
    case "duplicate":
      return { kind: d.kind, rate: d.rate, ...links(d) };
    case "clock":
      return { kind: "clock", node: d.node, rate: d.rate };
    case "slow-fsync":
      return { kind: "disk", node: d.node, fault: "slow-fsync", fsyncLatencyMs: d.fsyncLatencyMs };
    case "disk-full":
      return { kind: "disk", node: d.node, fault: "full" };
  }
}

/** The disruption as [fault, …undo] entries (the undo, `undoOf`, at `atMs + forMs`). */
export function disruptionFaults(d: Disruption): Fault[] {
  return timedWithUndo(disruptionAction(d), d.atMs, d.atMs + d.forMs);
}

function links(d: Links): Links {
  return { from: [...d.from], to: [...d.to], oneWay: d.oneWay };
}

/**
 * The schedule of a list of disruptions: every fault and undo, sorted by time. The sort is
 * stable, so entries at the same time keep the list's order (a disruption's fault before its
 * undo, earlier disruptions first).
 */
export function faultsOf(disruptions: readonly Disruption[]): Fault[] {
  return disruptions.flatMap(disruptionFaults).sort((a, b) => a.atMs - b.atMs);
}

/** When the last undo lands: the end of the fault phase (0 without disruptions). */
export function healedAtMs(disruptions: readonly Disruption[]): number {
  return disruptions.reduce((m, d) => Math.max(m, d.atMs + d.forMs), 0);
}

/**
 * The disruption on a smaller cluster: generated over the largest node set, a disruption is
 * re-aimed at the nodes a case actually has — a server or client name wraps around its list
 * (s5 on three servers is s2), link sides and partition groups keep only the nodes present.
 * Undefined when nothing is left to disrupt (a side of a link became empty). Identity when every
 * named node is present (an isolated server's peers are the case's other servers, none: undefined).
 * Node names are the zk workload's: s1…sN, c1…cM.
 */
export function projectDisruption(d: Disruption, nodes: { servers: readonly string[]; clients: readonly string[] }): Disruption | undefined {
  const present = new Set([...nodes.servers, ...nodes.clients]);
  const one = (name: string): string => {
    if (present.has(name)) return name;
    const list = name.startsWith("c") ? nodes.clients : nodes.servers;
    return list[(Number(name.slice(1)) - 1) % list.length]!;
  };
  const keep = (names: readonly string[]) => names.filter((n) => present.has(n));
  switch (d.kind) {
    case "crash":
    case "pause":
    case "clock":
    case "slow-fsync":
    case "disk-full":
      return { ...d, node: one(d.node) };
    case "isolate": {
      const node = one(d.node);
      const peers = nodes.servers.filter((s) => s !== node);
      return peers.length === 0 ? undefined : { ...d, node, peers };
    }
    case "partition": {
      const groups = d.groups.map(keep).filter((g) => g.length > 0);
      return groups.length === 0 ? undefined : { ...d, groups };
    }
    case "cut":
    case "clog":
    case "loss":
    case "duplicate": {
      const from = keep(d.from);
      const to = keep(d.to);
      return from.length === 0 || to.length === 0 ? undefined : { ...d, from, to };
    }
  }
}
