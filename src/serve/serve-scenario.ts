/**
 * `zksim serve --scenario FILE`: what of a scenario file applies to a served ensemble, and its
 * fault schedule on the wall clock.
 *
 * What applies: the deployment the workload names (`zk`: `servers`, `observers`, `tickTimeMs`,
 * `initLimitTicks`, `syncLimitTicks`, the session-timeout bounds and the other server settings;
 * `swarm`: the shape serve's seed draws, as `zksim run` with that seed would), the scenario's
 * `network` and `disk` settings (the gateway links `cN → sN` included), its `faults` and the
 * faults its `nemesis` draws from serve's seed, and its end: at `durationMs` every fault still in
 * force ends, as the convergence phase of a run begins (unless `"convergence": false`).
 *
 * What does not: the workload's simulated clients and script (real clients take their place),
 * its checkers (serve runs its own set), and so any fault that waits on a `workload.*` trace
 * event of the script — except the swarm's anchor, `workload.phase` {phase: "faults"}: serve
 * records it itself when the first leader is established (the script records it once the
 * ensemble settled), so a nemesis's drawn schedule fires on the wall clock. Each is one warning.
 *
 * Node names: under serve `cN` is the host of `sN`'s real clients, so a fault on the scenario's
 * client `c2` hits s2's real clients; names serve has no node for (a scenario's `c7` beside 3
 * servers) leave the fault's links, and a fault left with nothing to act on is dropped, with a
 * warning. A partition keeps each `cN` with its `sN` unless it names `cN` (fault-command.ts).
 *
 * Invariants: faults are installed at virtual `atMs` since serve started, which the pacing loop
 * keeps equal to wall ms since start; each plain fault prints one status line as it is applied,
 * and a trace-conditioned one prints a line when it is armed (the fault's own trace event, e.g.
 * `crash s2`, prints when it fires).
 */
import { UserInputError } from "../sim/errors.js";
import { applyFault, endAllFaults, type Fault, type FaultAction } from "../sim/faults.js";
import { installTriggeredFault, isTriggered } from "../sim/fault-triggers.js";
import { isRef } from "../sim/fault-when.js";
import type { NetworkConfig } from "../sim/network.js";
import type { DiskConfig } from "../sim/disk.js";
import { Rng } from "../sim/rng.js";
import type { Simulator } from "../sim/simulator.js";
import { msToUs } from "../sim/time.js";
import { withDrawnFaults } from "../scenario/nemesis/index.js";
import { FAULT_PHASE_EVENT } from "../scenario/nemesis/zab-swarm.js";
import type { Scenario } from "../scenario/types.js";
import { intParam } from "../scenario/workload.js";
import { workloadDef } from "../scenario/registry.js";
import { ZAB_TRACE_ROLES, quorumTimingParams, serverConfig, shape } from "../scenario/workloads/zk.js";
import { swarmShapeOf } from "../scenario/workloads/swarm-shape.js";
import type { ZooKeeperServerConfig } from "../zk/server/zoo-keeper-server.js";
import { parseFaultSchedule } from "../sim/faults.js";
import { withGatewaysInPartition } from "./fault-command.js";
import { printFault } from "../sim/fault-grammar.js";
import { settingsFromFlags, type ServeSettings } from "./zoo-cfg.js";

/** The parts of a scenario that a serve session applies. */
export interface ServeScenario {
  name: string;
  /** Fault entries with their index in the scenario's list (drawn nemesis faults after its own). */
  faults: { index: number; fault: Fault }[];
  /** When every fault still in force ends; undefined with `"convergence": false`. */
  endAllAtMs: number | undefined;
  network: Partial<NetworkConfig>;
  disk: Partial<DiskConfig>;
  /** Server settings beyond what ServeSettings carries (snapCount, …). */
  server: Partial<ZooKeeperServerConfig>;
  /** Some fault waits on the swarm's fault-phase event: serve records it at the first leader. */
  recordsFaultPhase: boolean;
}

/** The step a swarm nemesis anchors its faults on (the one `workload.*` step serve can give). */
function isFaultPhaseStep(step: { after: string; fields?: Record<string, unknown> }): boolean {
  return step.after === FAULT_PHASE_EVENT.kind && step.fields?.phase === FAULT_PHASE_EVENT.phase && Object.keys(step.fields).length === 1;
}

