/**
 * The heap guard: a run watches its own heap and stops itself, with one line that names what
 * grew, before V8 would abort the process ("JavaScript heap out of memory", a stack dump and no
 * verdict).
 *
 * The probe (by default the bytes in use in the whole heap, against 90% of the old
 * generation's limit) is the one input from outside the simulation a run reads, and it can only
 * stop the run: it never changes an event, a draw or a verdict of a run that finishes. It is
 * read through the run loop's stop predicate (a few microseconds each time), every
 * `everyEvents` events while the heap is far from the limit and more often as it nears it: the
 * next probe comes after the events that could fill what is left at `BYTES_PER_EVENT` each, and
 * never fewer than `MIN_EVERY_EVENTS` apart. A fixed 8,192 let a small heap fill between two
 * probes: `soak-tree-100k` leaves about 3 KB an event live (its five replicas of a growing tree),
 * so at `--max-old-space-size=40` V8 gave up after some 7,700 events, before the first probe.
 * (The determinism lint exempts this file: it reads V8's heap and its flags.)
 *
 * Why the old generation: V8 gives up ("JavaScript heap out of memory") when its old
 * generation cannot grow past `--max-old-space-size`. `heap_size_limit` is that plus the young
 * generation's reservation (three semi-spaces: 48 MB by default, 192 MB with zksim's
 * `--max-semi-space-size=64`), so a guard against 90% of `heap_size_limit` never fired on a
 * small heap: 90% of 40 + 192 MB is more than the 40 MB the old generation may hold. And the
 * young generation counts: what survives a scavenge moves to the old generation, so V8 gives up
 * ("scavenge might not succeed") once old and live young objects together pass the old limit.
 * Counting the young generation's garbage too errs on the side of stopping early on a small
 * heap; on the default heap (4 GB) the young generation is a few per cent of it.
 */
import { isMainThread, resourceLimits } from "node:worker_threads";
import { getHeapStatistics } from "node:v8";

export interface HeapGuardOptions {
  /** Bytes of heap in use now. */
  usedBytes: () => number;
  /** The run stops when `usedBytes()` exceeds this. */
  limitBytes: number;
  /** Most events between two probes (default 8,192: a probe costs a few microseconds). */
  everyEvents?: number;
}

const DEFAULT_EVERY_EVENTS = 8192;
/** Fewest events between two probes, however near the limit: 256 probes cost ~1% of a run. */
const MIN_EVERY_EVENTS = 256;
/**
 * Heap one event may be assumed to add, to space the probes by what is left below the limit:
 * `soak-tree-100k` adds about 5 KB an event counting the young generation's garbage (3 KB live);
 * 8 KB errs on the side of probing early.
 */
const BYTES_PER_EVENT = 8192;

/** Of the heap's limit, the share a run may use before the guard stops it. */
export const HEAP_GUARD_SHARE = 0.9;

export function defaultHeapGuard(): HeapGuardOptions {
  return { usedBytes: heapUsedBytes, limitBytes: HEAP_GUARD_SHARE * oldGenerationLimitBytes() };
}

const MB = 1 << 20;

/** Bytes in use in the whole heap, the young generation's included (see defaultHeapGuard). */
export function heapUsedBytes(): number {
  return getHeapStatistics().used_heap_size;
}

/**
 * The old generation's limit: a worker thread knows it (`resourceLimits`); the main thread's
 * is `heap_size_limit` less the young generation's reservation, three times the largest
 * semi-space (V8's default 16 MB, or the last `--max-semi-space-size` given to node, on its
 * command line or in NODE_OPTIONS).
 */
export function oldGenerationLimitBytes(nodeOptions: string = process.env.NODE_OPTIONS ?? ""): number {
  if (!isMainThread && resourceLimits.maxOldGenerationSizeMb !== undefined) return resourceLimits.maxOldGenerationSizeMb * MB;
  const total = getHeapStatistics().heap_size_limit;
  const semiSpaceMb = lastSemiSpaceFlag([...nodeOptions.split(/\s+/), ...process.execArgv]) ?? 16;
  const old = total - 3 * semiSpaceMb * MB;
  return old > 0 ? old : total;
}

/** The value of the last `--max-semi-space-size N` (or `=N`, or with underscores) among `args`. */
export function lastSemiSpaceFlag(args: readonly string[]): number | undefined {
  let mb: number | undefined;
  args.forEach((a, i) => {
    const m = /^--max[-_]semi[-_]space[-_]size(?:=(\d+))?$/.exec(a);
    if (m === null) return;
    const value = Number(m[1] ?? args[i + 1]);
    if (Number.isFinite(value) && value > 0) mb = value;
  });
  return mb;
}

/** The error a guarded run stops with: its message is the whole report (no stack wanted). */
export class HeapLimitError extends Error {
  override readonly name = "HeapLimitError";
}

export class HeapGuard {
  private countdown: number;
  /** Set when the guard stopped the run: the heap in use then. */
  trippedAtBytes: number | undefined;

  constructor(private readonly options: HeapGuardOptions) {
    this.countdown = 1; // the first event probes: a setup may have used most of a small heap
  }

  /** The run loop's stop predicate: true (once) when the heap is over the limit. */
  readonly overLimit = (): boolean => {
    if (--this.countdown > 0) return false;
    return this.probe();
  };

  /** Probes now: true (and the heap in use remembered) when it is over the limit; else sets when to probe next. */
  probe(): boolean {
    const used = this.options.usedBytes();
    if (used <= this.options.limitBytes) {
      this.countdown = eventsUntilNextProbe(this.options.limitBytes - used, this.options.everyEvents ?? DEFAULT_EVERY_EVENTS);
      return false;
    }
    this.trippedAtBytes = used;
    return true;
  }

  get limitBytes(): number {
    return this.options.limitBytes;
  }
}

/** Events before the next probe with `headroomBytes` left below the limit: at most `everyEvents`. */
export function eventsUntilNextProbe(headroomBytes: number, everyEvents: number): number {
  const fill = Math.floor(headroomBytes / BYTES_PER_EVENT);
  return Math.min(everyEvents, Math.max(MIN_EVERY_EVENTS, fill));
}

export function formatBytes(n: number): string {
  return n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(1)} GB` : `${(n / (1 << 20)).toFixed(0)} MB`;
}

/**
 * How many entries a checker's collections hold: its own `retained()` when it has one, else the
 * entries of the Maps, Sets and arrays reachable from its fields (a few levels deep, each
 * object once, at most `budget` visits). Read once, when the guard has stopped a run.
 */
export function itemsHeld(holder: object & { retained?(): number }, budget = 5_000_000): number {
  if (holder.retained !== undefined) return holder.retained();
  const seen = new Set<object>();
  let visits = 0;
  const count = (x: unknown, depth: number): number => {
    if (typeof x !== "object" || x === null || depth > 3 || seen.has(x) || ++visits > budget) return 0;
    seen.add(x);
    let n = 0;
    if (x instanceof Map) for (const v of x.values()) n += 1 + count(v, depth + 1);
    else if (x instanceof Set || Array.isArray(x)) for (const v of x) n += 1 + count(v, depth + 1);
    else if (depth === 0) for (const v of Object.values(x)) n += count(v, depth + 1);
    return n;
  };
  return count(holder, 0);
}
