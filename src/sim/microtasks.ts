/**
 * The one place the kernel yields to the host event loop: after an event that resolved a
 * user-level promise, the run loop waits for one macrotask so that every promise
 * continuation (and the continuations they schedule) runs at the current virtual time.
 * A macrotask costs about a microsecond, so it is paid only when needed, never per event.
 *
 * This file is exempt from the determinism lint: `setImmediate` here does not read time and
 * does not choose anything — it only lets the microtask queue empty.
 */
export function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
