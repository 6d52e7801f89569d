/**
 * Fault schedules as data: a list of timed actions that scenarios write by hand and property
 * tests generate (src/property/fault-schedule.ts: each fault with its undo). Parsing is eager and strict — every mistake is reported with the entry's
 * index and what was wrong, before anything runs.
 *
 * Actions: crash, restart, start, pause, resume; partition (groups), cut (sets of links, one-way
 * or both), heal (all or some links); clog / unclog (extra delay without cutting); loss,
 * duplicate, reorder, delay (link configuration changes); clock (rate skew); disk
 * (slow-fsync, full, ok).
 */
import { UserInputError, unreachable } from "./errors.js";
import type { Simulator } from "./simulator.js";
import { msToUs } from "./time.js";

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
  | ({ kind: "loss"; rate: number } & Links)
  | ({ kind: "duplicate"; rate: number } & Links)
  | ({ kind: "reorder"; rate: number; extraDelayMs?: number } & Links)
  | ({ kind: "delay"; minMs: number; maxMs: number } & Links)
  | { kind: "clock"; node: string; rate: number }
  | { kind: "disk"; node: string; fault: "slow-fsync"; fsyncLatencyMs: number }
  | { kind: "disk"; node: string; fault: "full" | "ok" };

export type Fault = FaultAction & { atMs: number };

export const FAULT_KINDS = [
  "crash", "restart", "start", "pause", "resume", "partition", "cut", "heal", "clog", "unclog",
  "loss", "duplicate", "reorder", "delay", "clock", "disk",
] as const;

/**
 * A clock fault's rate, [min, max]: a node's timers fire `rate` times as often, so its events
 * grow with the rate (at 1000 a run crawls; near 1e18 its local time leaves the safe integers).
 */
export const CLOCK_RATE_BOUNDS = [0.01, 100] as const;

/** Parses and validates a schedule from JSON-like data. Node names must be in `nodes`. */
export function parseFaultSchedule(raw: unknown, nodes: readonly string[], where = "faults"): Fault[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new UserInputError(`${where}: expected a list of fault entries`);
  const known = new Set(nodes);
  return raw.map((entry, i) => parseFault(entry, known, `${where}[${i}]`));
}

