/**
 * `paxos.validity` (book 2.2: "只有被提出的提案才能被选定"): every value an acceptor accepts
 * — and so every value that can be chosen — is a value some proposer brought as its input
 * (`paxos.proposer.input`) before that acceptance.
 */
import { ViolationLog, type Checker, type RunEnd, type Violation, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded } from "../event-reader.js";
import { protocolValueField, type ProtocolValue } from "./paxos-chosen.js";

const KINDS = ["paxos.proposer.input", "paxos.accepted"] as const;
type Kind = KindsOf<typeof KINDS>;

export class PaxosValidityChecker implements Checker<Kind> {
  readonly name = "paxos.validity";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly inputs = new Set<ProtocolValue>();


  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    const v = protocolValueField(e, "value");
    if (e.kind === "paxos.proposer.input") {
      this.inputs.add(v);
      return;
    }
    if (!this.inputs.has(v)) this.log.add(e, `${e.node} accepted ${JSON.stringify(v)}, which no proposer proposed (inputs: ${[...this.inputs].map(String).join(", ") || "none"})`);
  }

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}
