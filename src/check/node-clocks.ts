/**
 * Each node's local clock, followed from the trace's `clock` events ({rate}: the node's clock
 * runs `rate` times as fast as true time from then on; every node starts at rate 1). A node's
 * timeouts are measured on its own clock, so a checker that bounds "how long a server waited"
 * must measure on that clock too: `elapsedLocalUs(node, fromUs, toUs)`.
 */
import type { TraceEvent } from "../sim/trace.js";
import { numberField } from "./event-reader.js";

interface Segment {
  /** True time (µs) this rate took effect. */
  fromUs: number;
  rate: number;
}

export class NodeClocks {
  /** Per node, its rate changes in time order (nodes never skewed have none). */
  private readonly segments = new Map<string, Segment[]>();

  /** Takes a `clock` event. Throws `MalformedEvent` on a bad rate. */
  apply(e: TraceEvent<"clock">): void {
    const rate = numberField(e, "rate");
    let list = this.segments.get(e.node);
    if (list === undefined) this.segments.set(e.node, (list = []));
    list.push({ fromUs: e.atUs, rate });
  }

  /** How much time `node`'s own clock counted between the true times `fromUs` ≤ `toUs`. */
  elapsedLocalUs(node: string, fromUs: number, toUs: number): number {
    const list = this.segments.get(node);
    if (list === undefined) return toUs - fromUs;
    let total = 0;
    let rate = 1;
    let at = fromUs;
    for (const s of list) {
      if (s.fromUs <= fromUs) {
        rate = s.rate;
        continue;
      }
      if (s.fromUs >= toUs) break;
      total += (s.fromUs - at) * rate;
      at = s.fromUs;
      rate = s.rate;
    }
    return total + (toUs - at) * rate;
  }
}
