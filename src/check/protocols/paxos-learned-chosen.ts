/**
 * `paxos.learned-chosen` (book 2.2: "如果某个进程认为某个提案被选定了，那么这个提案必须是
 * 真的被选定的那个"): a learner learns only a value that is chosen — accepted by a majority at
 * one ballot — by the time it learns it.
 */
import { ViolationLog, type Checker, type RunEnd, type Violation, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded } from "../event-reader.js";
import { ChosenTally, protocolValueField } from "./paxos-chosen.js";

const KINDS = ["paxos.accepted", "paxos.learned"] as const;
type Kind = KindsOf<typeof KINDS>;

export class PaxosLearnedChosenChecker implements Checker<Kind> {
  readonly name = "paxos.learned-chosen";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly tally = new ChosenTally();


  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    if (e.kind === "paxos.accepted") {
      const r = this.tally.add(e);
      if (r !== undefined && "problem" in r) this.log.add(e, r.problem);
      return;
    }
    const v = protocolValueField(e, "value");
    if (!this.tally.isChosen(v)) {
      const chosen = this.tally.chosen.map((c) => `${String(c.value)} at ballot ${c.ballot}`).join(", ") || "nothing yet";
      this.log.add(e, `${e.node} learned ${JSON.stringify(v)}, which is not chosen (chosen so far: ${chosen})`);
    }
  }

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}
