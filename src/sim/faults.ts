/**
 * Fault schedules as data: a list of timed actions that scenarios write by hand and the fault
 * generators draw (src/property/ for property tests, the recipe runner's plans, the swarm's
 * nemesis: src/scenario/nemesis/). Parsing is eager and strict — every mistake is reported with
 * the entry's index and what was wrong, before anything runs.
 *
 * An entry may also carry a trace condition (`when`: fire when the trace shows …, at a node
 * named by role or by the matched event) and an undo (`forMs`: undone that long after it fired);
 * fault-when.ts describes both, fault-triggers.ts runs them. Entries without either are
 * scheduled exactly as plain timed actions.
 *
 * Actions: crash, restart, start, pause, resume; partition (groups), cut (sets of links, one-way
 * or both), heal (all or some links); clog / unclog (extra delay without cutting), clog-node
 * (every link of one node); loss, duplicate, reorder, delay (link configuration changes); clock
 * (rate skew); disk (slow-fsync, full, ok). Their parameters, their validation and their
 * one-line text form are fault-grammar.ts's; what each does to the world is `applyFault` here,
 * and what undoes it `undoOf`.
 */
import { UserInputError, unreachable } from "./errors.js";
import type { Simulator } from "./simulator.js";
import { msToUs } from "./time.js";
import { checkNodeRef, parseWhen, type TraceStep } from "./fault-when.js";
import { installTriggeredFault, isTriggered, NO_ROLES, type TraceRoles } from "./fault-triggers.js";
import { validateFaultAction, type NodeCheck } from "./fault-grammar.js";

type Links = { from?: string[]; to?: string[]; oneWay?: boolean };

export type FaultAction =
  | { kind: "crash"; node: string }
  | { kind: "restart"; node: string }
  | { kind: "start"; node: string }
  | { kind: "pause"; node: string }
  | { kind: "resume"; node: string }
  | { kind: "partition"; groups: string[][] }
  | { kind: "cut"; from: string[]; to: string[]; oneWay?: boolean }
  | ({ kind: "heal" } & Links)
  | { kind: "clog"; from: string[]; to: string[]; extraDelayMs: number; oneWay?: boolean }
  | ({ kind: "unclog" } & Links)
  | { kind: "clog-node"; node: string; extraDelayMs: number }
  | ({ kind: "loss"; rate: number } & Links)
  | ({ kind: "duplicate"; rate: number } & Links)
  | ({ kind: "reorder"; rate: number; extraDelayMs?: number } & Links)
  | ({ kind: "delay"; minMs: number; maxMs: number } & Links)
  | { kind: "clock"; node: string; rate: number }
  | { kind: "disk"; node: string; fault: "slow-fsync"; fsyncLatencyMs: number }
  | { kind: "disk"; node: string; fault: "full" | "ok" };

export type Fault = FaultAction & {
  atMs: number;
  /** Fire when the trace shows these steps, armed at `atMs` (fault-when.ts). */
  when?: TraceStep[];
  /** Undo the fault (`undoOf`) this long after it fired. */
  forMs?: number;
  /** A node fault fires only if its node is up then, as the trace shows (a paused node is not crashed). */
  onlyIfUp?: boolean;
};

export { FAULT_KINDS, CLOCK_RATE_BOUNDS } from "./fault-grammar.js";

/**
 * Parses and validates a schedule from JSON-like data. Node names must be in `nodes`, or be
 * references (fault-when.ts) to a role in `roles` or to a step of the entry's `when`.
 */
export function parseFaultSchedule(raw: unknown, nodes: readonly string[], where = "faults", roles: readonly string[] = []): Fault[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new UserInputError(`${where}: expected a list of fault entries`);
  const known = new Set(nodes);
  return raw.map((entry, i) => {
    const at = `${where}[${i}]`;
    const e = entry as Record<string, unknown>;
    const when = typeof e === "object" && e !== null && e.when !== undefined ? parseWhen(e.when, known, roles, `${at}.when`) : undefined;
    const fault = parseFault(entry, (v, field) => checkNodeRef(v, known, roles, when?.length ?? 0, `${at}.${field}`), at);
    if (when !== undefined) fault.when = when;
    if (e.forMs !== undefined) {
      if (typeof e.forMs !== "number" || !Number.isSafeInteger(e.forMs) || e.forMs < 0) throw new UserInputError(`${at}.forMs: expected a whole number ≥ 0, got ${JSON.stringify(e.forMs)}`);
      if (undoOf(fault).length === 0) throw new UserInputError(`${at}.forMs: a "${fault.kind}" fault has no undo`);
      fault.forMs = e.forMs;
    }
    if (e.onlyIfUp !== undefined) {
      if (e.onlyIfUp !== true) throw new UserInputError(`${at}.onlyIfUp: expected true (or leave it out), got ${JSON.stringify(e.onlyIfUp)}`);
      if (!("node" in fault)) throw new UserInputError(`${at}.onlyIfUp: a "${fault.kind}" fault names no node`);
      fault.onlyIfUp = true;
    }
    return fault;
  });
}

/** The fields of a schedule entry besides its action's. */
const SCHEDULE_KEYS = ["atMs", "when", "forMs", "onlyIfUp"];

function parseFault(entry: unknown, nodeName: NodeCheck, at: string): Fault {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw new UserInputError(`${at}: expected an object like {"atMs": 1000, "kind": "crash", "node": "s1"}`);
  const e = entry as Record<string, unknown>;
  const atMs = e.atMs;
  if (typeof atMs !== "number" || !Number.isFinite(atMs) || atMs < 0) throw new UserInputError(`${at}: "atMs" must be a number ≥ 0, got ${JSON.stringify(atMs)}`);
  return { atMs, ...validateFaultAction(e, nodeName, at, SCHEDULE_KEYS) };
}

