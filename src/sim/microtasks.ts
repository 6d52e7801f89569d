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

const SETTLED: Promise<void> = Promise.resolve();

/** What a `driveWithBarriers` step returns to ask for a barrier before its next call. */
export const BARRIER: unique symbol = Symbol("barrier");

/**
 * Runs `step` from microtasks until it returns a result. When it returns `BARRIER`, the next
 * call comes only after every pending continuation has run: a nextTick scheduled from inside
 * a microtask, then a fresh microtask (the same barrier as `drainMicrotasks`, without a
 * promise and an await per barrier — the run loop takes one per event that resolved a user
 * promise). A step that throws rejects the returned promise.
 */
export function driveWithBarriers<T>(step: () => T | typeof BARRIER): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const turn = (): void => {
      let result: T | typeof BARRIER;
      try {
        result = step();
      } catch (err) {
        reject(err);
        return;
      }
      if (result === BARRIER) process.nextTick(afterBarrier);
      else resolve(result);
    };
    // A settled promise's `then` queues the microtask: `queueMicrotask` would wrap every turn
    // in an AsyncResource, a measurable cost at one barrier per client operation.
    const afterBarrier = (): void => void SETTLED.then(turn);
    void SETTLED.then(turn);
  });
}
