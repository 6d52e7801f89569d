/**
 * The links cut right now, as "from>to", followed from the trace's `partition` and `heal`
 * events (their `links` field lists exactly the links each one changed).
 */
import type { TraceEvent } from "../sim/trace.js";
import { stringListField } from "./event-reader.js";

export class CutLinks {
  private readonly cut = new Set<string>();

  /** Takes a partition or heal event. Throws `MalformedEvent` on a bad `links`. */
  apply(e: TraceEvent<"partition" | "heal">): void {
    for (const l of stringListField(e, "links")) {
      if (e.kind === "partition") this.cut.add(l);
      else this.cut.delete(l);
    }
  }

  has(from: string, to: string): boolean {
    // Nearly always nothing is cut: then no key is built for the message.
    return this.cut.size > 0 && this.cut.has(`${from}>${to}`);
  }

  /** Every cut link, sorted. */
  list(): string[] {
    return [...this.cut].sort();
  }
}
