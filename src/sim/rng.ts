/**
 * Named random streams forked from one root seed (the determinism contract).
 *
 * Every component draws from its own stream — `rng.fork("net")`, `rng.fork("client-3")` —
 * so that adding a draw in one component never shifts the draws of another. A stream's seed
 * is derived from its parent's seed and its name only (not from how many draws the parent
 * made), so forking is order-independent too.
 *
 * Algorithm: seedrandom's Alea (fast, 32-bit output, good statistical quality for simulation).
 */
import seedrandom from "seedrandom";

export class Rng {
  private readonly prng: seedrandom.PRNG;

  constructor(readonly seedPath: string) {
    this.prng = seedrandom.alea(seedPath);
  }

  /** A root stream for a numeric or string seed. */
  static root(seed: number | string): Rng {
    return new Rng(`zksim:${seed}`);
  }

  /** An independent child stream named `name`. */
  fork(name: string): Rng {
    return new Rng(`${this.seedPath}/${name}`);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.prng();
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.prng() * (hi - lo + 1));
  }

  /** True with probability p. Draws nothing when p ≤ 0 or p ≥ 1, so a zero rate costs no draw. */
  chance(p: number): boolean {
    if (p <= 0) return false;
    if (p >= 1) return true;
    return this.prng() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("Rng.pick: empty list");
    return items[Math.floor(this.prng() * items.length)]!;
  }

  /** Fisher–Yates shuffle into a new array. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.prng() * (i + 1));
      const tmp = out[i]!;
      out[i] = out[j]!;
      out[j] = tmp;
    }
    return out;
  }

  /** A 32-bit unsigned integer (for deriving sub-seeds). */
  uint32(): number {
    return this.prng.int32() >>> 0;
  }
}
