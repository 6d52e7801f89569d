/**
 * `multipaxos.state-machine-safety`: every replica applies the same command in each slot
 * (`multipaxos.apply`), in every incarnation — a restarted replica that applies the log again
 * must apply what everyone applied. Replicated state machines agree because their logs do.
 */
import { ViolationLog, type Checker, type RunEnd, type Violation, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded, intField, stringField } from "../event-reader.js";

const KINDS = ["multipaxos.apply"] as const;
type Kind = KindsOf<typeof KINDS>;

export class MultiPaxosStateMachineChecker implements Checker<Kind> {
  readonly name = "multipaxos.state-machine-safety";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly applied = new Map<number, { command: string; node: string }>();


  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    const slot = intField(e, "slot");
    const command = stringField(e, "command");
    const first = this.applied.get(slot);
    if (first === undefined) this.applied.set(slot, { command, node: e.node });
    else if (first.command !== command) this.log.add(e, `slot ${slot}: ${e.node} applied ${command} but ${first.node} applied ${first.command}: the replicas' state machines diverge`);
  }

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}
