/**
 * `recipe.2pc`: two-phase commit on ZooKeeper, from `recipe.2pc` annotations.
 * - Agreement: every participant that learns a decision for a transaction learns the same one.
 * - Validity: no transaction is decided commit if some site voted abort (votes a site could
 *   not annotate — its session died right after writing — are invisible here, so "every site
 *   voted commit" is left to the decider, which reads the vote nodes).
 * - Single decision writer: at most one `proposed` per transaction (the node is created once).
 * - Termination: at the end of a run quiet for `stallMs`, every begun transaction has been
 *   decided by someone.
 */
import type { Checker, RunEnd, Violation } from "../checker.js";
import { ViolationLog, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { SessionFates } from "./sessions.js";
import { STALL_MS } from "./exclusive.js";
import { guarded, stringField } from "../event-reader.js";

interface Tx {
  begun: TraceEvent | undefined;
  aborts: string[];
  decided: Map<string, string>;
  proposers: string[];
}

const KINDS = ["recipe.2pc", ...SessionFates.KINDS] as const;
type Kind = KindsOf<typeof KINDS>;

export class TwoPhaseCommitChecker implements Checker<Kind> {
  readonly name = "recipe.2pc";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly fates = new SessionFates();
  private readonly txs = new Map<string, Tx>();

  constructor(private readonly stallMs = STALL_MS) {}

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    this.fates.onEvent(e);
    if (e.kind !== "recipe.2pc") return;
    const name = stringField(e, "tx");
    const client = stringField(e, "client");
    const event = stringField(e, "event");
    const tx: Tx = this.txs.get(name) ?? { begun: undefined, aborts: [], decided: new Map(), proposers: [] };
    this.txs.set(name, tx);
    switch (event) {
      case "begin":
        tx.begun = e;
        return;
      case "vote": {
        const site = stringField(e, "site");
        if (stringField(e, "vote") !== "abort") return;
        tx.aborts.push(site);
        if ([...tx.decided.values()].includes("commit")) this.log.add(e, `${name} was decided commit, yet ${site} voted abort`);
        return;
      }
      case "proposed":
        tx.proposers.push(client);
        if (tx.proposers.length > 1) this.log.add(e, `${name}: the decision was written more than once (by ${tx.proposers.join(", ")})`);
        return;
      case "decided": {
        const d = stringField(e, "decision");
        for (const [other, od] of tx.decided) if (od !== d) this.log.add(e, `${name}: ${client} learned ${d} but ${other} learned ${od} — participants disagree`);
        if (d === "commit" && tx.aborts.length > 0) this.log.add(e, `${name} was decided commit though ${tx.aborts.join(", ")} voted abort`);
        tx.decided.set(client, d);
        return;
      }
      default:
        return;
    }
  }

  finish(end?: RunEnd): Violation[] {
    if (end === undefined) return this.log.violations;
    this.fates.endAt(end.atUs);
    if (this.fates.quietMs() < this.stallMs) return this.log.violations;
    for (const [name, tx] of this.txs) if (tx.begun !== undefined && tx.decided.size === 0) this.log.add(end, `${name} began but nobody ever decided it`);
    return this.log.violations;
  }
}
