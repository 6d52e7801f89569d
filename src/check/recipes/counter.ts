/**
 * `recipe.counter`: no lost and no doubled increments, from `recipe.counter` annotations.
 *
 * - Every acknowledged (`ok`) increment produced a distinct value: two increments reporting
 *   the same resulting value means one overwrote the other (a lost update).
 * - The `final` read (taken with no increment in flight) lies between the sum of acknowledged
 *   increments and that sum plus the increments whose outcome stayed unknown
 *   (`unknown` and not later `resolved-ok`/`resolved-none`; `resolved-ok` counts as
 *   acknowledged, `resolved-none` as never applied). Above it: an increment counted twice
 *   (e.g. a blind retry after CONNECTIONLOSS); below it: an acknowledged increment lost.
 * - No acknowledged value exceeds the final value.
 * - An increment is settled (`resolved-ok`/`resolved-none`) only after its outcome was left
 *   `unknown`, once: a lost session's increment the recipe never announced as unknown leaves
 *   the bounds above without it until it is settled (the rule demands its own input).
 */
import type { Checker, Violation } from "../checker.js";
import { ViolationLog, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded, intField, optionalIntField, stringField } from "../event-reader.js";

interface CounterHistory {
  acked: number;
  unknown: Map<string, number>;
  values: Map<number, string>;
  maxValue: number;
}

const KINDS = ["recipe.counter"] as const;
type Kind = KindsOf<typeof KINDS>;

export class CounterChecker implements Checker<Kind> {
  readonly name = "recipe.counter";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly counters = new Map<string, CounterHistory>();

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    const name = stringField(e, "counter");
    const event = stringField(e, "event");
    const c = this.counter(name);
    if (event === "final") return this.onFinal(e, name, c, intField(e, "value"));
    if (event !== "increment") return;
    const id = `${stringField(e, "client")}#${intField(e, "n")}`;
    const delta = optionalIntField(e, "delta") ?? 1;
    switch (stringField(e, "outcome")) {
      case "ok": {
        const value = intField(e, "value");
        const other = c.values.get(value);
        if (other !== undefined) this.log.add(e, `lost update on ${name}: increments ${other} and ${id} both report producing value ${value}`);
        c.values.set(value, id);
        c.maxValue = Math.max(c.maxValue, value);
        c.acked += delta;
        return;
      }
      case "unknown":
        c.unknown.set(id, delta);
        return;
      case "resolved-ok":
        this.settle(e, name, c, id);
        c.acked += delta;
        return;
      case "resolved-none":
        this.settle(e, name, c, id);
        return;
      default:
        return;
    }
  }

  private settle(e: TraceEvent, name: string, c: CounterHistory, id: string): void {
    if (!c.unknown.delete(id)) this.log.add(e, `${name}: increment ${id} is settled, but its outcome was never announced unknown (a lost session's increment must be, before it is settled)`);
  }

  private onFinal(e: TraceEvent, name: string, c: CounterHistory, value: number): void {
    const unknown = [...c.unknown.values()].reduce((a, b) => a + b, 0);
    if (value > c.acked + unknown) {
      this.log.add(e, `${name} reads ${value}, more than the ${c.acked} acknowledged increments plus ${unknown} of unknown outcome: some increment was applied twice (a blind retry after CONNECTIONLOSS?)`);
    }
    if (value < c.acked) this.log.add(e, `${name} reads ${value}, fewer than the ${c.acked} acknowledged increments: an acknowledged increment was lost`);
    if (c.maxValue > value) this.log.add(e, `${name} reads ${value}, but an increment reported producing ${c.maxValue}`);
  }

  private counter(name: string): CounterHistory {
    let c = this.counters.get(name);
    if (c === undefined) {
      c = { acked: 0, unknown: new Map(), values: new Map(), maxValue: 0 };
      this.counters.set(name, c);
    }
    return c;
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
