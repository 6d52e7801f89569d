/**
 * Nemeses: the fault generators of scenarios (Maelstrom's word), one family. A scenario may name
 * one (`"nemesis": {"kind": "zab-swarm"}`); before its run, `withDrawnFaults` draws the nemesis's
 * whole schedule from the run's seed — plain timed faults and trace-conditioned ones
 * (sim/fault-when.ts) — and lists it in `faults`, so a saved case shows every fault it ran with
 * and `zksim shrink` can remove them one by one.
 *
 * Invariants: drawing is a pure function of (scenario, seed) — its own rng streams from a fresh
 * root of the seed, no decision tape — so the scenario with its nemesis and the scenario with
 * the drawn list run identically; a drawn scenario names no nemesis (drawing twice is drawing
 * once); every drawn fault uses the fault kinds of sim/faults.ts and names only nodes of the
 * workload or references the workload's trace roles.
 */
import { UserInputError } from "../../sim/errors.js";
import { Rng } from "../../sim/rng.js";
import type { Fault } from "../../sim/faults.js";
import type { Scenario } from "../types.js";
import type { WorkloadDef } from "../workload.js";
import { laggingServerNemesis, zabSwarmNemesis } from "./zab-swarm.js";
import { randomNemesis } from "./random.js";
import { protocolSwarmNemesis } from "./protocol-swarm.js";
import { apiSwarmNemesis } from "./api-swarm.js";

export interface NemesisContext {
  /** The root stream of the run's seed (the nemesis forks its own streams from it). */
  rng: Rng;
  scenario: Scenario;
  /** Node names the workload creates (its largest shape). */
  nodes: readonly string[];
  /**
   * The nodes this seed creates, when the seed draws the workload's shape (a subset of `nodes`);
   * drawn from `rng` when called, so a nemesis that needs it calls it at one fixed point.
   */
  seedNodes(): string[];
}

export interface NemesisDef {
  kind: string;
  description: string;
  /** Parameters the nemesis reads (validated by `checkParams`). */
  paramKeys: readonly string[];
  checkParams(params: Readonly<Record<string, unknown>>, nodes: readonly string[]): void;
  draw(ctx: NemesisContext, params: Readonly<Record<string, unknown>>): Fault[];
  /** The fault kinds it never draws, and why (a swarm's declaration; explore prints it with the coverage). */
  leftOut?: readonly { fault: string; why: string }[];
  /** The same, when each scenario declares its own (its parameters say what it leaves out). */
  leftOutOf?(params: Readonly<Record<string, unknown>>): readonly { fault: string; why: string }[];
}

const NEMESES: readonly NemesisDef[] = [zabSwarmNemesis, randomNemesis, protocolSwarmNemesis, laggingServerNemesis, apiSwarmNemesis];

export function nemesisDef(kind: string): NemesisDef {
  const def = NEMESES.find((n) => n.kind === kind);
  if (def === undefined) throw new UserInputError(`nemesis.kind: unknown nemesis "${kind}" (known: ${NEMESES.map((n) => n.kind).join(", ")})`);
  return def;
}

/** Parses a scenario document's `nemesis` ({"kind": …, …params}); `at` names the field. */
export function parseNemesis(raw: unknown, nodes: readonly string[], at: string): Scenario["nemesis"] {
  if (raw === undefined) return undefined;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserInputError(`${at} must be an object like {"kind": "zab-swarm"}`);
  const { kind, ...params } = raw as Record<string, unknown>;
  if (typeof kind !== "string") throw new UserInputError(`${at}.kind: expected a nemesis name (one of ${NEMESES.map((n) => n.kind).join(", ")})`);
  const def = nemesisDef(kind);
  for (const k of Object.keys(params)) if (!def.paramKeys.includes(k)) throw new UserInputError(`${at}: unknown parameter "${k}" for nemesis "${kind}" (known: ${def.paramKeys.join(", ") || "none"})`);
  def.checkParams(params, nodes);
  return { kind, params };
}

/**
 * The scenario as seed `seed` runs it: its nemesis's faults drawn and listed after its own,
 * and no nemesis left. Identity for a scenario without one.
 */
export function withDrawnFaults(scenario: Scenario, seed: number, workload: WorkloadDef): Scenario {
  const nemesis = scenario.nemesis;
  if (nemesis === undefined) return scenario;
  const { nemesis: _drawn, ...rest } = scenario;
  const params = scenario.workload.params;
  const nodes = workload.nodes(params);
  const rng = Rng.root(seed);
  const seedNodes = () => workload.seedNodes?.(params, rng) ?? [...nodes];
  const drawn = nemesisDef(nemesis.kind).draw({ rng, scenario: rest, nodes, seedNodes }, nemesis.params);
  return { ...rest, faults: [...scenario.faults, ...drawn] };
}