/** The ensemble settings and the schedule of `scenario` for a serve with seed `seed`. */
export function serveScenarioOf(scenario: Scenario, seed: number, basePort: number): { settings: ServeSettings; scenario: ServeScenario; warnings: string[] } {
  const source = `scenario "${scenario.name}"`;
  const params = scenario.workload.params;
  const warnings: string[] = [];
  let settings: ServeSettings;
  let server: Partial<ZooKeeperServerConfig>;
  switch (scenario.workload.kind) {
    case "zk": {
      const sh = shape(params);
      server = serverConfig(params);
      settings = {
        ...settingsFromFlags(sh.servers.length, sh.observers.length, basePort),
        tickTimeMs: server.tickTimeMs ?? 2000,
        initLimitTicks: intParam(params, "initLimitTicks", 10, 1, 1000),
        syncLimitTicks: intParam(params, "syncLimitTicks", 5, 1, 1000),
      };
      const timing = quorumTimingParams(params, "zookeeper-3.8");
      if (timing.profile !== "zookeeper-3.8") warnings.push(`${source}: serve runs 3.8's failover timings; quorumTiming "${timing.profile}" is not used (its settings are)`);
      if (Object.keys(timing.settings ?? {}).length > 0) settings.quorumTiming = timing.settings;
      warnings.push(`${source}: its script "${String(params.script)}" and its ${sh.clients.length} simulated client(s) do not run under serve; real clients take their place`);
      break;
    }
    case "swarm": {
      const sh = swarmShapeOf(Rng.root(seed), params);
      server = { tickTimeMs: sh.tickTimeMs };
      for (const k of ["snapCount", "snapChunkNodes", "snapChunkIntervalUs"] as const) if (typeof params[k] === "number") server[k] = params[k] as number;
      settings = { ...settingsFromFlags(sh.servers, sh.observers, basePort), tickTimeMs: sh.tickTimeMs };
      warnings.push(`${source}: seed ${seed} draws ${sh.servers} voter(s) and ${sh.observers} observer(s); its swarm clients and script do not run under serve`);
      break;
    }
    default:
      throw new UserInputError(`${source}: workload "${scenario.workload.kind}" is not a ZooKeeper deployment; serve takes scenarios of workload "zk" or "swarm"`);
  }
  if (settings.minSessionTimeoutMs === undefined && server.minSessionTimeoutMs !== undefined) settings.minSessionTimeoutMs = server.minSessionTimeoutMs;
  if (settings.maxSessionTimeoutMs === undefined && server.maxSessionTimeoutMs !== undefined) settings.maxSessionTimeoutMs = server.maxSessionTimeoutMs;
  const nodes = new Set(settings.members.flatMap((m) => [m.node, `c${m.sid}`]));
  const drawn = withDrawnFaults(scenario, seed, workloadDef(scenario.workload.kind));
  const faults: ServeScenario["faults"] = [];
  let waitsOnWorkload = 0;
  const missing = new Set<string>();
  drawn.faults.forEach((fault, index) => {
    if ((fault.when ?? []).some((s) => s.after.startsWith("workload.") && !isFaultPhaseStep(s))) {
      waitsOnWorkload++;
      return;
    }
    const kept = withinNodes(fault, nodes, missing);
    if (kept !== undefined) faults.push({ index, fault: kept });
  });
  if (waitsOnWorkload > 0) warnings.push(`${source}: ${waitsOnWorkload} of ${drawn.faults.length} fault(s) wait on the scenario's workload events (its script's phases), which serve has not: dropped`);
  if (missing.size > 0) warnings.push(`${source}: serve has no node ${[...missing].sort().join(", ")} (only ${[...nodes].join(", ")}; cN hosts sN's real clients): left out of the faults that named them`);
  if (scenario.checkers.length > 0) warnings.push(`${source}: its checkers are not run; serve runs its own (docs/serve.md, "Checkers while serving")`);
  return {
    settings,
    warnings,
    scenario: {
      name: scenario.name,
      faults,
      endAllAtMs: scenario.convergence === false ? undefined : scenario.durationMs,
      network: scenario.network,
      disk: scenario.disk,
      server,
      recordsFaultPhase: faults.some(({ fault }) => (fault.when ?? []).some(isFaultPhaseStep)),
    },
  };
}

/** The fault with names serve has no node for left out; undefined if nothing is left to act on. */
function withinNodes(fault: Fault, nodes: ReadonlySet<string>, missing: Set<string>): Fault | undefined {
  const keep = (n: string) => {
    if (isRef(n) || nodes.has(n)) return true;
    missing.add(n);
    return false;
  };
  if ((fault.when ?? []).some((s) => s.node !== undefined && !keep(s.node))) return undefined;
  if ("node" in fault) return keep(fault.node) ? fault : undefined;
  if (fault.kind === "partition") {
    const groups = fault.groups.map((g) => g.filter(keep)).filter((g) => g.length > 0);
    return groups.length === 0 ? undefined : { ...fault, groups };
  }
  if (fault.from === undefined || fault.to === undefined) return fault;
  const from = fault.from.filter(keep);
  const to = fault.to.filter(keep);
  return from.length === 0 || to.length === 0 ? undefined : { ...fault, from, to };
}

/**
 * Installs the schedule on the served simulator: each fault at its virtual time (partitions
 * keeping gateways with their servers), a status line per fault, and the end of all faults.
 */
