/**
 * `clusterArbitrary`: generated ZooKeeper deployments, as the parameters the "zk" workload takes
 * (`servers`, `observers`, `tickTimeMs`, `initLimitTicks`, `syncLimitTicks`): a standalone
 * server or an ensemble of 3 or 5 voters, optionally with observers, and timing within sane
 * bounds (ZooKeeper's own defaults are tickTime 2000, initLimit 10, syncLimit 5).
 *
 * Shrinks toward the smallest ensemble allowed, no observers, and the default timing.
 */
import fc from "fast-check";

export interface ClusterParams {
  /** Voters: 1 is a standalone server. */
  servers: number;
  observers: number;
  tickTimeMs: number;
  initLimitTicks: number;
  syncLimitTicks: number;
}

export interface ClusterOptions {
  /** Voter counts to draw from, smallest first (default [1, 3, 5]). */
  sizes?: readonly (1 | 3 | 5)[];
  /** At most this many observers on an ensemble (default 1; standalone servers have none). */
  maxObservers?: number;
  /** tickTimeMs bounds (default [500, 2000]). */
  tickTimeMs?: { min: number; max: number };
}

/** The most server nodes (voters + observers) `clusterArbitrary(options)` generates. */
export function maxServerNodes(options: ClusterOptions = {}): number {
  return Math.max(...(options.sizes ?? [1, 3, 5])) + (options.maxObservers ?? 1);
}

export function clusterArbitrary(options: ClusterOptions = {}): fc.Arbitrary<ClusterParams> {
  const sizes = options.sizes ?? [1, 3, 5];
  const maxObservers = options.maxObservers ?? 1;
  const tick = options.tickTimeMs ?? { min: 500, max: 2000 };
  if (sizes.length === 0 || sizes.some((n) => n !== 1 && n !== 3 && n !== 5)) throw new RangeError(`clusterArbitrary: sizes must be a non-empty list of 1, 3, 5, got ${JSON.stringify(sizes)}`);
  if (!Number.isInteger(maxObservers) || maxObservers < 0 || maxObservers > 4) throw new RangeError(`clusterArbitrary: maxObservers must be an integer in [0, 4], got ${maxObservers}`);
  if (!(Number.isInteger(tick.min) && Number.isInteger(tick.max) && 100 <= tick.min && tick.min <= tick.max && tick.max <= 10_000)) {
    throw new RangeError(`clusterArbitrary: tickTimeMs must be integers with 100 ≤ min ≤ max ≤ 10000, got ${JSON.stringify(tick)}`);
  }
  // Shrinking moves toward the first value of each, and the tick toward 2000 ms (clamped to the
  // bounds): fast-check shrinks an integer toward 0, so the tick is drawn as an offset from it.
  const defaultTick = Math.min(Math.max(2000, tick.min), tick.max);
  return fc
    .record({
      servers: fc.constantFrom(...sizes),
      observers: fc.integer({ min: 0, max: maxObservers }),
      tickOffsetMs: fc.integer({ min: tick.min - defaultTick, max: tick.max - defaultTick }),
      initLimitTicks: fc.constantFrom(10, 5, 20),
      syncLimitTicks: fc.constantFrom(5, 2, 10),
    })
    .map(({ servers, observers, tickOffsetMs, initLimitTicks, syncLimitTicks }) => ({
      servers,
      observers: servers === 1 ? 0 : observers,
      tickTimeMs: defaultTick + tickOffsetMs,
      initLimitTicks,
      syncLimitTicks,
    }));
}
