/**
 * Leadership (Zab TLA+ Leadership1 and Leadership2): at most one leader per epoch.
 *
 * - Leadership2: over the whole run, the set of servers that *established* an epoch (a
 *   `zab.leader.established`, i.e. a quorum ACKed its NEWLEADER) has at most one member. This
 *   is what ZOOKEEPER-335 broke: two servers both chose epoch 2.
 * - Leadership1: at any instant, at most one server is LEADING and in SYNCHRONIZATION or
 *   BROADCAST for a given epoch (`zab.state` + `zab.phase`). A server stops counting when it
 *   crashes, leaves LEADING, or goes back to ELECTION/DISCOVERY.
 *
 * Epoch quorums intersect, and a learner never ACKs a LEADERINFO whose epoch is not above its
 * acceptedEpoch, so neither can happen in a correct ensemble.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { at, serverLabel } from "./zab-event.js";
import { guarded, intField, stringField } from "../event-reader.js";

interface Established {
  node: string;
  label: string;
  event: TraceEvent;
}

interface Role {
  state: string;
  phase: string;
  epoch: number;
  label: string;
  since: TraceEvent;
}

const KINDS = ["zab.leader.established", "zab.state", "zab.phase", "crash"] as const;
type Kind = KindsOf<typeof KINDS>;

export class LeadershipChecker implements Checker<Kind> {
  readonly name = "zab.leadership";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly establishedBy = new Map<number, Established>();
  private readonly roles = new Map<string, Role>();
  /** Pairs already reported under Leadership1, so a long overlap is reported once. */
  private readonly reported = new Set<string>();

  onEvent(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "zab.leader.established":
        guarded(this.log, e, this, this.onEstablished);
        return;
      case "zab.state":
        guarded(this.log, e, this, this.readState);
        return;
      case "zab.phase":
        guarded(this.log, e, this, this.readPhase);
        return;
      case "crash":
        this.roles.delete(e.node);
        return;
    }
  }

  private readState(e: TraceEvent): void {
    this.onRole(e, stringField(e, "state"), undefined, undefined);
  }

  private readPhase(e: TraceEvent): void {
    this.onRole(e, undefined, stringField(e, "phase"), intField(e, "epoch"));
  }

  private onEstablished(e: TraceEvent): void {
    const epoch = intField(e, "epoch");
    const first = this.establishedBy.get(epoch);
    if (first === undefined) {
      this.establishedBy.set(epoch, { node: e.node, label: serverLabel(e), event: e });
      return;
    }
    if (first.node === e.node) return;
    this.log.add(
      e,
      `Leadership2 violated: epoch ${epoch} was established by two leaders, ${first.label} (${at(first.event)}) and ${serverLabel(e)}; ` +
        `epoch quorums intersect, so at most one server may ever establish an epoch (cf. ZOOKEEPER-335)`,
    );
  }

  private onRole(e: TraceEvent, state: string | undefined, phase: string | undefined, epoch: number | undefined): void {
    const r = this.roles.get(e.node) ?? { state: "LOOKING", phase: "ELECTION", epoch: -1, label: serverLabel(e), since: e };
    const wasActive = isActiveLeader(r);
    if (state !== undefined && state !== r.state) {
      // A role change makes the phase and epoch unknown until the next zab.phase: a stale
      // BROADCAST of an old epoch must not make a fresh LEADING look established.
      r.state = state;
      r.phase = "";
      r.epoch = -1;
    }
    if (phase !== undefined) r.phase = phase;
    if (epoch !== undefined) r.epoch = epoch;
    r.label = serverLabel(e);
    if (!wasActive) r.since = e;
    this.roles.set(e.node, r);
    if (!isActiveLeader(r)) return;
    for (const [node, other] of this.roles) {
      if (node === e.node || !isActiveLeader(other) || other.epoch !== r.epoch) continue;
      const key = `${r.epoch}:${[node, e.node].sort().join(",")}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.log.add(
        e,
        `Leadership1 violated: ${r.label} and ${other.label} are both LEADING in ${r.phase}/${other.phase} for epoch ${r.epoch} ` +
          `(${other.label} since ${at(other.since)})`,
      );
    }
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}

function isActiveLeader(r: Role): boolean {
  return r.state === "LEADING" && (r.phase === "SYNCHRONIZATION" || r.phase === "BROADCAST") && r.epoch >= 0;
}
