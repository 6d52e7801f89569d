/**
 * The heap guard's hook inside one event (src/scenario/heap-guard.ts): a run's guard probes
 * the heap between events, but one event can do much work — a linearizability search at a
 * window's cut fills a memo of tens of megabytes — and V8 gives up on a small heap before the
 * next probe. Such loops call `pollHeap()` now and then; while a guarded run is on, it probes
 * and throws the guard's error when the heap is over its limit. It never changes a result: it
 * can only stop the run.
 */
let poll: (() => void) | undefined;

/** Installs `f` as the poll for the duration of a run; returns the one it replaced (restore it after). */
export function setHeapPoll(f: (() => void) | undefined): (() => void) | undefined {
  const before = poll;
  poll = f;
  return before;
}

/** Probes the heap if a guarded run is on (throws its error when over the limit). */
export function pollHeap(): void {
  poll?.();
}
