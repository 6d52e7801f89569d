/**
 * A check target: a small world to search — a stepper adapter (its world, its checkers), a seed
 * and variant, the setup that brings it to where the search starts (client requests), which
 * nodes faults may strike, the checkers that judge the end of a path (liveness), and the
 * default bounds. The catalogue of named targets is targets.ts.
 *
 * The world is the one `zksim learn` runs, so a counterexample is a learn session.
 */
import type { Checker } from "../check/checker.js";
import type { Action, ProtocolAdapter, World } from "../stepper/types.js";
import type { SearchBounds } from "./bounds.js";
import type { StateOf } from "./world-state.js";

export interface CheckTarget {
  name: string;
  /** One line: what is searched and what it shows. */
  description: string;
  adapter: ProtocolAdapter<World>;
  seed: number;
  variant: string;
  /** Actions applied once the world is ready; `--from start` leaves them out. */
  setup: readonly Action[];
  /**
   * Client requests the search may make at any step, in this order, each once; the ones a path
   * has not made by its end are made after the hold (while the faults are still in force).
   */
  requests?: readonly Action[];
  /** Nodes a crash or a cut may strike. */
  faultable: readonly string[];
  /** Checkers that judge a whole path at its end (liveness), besides the adapter's live ones. */
  endCheckers: () => Checker[];
  /** What a node's state is for the state hash (default: its process). */
  stateOf?: StateOf;
  /** Groups of interchangeable nodes (same code, same configuration): symmetric states are one. */
  symmetry?: readonly (readonly string[])[];
  /** The world reads the clock (leases, session timeouts): independence is narrower then. */
  clockSensitive: boolean;
  bounds: SearchBounds;
  /**
   * The broken variant of this world the search must catch, the checker that catches it, and
   * any bounds it needs beyond the target's (searched until the first violation).
   */
  canary?: { variant: string; checker: string; bounds?: Partial<SearchBounds> };
}
