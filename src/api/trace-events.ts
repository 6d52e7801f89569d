/**
 * The public API's trace annotation, as a type: `user.event`, what a user's own code records
 * ("I hold the lock", "I wrote X with token T") through `ClientNode.record`, beside everything the
 * simulator records itself. User-defined checkers (`defineChecker`) read it from the trace like
 * the recipe checkers read `recipe.*`. Added to the kernel's schema by module augmentation
 * (sim/trace-schema.ts); docs/trace.md describes it. Types only.
 */
import "../sim/trace-schema.js";

/** A JSON value a user event may carry. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

declare module "../sim/trace-schema.js" {
  interface TraceAnnotations {
    /** A user's own event: its `name`, the client node that recorded it, and its JSON `data`. */
    "user.event": { name: string; client: string; data: { readonly [key: string]: JsonValue } };
    /** A state a user's script reached (`world.label("took-lock")`), counted by a property's coverage report. */
    "user.label": { name: string };
  }
}