export function installServeScenario(sim: Simulator, s: ServeScenario, gatewayOf: ReadonlyMap<string, string>, out: (line: string) => void): void {
  const at = () => `[${(sim.nowUs / 1e6).toFixed(3)}s]`;
  const total = s.faults.length;
  s.faults.forEach(({ index, fault }, i) => {
    const label = `scenario ${s.name} faults[${index}] (${i + 1}/${total})`;
    const action = withGatewaysInPartition(fault, gatewayOf) as Fault;
    const placed: Fault = action === fault ? fault : { ...fault, ...action };
    if (isTriggered(placed)) {
      sim.schedule(msToUs(placed.atMs), () => out(`${at()} ${label}: armed: ${printFault(placed)}${placed.when !== undefined ? ` when ${placed.when.map((w) => w.after).join(" then ")}` : ""}${placed.forMs !== undefined ? `, undone after ${placed.forMs} ms` : ""}`));
      installTriggeredFault(sim, placed, ZAB_TRACE_ROLES);
      return;
    }
    sim.schedule(msToUs(placed.atMs), () => {
      out(`${at()} ${label}: ${printFault(placed)}`);
      applyFault(sim, placed as FaultAction);
    });
  });
  if (s.recordsFaultPhase) recordFaultPhaseAtFirstLeader(sim, s.name, at, out);
  if (s.endAllAtMs !== undefined) {
    const endAtMs = s.endAllAtMs;
    sim.schedule(msToUs(endAtMs), () => {
      out(`${at()} scenario ${s.name}: its ${endAtMs} ms are over; every fault still in force ends (heal, resume, restart), serving goes on`);
      endAllFaults(sim);
    });
  }
}

/** The swarm's anchor, recorded as its script would, once a leader is first established. */
function recordFaultPhaseAtFirstLeader(sim: Simulator, name: string, at: () => string, out: (line: string) => void): void {
  let recorded = false;
  sim.trace.subscribe(
    () => {
      if (recorded) return;
      recorded = true;
      // Recorded as a world event of its own, not from inside the trace's delivery of another.
      sim.schedule(sim.nowUs, () => {
        out(`${at()} scenario ${name}: fault phase begins (its nemesis's anchor, recorded at the first leader)`);
        sim.trace.record(sim.nowUs, FAULT_PHASE_EVENT.kind, "", undefined, undefined, undefined, { phase: FAULT_PHASE_EVENT.phase });
      });
    },
    ["zab.leader.established"],
  );
}

/**
 * The schedule part of a ServeScenario as a recording keeps it (serve-recorder.ts): its `network`
 * and `disk` go to the replay scenario's own fields, so they are not here.
 */
export function serveScheduleToRecord(s: ServeScenario): Record<string, unknown> {
  return { name: s.name, faults: s.faults, endAllAtMs: s.endAllAtMs ?? null, server: s.server, recordsFaultPhase: s.recordsFaultPhase };
}

/** The inverse of `serveScheduleToRecord`, checked (one line naming the field); faults as a scenario's are checked. */
export function serveScheduleFromRecord(raw: unknown, network: Partial<NetworkConfig>, disk: Partial<DiskConfig>, nodes: readonly string[]): ServeScenario {
  const at = "workload.scenario";
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserInputError(`${at} must be an object {name, faults, endAllAtMs, server, recordsFaultPhase}`);
  const doc = raw as Record<string, unknown>;
  if (typeof doc.name !== "string") throw new UserInputError(`${at}.name must be the scenario's name`);
  if (!Array.isArray(doc.faults)) throw new UserInputError(`${at}.faults must be a list of {index, fault}`);
  const entries = doc.faults.map((e, i) => {
    const o = e as Record<string, unknown> | null;
    if (typeof o !== "object" || o === null || !Number.isInteger(o.index)) throw new UserInputError(`${at}.faults[${i}] must be {index: whole number, fault}`);
    return o;
  });
  const faults = parseFaultSchedule(entries.map((e) => e.fault), nodes, `${at}.faults`, ZAB_TRACE_ROLES.roles.map((r) => r.role));
  const endAllAtMs = doc.endAllAtMs ?? undefined;
  if (endAllAtMs !== undefined && (typeof endAllAtMs !== "number" || !(endAllAtMs >= 0))) throw new UserInputError(`${at}.endAllAtMs must be a time in ms or null`);
  if (typeof doc.server !== "object" || doc.server === null || Array.isArray(doc.server)) throw new UserInputError(`${at}.server must be an object of server settings`);
  if (typeof doc.recordsFaultPhase !== "boolean") throw new UserInputError(`${at}.recordsFaultPhase must be true or false`);
  return {
    name: doc.name,
    faults: faults.map((fault, i) => ({ index: entries[i]!.index as number, fault })),
    endAllAtMs: endAllAtMs as number | undefined,
    network,
    disk,
    server: doc.server as Partial<ZooKeeperServerConfig>,
    recordsFaultPhase: doc.recordsFaultPhase,
  };
}
