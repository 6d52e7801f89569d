/**
 * Zab phase 2, read from the trace: a leader is established — it starts serving and its epoch
 * becomes the current one (`zab.leader.established`) — only after a quorum of voters has ACKed
 * its NEWLEADER (`Leader.lead` → `waitForNewLeaderAck`; the leader's own ACK counts, observers'
 * do not). Before that quorum, the learners' histories are not known to hold the leader's
 * initial history, and a leader that serves anyway can commit on a quorum that never synced.
 *
 * Evidence, from the kernel's message events and the zab annotations:
 * - `send` NEWLEADER from the leader on a connection: that learner is now expected to ACK it;
 * - `deliver` ACK at the leader on that connection: the learner's NEWLEADER ACK is the first ACK
 *   it sends after NEWLEADER (a learner ACKs nothing else until it has ACKed NEWLEADER, except
 *   with the ZOOKEEPER-4685 race, where the leader counts nothing and this check counts more:
 *   lenient, never a false alarm);
 * - `fle.vote` proposing the voting server itself: the server is a voter (every voter's first
 *   vote of an election is for itself; an observer's is for nobody, and no vote is ever for an
 *   observer), so only voters' ACKs count and the quorum is a majority of the voters seen so far
 *   (a voter not started yet lowers the bar: lenient);
 * - `zab.phase` DISCOVERY or a `crash` of the leader: a new leadership, nothing ACKed yet.
 *
 * State is bounded by the ensemble: per leader, its connections awaiting a NEWLEADER ACK and the
 * learners that ACKed.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { readConfig } from "../reconfig/config-view.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { MalformedEvent, guarded, intField, numberField, peerOf, stringField } from "../event-reader.js";

interface Leadership {
  /** Connection → the learner node that was sent NEWLEADER on it and has not ACKed yet. */
  awaiting: Map<number, string>;
  /** Learner nodes whose NEWLEADER ACK arrived. */
  acked: Set<string>;
}

const KINDS = ["send", "deliver", "fle.vote", "zab.phase", "zab.leader.established", "crash", "zab.config.activated"] as const;
type Kind = KindsOf<typeof KINDS>;

export class NewLeaderQuorumChecker implements Checker<Kind> {
  readonly name = "zab.newleader-quorum";
  readonly kinds = KINDS;
  /** Of the messages, the leader's NEWLEADER and the ACKs it receives. */
  readonly messageTypes = { send: ["NEWLEADER"], deliver: ["ACK"] } as const;
  readonly log = new ViolationLog(this.name);
  private readonly voters = new Set<string>();
  private readonly leaders = new Map<string, Leadership>();
  /** With dynamic reconfiguration: each server's committed config's voters (sids), and each node's sid. */
  private readonly configVoters = new Map<string, ReadonlySet<number>>();
  private readonly sidOf = new Map<string, number>();

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "send":
        if (e.detail === "NEWLEADER") this.leadership(e.node).awaiting.set(connOf(e), peerOf(e));
        return;
      case "deliver":
        if (e.detail === "ACK") this.onAck(e);
        return;
      case "fle.vote":
        this.sidOf.set(e.node, intField(e, "sid"));
        if (numberField(e, "proposedLeader") === intField(e, "sid")) this.voters.add(e.node);
        return;
      case "zab.config.activated": {
        this.sidOf.set(e.node, intField(e, "sid"));
        const c = readConfig(stringField(e, "config"));
        if (typeof c === "string") return this.log.add(e, `zab.config.activated carries an unreadable config: ${c}`);
        this.configVoters.set(e.node, c.voters);
        return;
      }
      case "zab.phase":
        if (stringField(e, "phase") === "DISCOVERY") this.leaders.delete(e.node);
        return;
      case "crash":
        this.leaders.delete(e.node);
        return;
      case "zab.leader.established":
        return this.onEstablished(e);
    }
  }

  private onAck(e: TraceEvent): void {
    const l = this.leaders.get(e.node);
    const conn = connOf(e);
    const learner = l?.awaiting.get(conn);
    if (l === undefined || learner === undefined) return;
    l.awaiting.delete(conn);
    l.acked.add(learner);
  }

  private onEstablished(e: TraceEvent): void {
    const epoch = intField(e, "epoch");
    const config = this.configVoters.get(e.node);
    if (config !== undefined) return this.judgeByConfig(e, epoch, config);
    const acked = [...(this.leaders.get(e.node)?.acked ?? [])].filter((n) => this.voters.has(n) && n !== e.node).sort();
    const count = acked.length + 1; // the leader's own ACK
    const needed = Math.floor(this.voters.size / 2) + 1;
    if (count >= needed) return;
    this.log.add(
      e,
      `${e.node} was established as leader of epoch ${epoch} with the NEWLEADER ACKs of ${count} of ${this.voters.size} voters ` +
        `(itself${acked.map((n) => `, ${n}`).join("")}); a leader starts serving only once a quorum (${needed}) has ACKed its NEWLEADER ` +
        `(Zab phase 2, Leader.waitForNewLeaderAck)`,
    );
  }

  /** With reconfiguration the voters are the leader's committed config's, not the servers seen voting. */
  private judgeByConfig(e: TraceEvent, epoch: number, voters: ReadonlySet<number>): void {
    const acked = [...(this.leaders.get(e.node)?.acked ?? [])].filter((n) => n !== e.node && voters.has(this.sidOf.get(n) ?? -1)).sort();
    const count = acked.length + (voters.has(intField(e, "sid")) ? 1 : 0);
    if (count * 2 > voters.size) return;
    this.log.add(
      e,
      `${e.node} was established as leader of epoch ${epoch} with the NEWLEADER ACKs of ${count} of the ${voters.size} voters of its config ` +
        `(${[...acked].join(", ") || "none but itself"}); a leader starts serving only once a quorum of its config has ACKed its NEWLEADER (Leader.waitForNewLeaderAck)`,
    );
  }

  private leadership(node: string): Leadership {
    let l = this.leaders.get(node);
    if (l === undefined) this.leaders.set(node, (l = { awaiting: new Map(), acked: new Set() }));
    return l;
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}

/** The connection a quorum packet travelled on (NEWLEADER and ACK always go over one). */
function connOf(e: TraceEvent): number {
  if (typeof e.conn === "number") return e.conn;
  throw new MalformedEvent(e, "conn", e.conn, "a connection id");
}
