/**
 * `recipe.barrier`: barrier semantics, from `recipe.barrier` annotations and session facts.
 *
 * - Simple barrier: a waiter passes only if the barrier was lowered after the last raise that
 *   completed before it began waiting (`wait` → `passed` with no `lowered` since that raise is
 *   a violation).
 * - Double barrier, enter: a process is released (`entered`) only once `size` distinct
 *   processes have joined (`enter`).
 * - Double barrier, leave: a process finishes leaving (`left`) only when every process that
 *   entered has begun to leave (`leave`), its session has ended, or its node has crashed —
 *   nobody walks out while another is still computing.
 */
import type { Checker, Violation } from "../checker.js";
import { ViolationLog } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { SessionFates } from "./sessions.js";

interface BarrierHistory {
  lastRaisedUs: number;
  lastLoweredUs: number;
  waitingSince: Map<string, number>;
  joined: Set<string>;
  inside: Map<string, string>;
}

export class BarrierChecker implements Checker {
  readonly name = "recipe.barrier";
  private readonly log = new ViolationLog(this.name);
  private readonly fates = new SessionFates();
  private readonly barriers = new Map<string, BarrierHistory>();

  accepts(kind: string): boolean {
    return kind === "recipe.barrier" || SessionFates.reads(kind);
  }

  onEvent(e: TraceEvent): void {
    const fate = this.fates.onEvent(e);
    if (fate !== undefined) {
      for (const b of this.barriers.values()) {
        for (const [client, session] of [...b.inside]) if (fate.kind === "session-ended" ? session === fate.session : client === fate.client) b.inside.delete(client);
      }
      return;
    }
    if (e.kind !== "recipe.barrier" || e.fields === undefined) return;
    const f = e.fields;
    const name = String(f.barrier);
    const b = this.barrier(name);
    const client = String(f.client);
    switch (f.event) {
      case "raised":
        b.lastRaisedUs = e.atUs;
        return;
      case "lowered":
        b.lastLoweredUs = e.atUs;
        return;
      case "wait":
        b.waitingSince.set(client, b.lastRaisedUs);
        return;
      case "passed": {
        const raisedUs = b.waitingSince.get(client) ?? -1;
        if (raisedUs >= 0 && b.lastLoweredUs < raisedUs) this.log.add(e, `${client} passed barrier ${name}, which was raised and has not been lowered since`);
        return;
      }
      case "enter":
        b.joined.add(client);
        return;
      case "entered":
        if (b.joined.size < Number(f.size)) this.log.add(e, `${client} entered double barrier ${name} with only ${b.joined.size} of ${String(f.size)} processes joined`);
        b.inside.set(client, String(f.session));
        return;
      case "leave":
        b.inside.delete(client);
        return;
      case "left": {
        const still = [...b.inside.keys()].filter((c) => c !== client);
        if (still.length > 0) this.log.add(e, `${client} left double barrier ${name} while ${still.join(", ")} had entered and not begun to leave (sessions alive)`);
        return;
      }
      default:
        return;
    }
  }

  private barrier(name: string): BarrierHistory {
    let b = this.barriers.get(name);
    if (b === undefined) {
      b = { lastRaisedUs: -1, lastLoweredUs: -1, waitingSince: new Map(), joined: new Set(), inside: new Map() };
      this.barriers.set(name, b);
    }
    return b;
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
