/**
 * `paxos.validity` (book 2.2: "只有被提出的提案才能被选定"): every value an acceptor accepts
 * — and so every value that can be chosen — is a value some proposer brought as its input
 * (`paxos.proposer.input`) before that acceptance.
 */
import { ViolationLog, type Checker, type RunEnd, type Violation } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { checked, guarded } from "../event-reader.js";
import { protocolValueField, type ProtocolValue } from "./paxos-chosen.js";

export class PaxosValidityChecker implements Checker {
  readonly name = "paxos.validity";
  readonly log = new ViolationLog(this.name);
  private readonly inputs = new Set<ProtocolValue>();

  accepts(kind: string): boolean {
    return kind === "paxos.proposer.input" || kind === "paxos.accepted";
  }

  onEvent(e: TraceEvent): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent): void {
    const c = checked(e);
    if (c.kind !== "paxos.proposer.input" && c.kind !== "paxos.accepted") return;
    const v = protocolValueField(c, "value");
    if (c.kind === "paxos.proposer.input") {
      this.inputs.add(v);
      return;
    }
    if (!this.inputs.has(v)) this.log.add(e, `${e.node} accepted ${JSON.stringify(v)}, which no proposer proposed (inputs: ${[...this.inputs].map(String).join(", ") || "none"})`);
  }

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}
