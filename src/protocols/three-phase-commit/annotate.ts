/** `ctx.annotate` held to the 3PC trace-event map (until the kernel's annotate is typed by kind). */
import type { NodeContext } from "../../sim/node-context.js";
import type { ThreePhaseCommitTraceEvents } from "./trace-events.js";

export function annotate3pc<K extends keyof ThreePhaseCommitTraceEvents>(ctx: NodeContext, kind: K, fields: ThreePhaseCommitTraceEvents[K]): void {
  ctx.annotate(kind, fields);
}
