/**
 * The one place the kernel yields to the host: after an event that resolved a user-level
 * promise, the run loop must let every promise continuation (and the continuations they
 * create) run at the current virtual time before it takes the next event.
 *
 * How: Node's `processTicksAndRejections` drains the *whole* V8 microtask queue before it runs
 * `process.nextTick` callbacks again. The run loop always resumes inside a microtask (it
 * enters one with `enterMicrotask` first), so a nextTick callback scheduled from there fires
 * only once every pending continuation — however long its chain — has run. That is the barrier
 * we need, without a macrotask (a libuv loop turn costs several microseconds per event).
 *
 * This file is exempt from the determinism lint: it reads no time and chooses nothing.
 */
export function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => process.nextTick(resolve));
}

/** Moves the caller into a microtask, where `drainMicrotasks` is a complete barrier. */
export async function enterMicrotask(): Promise<void> {
  await null;
}
