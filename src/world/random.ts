/**
 * A named random stream: every component draws from its own (`rng.fork("snapshot")`), so a
 * draw added in one never shifts another's. The simulator's streams derive from the run's seed
 * (sim/rng.ts), so a run repeats draw for draw.
 */
export interface RandomStream {
  /** An independent child stream named `name`. */
  fork(name: string): RandomStream;
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy. */
  shuffle<T>(items: readonly T[]): T[];
  /** A 32-bit unsigned integer (for deriving sub-seeds). */
  uint32(): number;
}
