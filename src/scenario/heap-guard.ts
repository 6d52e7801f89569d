/**
 * The heap guard: a run watches its own heap and stops itself, with one line that names what
 * grew, before V8 would abort the process ("JavaScript heap out of memory", a stack dump and no
 * verdict).
 *
 * The probe (by default V8's own count of used heap bytes, against 90% of the heap's limit) is
 * the one input from outside the simulation a run reads, and it can only stop the run: it
 * never changes an event, a draw or a verdict of a run that finishes. It is read every
 * `everyEvents` events (a few microseconds each time), through the run loop's stop predicate.
 */
import { getHeapStatistics } from "node:v8";

export interface HeapGuardOptions {
  /** Bytes of heap in use now. */
  usedBytes: () => number;
  /** The run stops when `usedBytes()` exceeds this. */
  limitBytes: number;
  /** Events between two probes (default 65 536). */
  everyEvents?: number;
}

/** Of the heap's limit, the share a run may use before the guard stops it. */
export const HEAP_GUARD_SHARE = 0.9;

export function defaultHeapGuard(): HeapGuardOptions {
  return { usedBytes: () => getHeapStatistics().used_heap_size, limitBytes: HEAP_GUARD_SHARE * getHeapStatistics().heap_size_limit };
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
    this.countdown = options.everyEvents ?? 65_536;
  }

  /** The run loop's stop predicate: true (once) when the heap is over the limit. */
  readonly overLimit = (): boolean => {
    if (--this.countdown > 0) return false;
    this.countdown = this.options.everyEvents ?? 65_536;
    const used = this.options.usedBytes();
    if (used <= this.options.limitBytes) return false;
    this.trippedAtBytes = used;
    return true;
  };

  get limitBytes(): number {
    return this.options.limitBytes;
  }
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
