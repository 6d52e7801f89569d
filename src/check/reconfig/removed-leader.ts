/**
 * reconfig.removed-leader — no two leaders across configurations: a leader commits only while
 * it is a voter of the config it has committed. A reconfig that removes the leader designates
 * another leader; from its commit on, the old leader commits nothing more (3.8's
 * `allowedToCommit = false`) and steps down once its followers have left for the new leader. A
 * removed leader that kept committing would be a second leader beside the new config's one,
 * deciding on a quorum the new config does not recognise.
 *
 * Read from the trace: each server's committed config (`zab.config.activated`) and each commit
 * (`zab.commit`); the commit of the reconfig that removes the leader itself comes before its
 * activation and is allowed. Runs without reconfiguration are not judged.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { guarded, intField, stringField, zxidField } from "../event-reader.js";
import { describe, readConfig, type ConfigView } from "./config-view.js";

const KINDS = ["zab.config.activated", "zab.commit"] as const;
type Kind = KindsOf<typeof KINDS>;

export class RemovedLeaderChecker implements Checker<Kind> {
  readonly name = "reconfig.removed-leader";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly committed = new Map<string, ConfigView>();
  /** Nodes already reported, so a leader that goes on committing is reported once. */
  private readonly reported = new Set<string>();

  onEvent(e: TraceEvent<Kind>): void {
    if (e.kind === "zab.config.activated") return guarded(this.log, e, this, this.onActivated);
    return guarded(this.log, e, this, this.onCommit);
  }

  private onActivated(e: TraceEvent): void {
    const c = readConfig(stringField(e, "config"));
    if (typeof c === "string") return this.log.add(e, `zab.config.activated carries an unreadable config: ${c}`);
    this.committed.set(e.node, c);
  }

  private onCommit(e: TraceEvent): void {
    const sid = intField(e, "sid");
    const c = this.committed.get(e.node);
    if (c === undefined || c.voters.has(sid) || this.reported.has(e.node)) return;
    this.reported.add(e.node);
    this.log.add(
      e,
      `${e.node} (sid ${sid}) committed 0x${zxidField(e, "zxid").toString(16)} as leader though its committed ${describe(c)} does not count it as a voter; ` +
        `a leader removed by a reconfig stops committing once the reconfig is committed and hands over to the designated leader`,
    );
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
