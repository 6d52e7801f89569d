/**
 * A promise with its settling functions apart: what the kernel hands to user-level async code
 * (`ctx.deferred()`), whose continuations run at the virtual time it is settled. Recipes and
 * clients see only this shape, never the kernel's implementation.
 */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}
