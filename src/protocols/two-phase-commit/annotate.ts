/** `ctx.annotate` held to the 2PC trace-event map (until the kernel's annotate is typed by kind). */
import type { NodeContext } from "../../sim/node-context.js";
import type { TwoPhaseCommitTraceEvents } from "./trace-events.js";

export function annotate2pc<K extends keyof TwoPhaseCommitTraceEvents>(ctx: NodeContext, kind: K, fields: TwoPhaseCommitTraceEvents[K]): void {
  ctx.annotate(kind, fields);
}
