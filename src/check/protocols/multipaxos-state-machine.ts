/**
 * `multipaxos.state-machine-safety`: every replica applies the same command in each slot
 * (`multipaxos.apply`), in every incarnation — a restarted replica that applies the log again
 * must apply what everyone applied. Replicated state machines agree because their logs do.
 */
import { ViolationLog, type Checker, type RunEnd, type Violation } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { checked, guarded, intField, stringField } from "../event-reader.js";

export class MultiPaxosStateMachineChecker implements Checker {
  readonly name = "multipaxos.state-machine-safety";
  readonly log = new ViolationLog(this.name);
  private readonly applied = new Map<number, { command: string; node: string }>();

  accepts(kind: string): boolean {
    return kind === "multipaxos.apply";
  }

  onEvent(e: TraceEvent): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent): void {
    const c = checked(e);
    if (c.kind !== "multipaxos.apply") return;
    const slot = intField(c, "slot");
    const command = stringField(c, "command");
    const first = this.applied.get(slot);
    if (first === undefined) this.applied.set(slot, { command, node: e.node });
    else if (first.command !== command) this.log.add(e, `slot ${slot}: ${e.node} applied ${command} but ${first.node} applied ${first.command}: the replicas' state machines diverge`);
  }

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}
