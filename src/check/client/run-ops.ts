/**
 * One pairing of invocations with completions (`OpTable`) for the watch checkers of a run
 * (client.watches, client.server-watches, client.watch-triggers, client.watch-removal): each read
 * every `client.invoke` and `client.complete` into an `OpTable` of its own, four tables holding
 * the same open operations. In a run they share one (`RunServices.shared`: the run's services object is what `attach`
 * hands every checker of the run): the first of them handed an event pairs it, the others are
 * handed the same answer, and each gets in its own log what the table reported of that event (a
 * malformed event, a completion of nothing invoked), as its own table would have.
 *
 * Every reader of the shared table reads both kinds whole (no checker of these reads them by
 * filter), so the shared table sees what each own table saw, in the same order. A checker fed
 * by hand (never attached) has its own table.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { RunEnd } from "../checker.js";
import type { ViolationSink } from "../event-reader.js";
import { OpTable, type Completion, type Invocation } from "../history/client-events.js";
import type { RunServices } from "../check-run.js";

/** What a watch checker asks of its operations: `OpTable`'s pairing. */
export interface OpReader {
  invoke(e: TraceEvent<"client.invoke">): Invocation | undefined;
  complete(e: TraceEvent<"client.complete">): { inv: Invocation; done: Completion } | undefined;
}

/** The run's table, with its answer to the event read last and what it reported of it. */
class SharedOps {
  private readonly reported: { event: RunEnd; message: string }[] = [];
  private readonly table = new OpTable({ add: (event, message) => void this.reported.push({ event, message }) });
  private lastEvent: TraceEvent | undefined = undefined;
  private lastInvocation: Invocation | undefined = undefined;
  private lastCompletion: { inv: Invocation; done: Completion } | undefined = undefined;

  invoke(e: TraceEvent<"client.invoke">, log: ViolationSink): Invocation | undefined {
    if (e !== this.lastEvent) {
      this.begin(e);
      this.lastInvocation = this.table.invoke(e);
    }
    if (this.reported.length > 0) this.tell(log);
    return this.lastInvocation;
  }

  complete(e: TraceEvent<"client.complete">, log: ViolationSink): { inv: Invocation; done: Completion } | undefined {
    if (e !== this.lastEvent) {
      this.begin(e);
      this.lastCompletion = this.table.complete(e);
    }
    if (this.reported.length > 0) this.tell(log);
    return this.lastCompletion;
  }

  private begin(e: TraceEvent): void {
    this.lastEvent = e;
    this.lastInvocation = undefined;
    this.lastCompletion = undefined;
    if (this.reported.length > 0) this.reported.length = 0;
  }

  private tell(log: ViolationSink): void {
    for (const r of this.reported) log.add(r.event, r.message);
  }
}

/** A checker's view of the run's table: the answers, and the reports into its own log. */
class RunOpView implements OpReader {
  constructor(
    private readonly shared: SharedOps,
    private readonly log: ViolationSink,
  ) {}

  invoke(e: TraceEvent<"client.invoke">): Invocation | undefined {
    return this.shared.invoke(e, this.log);
  }

  complete(e: TraceEvent<"client.complete">): { inv: Invocation; done: Completion } | undefined {
    return this.shared.complete(e, this.log);
  }
}

/** The run's shared table as seen by the checker whose log is `log` (made by the first who asks). */
export function runOps(run: RunServices, log: ViolationSink): OpReader {
  return new RunOpView(run.shared(SharedOps, () => new SharedOps()), log);
}
