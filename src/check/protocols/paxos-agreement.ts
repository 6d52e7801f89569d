/**
 * `paxos.agreement` (book 2.2, safety: "只能有一个值被选定"): at most one value is chosen,
 * where chosen means accepted by a majority of acceptors at one ballot (`paxos-chosen.ts`).
 * Proposals chosen at several ballots are fine when they carry the same value (P2).
 */
import { ViolationLog, type Checker, type RunEnd, type Violation, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded } from "../event-reader.js";
import { ChosenTally } from "./paxos-chosen.js";

const KINDS = ["paxos.accepted"] as const;
type Kind = KindsOf<typeof KINDS>;

export class PaxosAgreementChecker implements Checker<Kind> {
  readonly name = "paxos.agreement";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly tally = new ChosenTally();


  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.onAccepted);
  }

  private onAccepted(e: TraceEvent<Kind>): void {
    const r = this.tally.add(e);
    if (r === undefined) return;
    if ("problem" in r) return this.log.add(e, r.problem);
    const first = this.tally.chosen[0]!;
    if (first.value !== r.chosen.value) {
      this.log.add(
        e,
        `two values chosen: ${String(first.value)} at ballot ${first.ballot} (accepted by ${first.acceptors.join(", ")}) and ${String(r.chosen.value)} at ballot ${r.chosen.ballot} (accepted by ${r.chosen.acceptors.join(", ")}); P2 says every higher-numbered chosen proposal carries the first one's value`,
      );
    }
  }

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}