/**
 * Schedules every fault as a world event at its time; one with a trace condition, an undo or
 * a node reference is armed then and run by fault-triggers.ts, reading `roles` from the trace.
 */
export function installFaults(sim: Simulator, faults: readonly Fault[], roles: TraceRoles = NO_ROLES): void {
  for (const fault of faults) {
    if (isTriggered(fault)) installTriggeredFault(sim, fault, roles);
    else sim.schedule(msToUs(fault.atMs), () => applyFault(sim, fault));
  }
}

/** `action` at `atMs` followed by its undo at `undoAtMs`, as schedule entries. */
export function timedWithUndo(action: FaultAction, atMs: number, undoAtMs: number): Fault[] {
  return [{ atMs, ...action }, ...undoOf(action).map((u) => ({ atMs: undoAtMs, ...u }))];
}

/**
 * What undoes `action` (empty: nothing does — a restart, a heal). The undo restores what the
 * action changed and stays right when disruptions overlap: a crashed node is `start`ed (a
 * no-op if something else already brought it back), rates go back to 0, clocks to rate 1, a
 * partition's undo heals every link, and a full disk is freed and its server restarted (it
 * stopped itself at ENOSPC).
 */
export function undoOf(action: FaultAction): FaultAction[] {
  const links = (f: { from?: string[]; to?: string[]; oneWay?: boolean }) => (f.from === undefined ? {} : { from: [...f.from], to: [...f.to!], oneWay: f.oneWay ?? false });
  switch (action.kind) {
    case "crash":
      return [{ kind: "start", node: action.node }];
    case "pause":
      return [{ kind: "resume", node: action.node }];
    case "partition":
      return [{ kind: "heal" }];
    case "cut":
      return [{ kind: "heal", ...links(action) }];
    case "clog":
      return [{ kind: "unclog", ...links(action) }];
    case "clog-node":
      return [{ kind: "clog-node", node: action.node, extraDelayMs: 0 }];
    case "loss":
    case "duplicate":
    case "reorder":
      return [{ kind: action.kind, rate: 0, ...links(action) }];
    case "clock":
      return [{ kind: "clock", node: action.node, rate: 1 }];
    case "disk":
      if (action.fault === "slow-fsync") return [{ kind: "disk", node: action.node, fault: "ok" }];
      if (action.fault === "full") return [{ kind: "disk", node: action.node, fault: "ok" }, { kind: "restart", node: action.node }];
      return [];
    case "restart":
    case "start":
    case "resume":
    case "heal":
    case "unclog":
    case "delay":
      return [];
    default:
      return unreachable(action);
  }
}

/**
 * Ends every fault still in force, now: the network heals (cuts, clogs, changed link
 * settings), paused nodes resume, crashed nodes restart, skewed clocks run true, disks
 * recover. Each change is a trace event; nothing is recorded when all was well. The start of
 * a run's convergence phase (see `Scenario.convergence`).
 */
export function endAllFaults(sim: Simulator): void {
  sim.network.healAll();
  for (const id of sim.nodeIds) {
    const node = sim.node(id);
    if (node.status === "paused") sim.resume(id);
    if (node.status === "down" && node.startedOnce) sim.start(id);
    if (node.clock.rate !== 1) sim.setClockRate(id, 1);
    if (node.disk.faulty) node.disk.restore();
  }
}

/** Applies one fault now (also used by the UI and by generated schedules). */
export function applyFault(sim: Simulator, fault: FaultAction): void {
  const net = sim.network;
  switch (fault.kind) {
    case "crash":
      return sim.crash(fault.node);
    case "restart":
      return sim.restart(fault.node);
    case "start":
      return sim.start(fault.node);
    case "pause":
      return sim.pause(fault.node);
    case "resume":
      return sim.resume(fault.node);
    case "partition":
      return net.partition(fault.groups);
    case "cut":
      return net.cut(fault.from, fault.to, fault.oneWay);
    case "heal":
      return net.heal(fault.from, fault.to, fault.oneWay);
    case "clog":
      return net.clog(fault.from, fault.to, msToUs(fault.extraDelayMs), fault.oneWay);
    case "unclog":
      return net.clog(fault.from ?? sim.nodeIds, fault.to ?? sim.nodeIds, 0, fault.oneWay);
    case "clog-node":
      return net.clog([fault.node], sim.nodeIds.filter((n) => n !== fault.node), msToUs(fault.extraDelayMs));
    case "loss":
      return net.configure({ lossRate: fault.rate }, fault.from, fault.to, fault.oneWay);
    case "duplicate":
      return net.configure({ duplicateRate: fault.rate }, fault.from, fault.to, fault.oneWay);
    case "reorder":
      return net.configure(
        { reorderRate: fault.rate, ...(fault.extraDelayMs !== undefined ? { reorderExtraUs: msToUs(fault.extraDelayMs) } : {}) },
        fault.from,
        fault.to,
        fault.oneWay,
      );
    case "delay":
      return net.configure({ minDelayUs: msToUs(fault.minMs), maxDelayUs: msToUs(fault.maxMs) }, fault.from, fault.to, fault.oneWay);
    case "clock":
      return sim.setClockRate(fault.node, fault.rate);
    case "disk": {
      const disk = sim.node(fault.node).disk;
      if (fault.fault === "slow-fsync") return disk.setFsyncLatency(msToUs(fault.fsyncLatencyMs));
      if (fault.fault === "full") return disk.setFull(true);
      return disk.restore();
    }
    default:
      return unreachable(fault);
  }
}
