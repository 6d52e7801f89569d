/**
 * Workloads are named, parameterised pieces of a scenario that build nodes on the simulator and
 * drive them (FoundationDB's "workloads", Maelstrom's client + generator). Checkers are named
 * too; a scenario lists the ones it runs. Both are found by name in the registry (registry.ts).
 */
import type { Simulator } from "../sim/simulator.js";
import type { AnyCanary, Scenario } from "./types.js";
import { UserInputError } from "../sim/errors.js";
import type { TraceRoles } from "../sim/fault-triggers.js";
import type { Rng } from "../sim/rng.js";
import type { CoverageDef } from "./coverage.js";

export interface WorkloadContext {
  sim: Simulator;
  scenario: Scenario;
  params: Record<string, unknown>;
  canary?: AnyCanary;
  /** Historical ZooKeeper defects to re-inject (`--bug`). */
  bugs?: readonly string[];
  /** Violations found by the workload itself (scenario expectations, a script that is stuck). */
  report(checker: string, message: string): void;
}

export interface Workload {
  /** Adds and starts nodes, schedules traffic. Runs at virtual time 0. */
  setup(): void;
  /** Called after the run's time is up (heal-then-check phases go here). */
  finish?(): Promise<void>;
  /** Narrated lines for the run summary. */
  narrative?(): string[];
}

export interface WorkloadDef {
  kind: string;
  description: string;
  /** Validates params (throwing UserInputError) and returns the node names the workload creates. */
  nodes(params: Record<string, unknown>): string[];
  /**
   * The nodes seed `root` creates, when the seed draws the shape (a swarm): a subset of `nodes`.
   * A nemesis reads it to draw faults only over nodes that exist (default: `nodes`).
   */
  seedNodes?(params: Record<string, unknown>, root: Rng): string[];
  /** The checkers a scenario runs when it names none (may depend on the parameters). */
  defaultCheckers(params: Record<string, unknown>): string[];
  create(ctx: WorkloadContext): Workload;
  /** Roles a fault schedule may name (`$leader`), as the trace shows them (none by default). */
  traceRoles?: TraceRoles;
  /** The protocol states a sweep reports reaching, and the node classes of its fault features (scenario/coverage.ts). */
  coverage?: CoverageDef;
  /** Variants taken as the `variant` parameter (`--variant` on a workload without a script). */
  variants?: readonly string[];
  /**
   * The virtual time of the last input the parameters record (a served session's frames), which
   * the run must reach: a scenario whose `durationMs` ends before it is refused, and `zksim
   * shrink` never shortens a run below it.
   */
  lastInputUs?(params: Record<string, unknown>): number;
  /**
   * Parts of the parameters `zksim shrink` may remove as wholes (a recorded serve session's
   * connections): `list` names them, `keep` returns the parameters with only the named ones.
   */
  removableParts?: {
    what: string;
    list(params: Record<string, unknown>): string[];
    keep(params: Record<string, unknown>, kept: readonly string[]): Record<string, unknown>;
  };
}

/** Reads an integer parameter with bounds, or its default. */
export function intParam(params: Record<string, unknown>, key: string, dflt: number, min: number, max: number): number {
  const v = params[key];
  if (v === undefined) return dflt;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw new UserInputError(`workload.${key}: expected an integer in [${min}, ${max}], got ${JSON.stringify(v)}`);
  }
  return v;
}
