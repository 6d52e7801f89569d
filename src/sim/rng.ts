/**
 * Named random streams forked from one root seed (the determinism contract).
 *
 * Every component draws from its own stream — `rng.fork("net")`, `rng.fork("client-3")` —
 * so that adding a draw in one component never shifts the draws of another. A stream's seed
 * is derived from its parent's seed and its name only (not from how many draws the parent
 * made), so forking is order-independent too.
 *
 * Every draw goes through `draw`, which consults the optional decision tape
 * (decision-tape.ts) shared by a root and all its forks: with a tape, a draw may take its
 * kind's simplest value — `next()` 0 (minimal delay), `int(lo, hi)` lo, `chance(p)` false (no
 * loss, no duplicate, no fault), `pick` the first item, `shuffle` the identity order, `uint32`
 * 0 — which is what `zksim shrink` uses to minimise a run's decisions. The PRNG advances on
 * every draw, simplified or not. Without a tape a draw costs one `undefined` check more than a
 * bare PRNG call and returns exactly the PRNG's value.
 *
 * Algorithm: seedrandom's Alea (fast, 32-bit output, good statistical quality for simulation).
 */
import seedrandom from "seedrandom";
import type { DecisionTape, TapeStream } from "./decision-tape.js";

/**
 * The largest double below 1: the simplest draw for `chance` (`TOP < p` is false for every
 * p < 1) and `shuffle` (`floor(TOP * (i + 1)) === i`, so each element stays in place).
 */
const TOP = 1 - 2 ** -53;

export class Rng {
  private readonly prng: seedrandom.PRNG;
  /** This stream's counter on the tape, when a tape is attached. */
  private readonly tapeStream: TapeStream | undefined;
  /** Draws taken so far: with `seedPath`, the stream's whole state (the model checker hashes it). */
  private drawCount = 0;

  constructor(
    readonly seedPath: string,
    tape?: DecisionTape,
  ) {
    this.prng = seedrandom.alea(seedPath);
    this.tapeStream = tape?.stream(seedPath);
  }

  /** A root stream for a numeric or string seed (and the tape its forks share, if any). */
  static root(seed: number | string, tape?: DecisionTape): Rng {
    return new Rng(`zksim:${seed}`, tape);
  }

  /** An independent child stream named `name` (on the same tape). */
  fork(name: string): Rng {
    return new Rng(`${this.seedPath}/${name}`, this.tapeStream?.tape);
  }

  /** How many draws this stream has given: the same path and count mean the same next draw. */
  get draws(): number {
    return this.drawCount;
  }

  /** Uniform in [0, 1). Simplest: 0. */
  next(): number {
    return this.draw(0);
  }

  /** Uniform integer in [lo, hi] (inclusive). Simplest: lo. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.draw(0) * (hi - lo + 1));
  }

  /**
   * True with probability p. Draws nothing when p ≤ 0 or p ≥ 1, so a zero rate costs no draw.
   * Simplest: false.
   */
  chance(p: number): boolean {
    if (p <= 0) return false;
    if (p >= 1) return true;
    return this.draw(TOP) < p;
  }

  /** Simplest: the first item. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("Rng.pick: empty list");
    return items[Math.floor(this.draw(0) * items.length)]!;
  }

  /** Fisher–Yates shuffle into a new array. Simplest: each element stays (identity order). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.draw(TOP) * (i + 1));
      const tmp = out[i]!;
      out[i] = out[j]!;
      out[j] = tmp;
    }
    return out;
  }

  /**
   * A 32-bit unsigned integer (for deriving sub-seeds). Simplest: 0. Alea's draws are
   * multiples of 2^-32, so this is exactly Alea's own `int32() >>> 0`.
   */
  uint32(): number {
    return Math.floor(this.draw(0) * 0x1_0000_0000);
  }

  /**
   * The one gate every draw passes: a uniform in [0, 1) from the PRNG, which a tape may replace
   * with `simplest`, the raw value that gives the draw kind's simplest result. The PRNG is
   * called either way, so the stream advances alike whether or not a draw is simplified.
   * (The PRNG call lives here rather than in each caller: measured, that is as fast as a bare
   * PRNG call, while passing the raw value in as an argument cost ~10% per draw.)
   */
  private draw(simplest: number): number {
    this.drawCount++;
    const u = this.prng();
    const s = this.tapeStream;
    return s === undefined ? u : s.decide(u, simplest);
  }
}
