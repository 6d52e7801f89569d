/**
 * ShouldNotBeTriggered (the TLA+ "CheckDuringAction" flags): the server's message handlers have
 * assertion points where the specification says a situation is impossible — a message in a
 * phase that cannot handle it (stateInconsistent), a PROPOSAL that is not the successor of the
 * last one or a TRUNC beyond the log end (proposalInconsistent), a COMMIT that is not at the
 * head of the pending queue (commitInconsistent, ZOOKEEPER-4394), an ACK for an unknown zxid or
 * a NEWLEADER ACK of another epoch (ackInconsistent, ZOOKEEPER-4685), or any message the state
 * machine never expects (messageIllegal). Each fires a `zab.flag`; every one is a violation.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { serverLabel } from "./zab-event.js";
import { guarded, optionalStringField, stringField } from "../event-reader.js";

export const ZAB_FLAGS = ["stateInconsistent", "proposalInconsistent", "commitInconsistent", "ackInconsistent", "messageIllegal"] as const;

const KINDS = ["zab.flag"] as const;
type Kind = KindsOf<typeof KINDS>;

export class FlagsChecker implements Checker<Kind> {
  readonly name = "zab.flags";
  readonly kinds = KINDS;
  readonly alarm = true;
  readonly log = new ViolationLog(this.name);

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    const flag = stringField(e, "flag");
    const detail = optionalStringField(e, "detail");
    const known = (ZAB_FLAGS as readonly string[]).includes(flag) ? "" : " (not one of the specification's flags)";
    this.log.add(e, `ShouldNotBeTriggered violated: ${serverLabel(e)} raised ${flag}${known}${detail === undefined ? "" : `: ${detail}`}`);
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