function parseFault(entry: unknown, known: Set<string>, at: string): Fault {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw new UserInputError(`${at}: expected an object like {"atMs": 1000, "kind": "crash", "node": "s1"}`);
  const e = entry as Record<string, unknown>;
  const atMs = e.atMs;
  if (typeof atMs !== "number" || !Number.isFinite(atMs) || atMs < 0) throw new UserInputError(`${at}: "atMs" must be a number ≥ 0, got ${JSON.stringify(atMs)}`);
  const kind = e.kind;
  if (typeof kind !== "string" || !(FAULT_KINDS as readonly string[]).includes(kind)) {
    throw new UserInputError(`${at}: unknown fault kind ${JSON.stringify(kind)} (expected one of ${FAULT_KINDS.join(", ")})`);
  }
  const node = () => nodeName(e.node, known, `${at}.node`);
  const nodeList = (key: string, optional = false) => {
    const v = e[key];
    if (v === undefined && optional) return undefined;
    if (!Array.isArray(v) || v.length === 0) throw new UserInputError(`${at}.${key}: expected a non-empty list of node names`);
    return v.map((n, j) => nodeName(n, known, `${at}.${key}[${j}]`));
  };
  const num = (key: string, min: number, max = Infinity, optional = false) => {
    const v = e[key];
    if (v === undefined && optional) return undefined;
    if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max) {
      throw new UserInputError(`${at}.${key}: expected a number${max === Infinity ? ` ≥ ${min}` : ` in [${min}, ${max}]`}, got ${JSON.stringify(v)}`);
    }
    return v;
  };
  const oneWay = () => {
    const v = e.oneWay;
    if (v !== undefined && typeof v !== "boolean") throw new UserInputError(`${at}.oneWay: expected true or false`);
    return v === true;
  };
  const links = (): Links => {
    const from = nodeList("from", true);
    const to = nodeList("to", true);
    if ((from === undefined) !== (to === undefined)) throw new UserInputError(`${at}: give both "from" and "to", or neither (all links)`);
    return from === undefined ? {} : { from, to: to!, oneWay: oneWay() };
  };
  switch (kind as FaultAction["kind"]) {
    case "crash":
    case "restart":
    case "start":
    case "pause":
    case "resume":
      return { atMs, kind: kind as "crash", node: node() };
    case "partition": {
      const groups = e.groups;
      if (!Array.isArray(groups) || groups.length < 1) throw new UserInputError(`${at}.groups: expected a list of node groups, e.g. [["s1"],["s2","s3"]]`);
      const parsed = groups.map((g, j) => {
        if (!Array.isArray(g) || g.length === 0) throw new UserInputError(`${at}.groups[${j}]: expected a non-empty list of node names`);
        return g.map((n, k) => nodeName(n, known, `${at}.groups[${j}][${k}]`));
      });
      const seen = new Set<string>();
      for (const n of parsed.flat()) {
        if (seen.has(n)) throw new UserInputError(`${at}.groups: node "${n}" is in more than one group`);
        seen.add(n);
      }
      return { atMs, kind: "partition", groups: parsed };
    }
    case "cut":
      return { atMs, kind: "cut", from: nodeList("from")!, to: nodeList("to")!, oneWay: oneWay() };
    case "heal":
      return { atMs, kind: "heal", ...links() };
    case "clog":
      return { atMs, kind: "clog", from: nodeList("from")!, to: nodeList("to")!, extraDelayMs: num("extraDelayMs", 0)!, oneWay: oneWay() };
    case "unclog":
      return { atMs, kind: "unclog", ...links() };
    case "loss":
      return { atMs, kind: "loss", rate: num("rate", 0, 1)!, ...links() };
    case "duplicate":
      return { atMs, kind: "duplicate", rate: num("rate", 0, 1)!, ...links() };
    case "reorder": {
      const extra = num("extraDelayMs", 0, Infinity, true);
      return { atMs, kind: "reorder", rate: num("rate", 0, 1)!, ...(extra !== undefined ? { extraDelayMs: extra } : {}), ...links() };
    }
    case "delay": {
      const minMs = num("minMs", 0)!;
      const maxMs = num("maxMs", 0)!;
      if (maxMs < minMs) throw new UserInputError(`${at}: "maxMs" (${maxMs}) is below "minMs" (${minMs})`);
      return { atMs, kind: "delay", minMs, maxMs, ...links() };
    }
    case "clock": {
      const rate = num("rate", 0)!;
      if (rate <= 0) throw new UserInputError(`${at}.rate: a clock rate must be > 0`);
      if (rate < CLOCK_RATE_BOUNDS[0] || rate > CLOCK_RATE_BOUNDS[1]) throw new UserInputError(`${at}.rate: a clock rate must be in [${CLOCK_RATE_BOUNDS.join(", ")}] (a node's timers fire rate times as often), got ${rate}`);
      return { atMs, kind: "clock", node: node(), rate };
    }
    case "disk": {
      const fault = e.fault;
      if (fault === "slow-fsync") return { atMs, kind: "disk", node: node(), fault, fsyncLatencyMs: num("fsyncLatencyMs", 0)! };
      if (fault === "full" || fault === "ok") return { atMs, kind: "disk", node: node(), fault };
      throw new UserInputError(`${at}.fault: expected "slow-fsync", "full" or "ok", got ${JSON.stringify(fault)}`);
    }
  }
}

function nodeName(v: unknown, known: Set<string>, at: string): string {
  if (typeof v !== "string") throw new UserInputError(`${at}: expected a node name, got ${JSON.stringify(v)}`);
  if (!known.has(v)) throw new UserInputError(`${at}: unknown node "${v}" (known: ${[...known].join(", ")})`);
  return v;
}

/** Schedules every fault as a world event at its time. */
export function installFaults(sim: Simulator, faults: readonly Fault[]): void {
  for (const fault of faults) {
    sim.schedule(msToUs(fault.atMs), () => applyFault(sim, fault));
  }
}

/** Trace kinds that mark a fault starting or ending (the convergence phase counts from the last). */
export const FAULT_EVENT_KINDS: ReadonlySet<string> = new Set(["crash", "restart", "partition", "heal", "pause", "resume", "clog", "unclog", "net.config", "clock", "disk.fault"]);

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
