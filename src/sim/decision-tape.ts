/**
 * The decision tape: an optional observer and editor of a run's decision stream — the sequence
 * of draws every `Rng` stream makes (network delays, loss and duplicate draws, host shuffles,
 * workload and swarm choices). One tape is shared by a root `Rng` and all its forks.
 *
 * - It counts draws per stream. A stream is named by its `seedPath` ("zksim:7/net"); two `Rng`
 *   objects forked with the same path share one counter (their draws interleave
 *   deterministically, so indices stay reproducible).
 * - It holds simplification ranges `{ stream, from, to }`: draws `from ≤ i < to` (0-based,
 *   within that stream) return their kind's simplest value instead of the PRNG's (`Rng`
 *   defines them: no loss, no duplicate, minimal delay, lowest int, first item, identity
 *   shuffle).
 * - A simplified draw still advances the PRNG: later draws of the stream keep the values they
 *   had, so simplifying one range changes that range's decisions and nothing else directly
 *   (only through their effects on the run). That keeps shrinking local: ranges found
 *   separately compose, and a range's meaning does not depend on which others are kept.
 *
 * A tape with no ranges only counts: the run's values, and so its trace hash, are those of a
 * run without a tape.
 */
import { UserInputError } from "./errors.js";

/** Draws `from ≤ i < to` of `stream` (by `Rng.seedPath`) take their simplest values. */
export interface SimplifyRange {
  stream: string;
  from: number;
  to: number;
}

/** What one stream drew in a run with a tape. */
export interface StreamDraws {
  stream: string;
  draws: number;
  simplified: number;
}

/** One stream's counter and its ranges (sorted, merged); `Rng` holds it to skip a map lookup. */
export class TapeStream {
  draws = 0;
  simplified = 0;
  /** Index into `ranges` of the first range that may still contain the next draw. */
  private cursor = 0;

  constructor(
    readonly tape: DecisionTape,
    readonly name: string,
    private readonly ranges: readonly (readonly [number, number])[],
  ) {}

  /** The value of the next draw: `raw` (the PRNG's), or `simplest` inside a range. */
  decide(raw: number, simplest: number): number {
    const i = this.draws++;
    const ranges = this.ranges;
    // Draw indices only grow, so a cursor finds the covering range in amortised O(1).
    while (this.cursor < ranges.length && ranges[this.cursor]![1] <= i) this.cursor++;
    if (this.cursor < ranges.length && ranges[this.cursor]![0] <= i) {
      this.simplified++;
      return simplest;
    }
    return raw;
  }
}

export class DecisionTape {
  private readonly streams = new Map<string, TapeStream>();
  private readonly rangesByStream = new Map<string, [number, number][]>();

  constructor(simplify: readonly SimplifyRange[] = []) {
    for (const r of simplify) {
      if (!Number.isSafeInteger(r.from) || !Number.isSafeInteger(r.to) || r.from < 0 || r.to <= r.from) {
        throw new UserInputError(`simplify range ${JSON.stringify(r)}: need whole numbers 0 ≤ from < to`);
      }
      const list = this.rangesByStream.get(r.stream) ?? [];
      list.push([r.from, r.to]);
      this.rangesByStream.set(r.stream, list);
    }
    for (const [stream, list] of this.rangesByStream) this.rangesByStream.set(stream, mergeRanges(list));
  }

  /** The counter for `seedPath` (created on first use). */
  stream(seedPath: string): TapeStream {
    let s = this.streams.get(seedPath);
    if (s === undefined) {
      s = new TapeStream(this, seedPath, this.rangesByStream.get(seedPath) ?? []);
      this.streams.set(seedPath, s);
    }
    return s;
  }

  /** Draw counts so far of the streams that drew, in order of each stream's creation. */
  report(): StreamDraws[] {
    return [...this.streams.values()].filter((s) => s.draws > 0).map((s) => ({ stream: s.name, draws: s.draws, simplified: s.simplified }));
  }
}

/** `ranges` sorted by start, with overlapping and touching ranges merged. */
export function mergeRanges(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  for (const [from, to] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/** Simplification ranges in canonical form: by stream (sorted), ranges sorted and merged. */
export function normalizeSimplify(ranges: readonly SimplifyRange[]): SimplifyRange[] {
  const byStream = new Map<string, [number, number][]>();
  for (const r of ranges) {
    const list = byStream.get(r.stream) ?? [];
    list.push([r.from, r.to]);
    byStream.set(r.stream, list);
  }
  const streams = [...byStream.keys()].sort();
  return streams.flatMap((stream) => mergeRanges(byStream.get(stream)!).map(([from, to]) => ({ stream, from, to })));
}
