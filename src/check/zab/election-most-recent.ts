/**
 * FastLeaderElection's guarantee, read from the trace: the leader a quorum elects is at least as
 * recent as every voter whose vote elected it — its (currentEpoch, last logged zxid) is not below
 * any of theirs. This is why Zab's discovery phase need not collect histories: the prospective
 * leader already holds the longest one of its quorum (`FastLeaderElection.totalOrderPredicate`:
 * higher epoch, then higher zxid, then higher sid; a vote only moves to a candidate that beats it,
 * starting from the voter's own).
 *
 * Evidence (QuorumPeer.lookForLeader and FastLeaderElection annotate it already):
 * - `zab.phase` ELECTION starts a server's election; its `epoch` is the server's currentEpoch,
 *   what it proposes for itself as peerEpoch. The server's next `fle.vote` is its initial vote:
 *   for itself (a voter; an observer proposes nobody) with its last logged zxid.
 * - `fle.vote`: the server's proposal (leader, zxid) in round `electionEpoch`.
 * - `fle.elected`: a server decided for (leader, zxid) in round `electionEpoch`.
 * - `crash`: the server's election is over.
 * A vote carries the candidate's peerEpoch, which the trace does not; it is the currentEpoch the
 * candidate announced at the start of an election in which its last logged zxid was the vote's
 * zxid (every LOOKING proposal is some server's initial vote, passed on). When the candidate
 * entered several elections with that zxid, the highest such epoch is taken: a judgement can only
 * be lenient, never a false alarm. A vote whose candidate was never seen with that zxid is not
 * judged.
 *
 * At each decision, every server that proposed the decided (leader, zxid) in that round during its
 * current election — the voters the decider can have counted, and perhaps a few more, each of
 * which FastLeaderElection forbids just the same — must be no more recent than the candidate.
 *
 * State is bounded: per server, its current election's proposals (cleared at each election) and
 * the last INITS_KEPT (zxid → epoch) pairs it started an election with.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { Zxid } from "../../zk/proto/records.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { guarded, intField, numberField, stringField, zxidField } from "../event-reader.js";
import { formatZxid } from "./zab-event.js";

/** How many (zxid → currentEpoch) initial votes are remembered per server. */
export const INITS_KEPT = 64;

interface Recency {
  epoch: number;
  zxid: Zxid;
}

interface Election {
  node: string;
  /** The server's currentEpoch at the start of its election (zab.phase ELECTION). */
  epoch: number;
  /** Its own (currentEpoch, last logged zxid); undefined until the initial vote, or for a non-voter. */
  own: Recency | undefined;
  awaitingInit: boolean;
  /** Round → the `leader:zxid` keys it proposed in that round. */
  proposals: Map<number, Set<string>>;
}

const KINDS = ["zab.phase", "fle.vote", "fle.elected", "crash"] as const;
type Kind = KindsOf<typeof KINDS>;

export class ElectionMostRecentChecker implements Checker<Kind> {
  readonly name = "zab.election-most-recent";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  /** By node. */
  private readonly elections = new Map<string, Election>();
  /** By sid: the epochs a server started elections with, by its last logged zxid (as hex). */
  private readonly inits = new Map<number, Map<string, number>>();
  private readonly nodeOfSid = new Map<number, string>();
  private readonly reported = new Set<string>();

  onEvent(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "zab.phase":
        guarded(this.log, e, this, this.onPhase);
        return;
      case "fle.vote":
        guarded(this.log, e, this, this.onVote);
        return;
      case "fle.elected":
        guarded(this.log, e, this, this.onElected);
        return;
      case "crash":
        this.elections.delete(e.node);
        return;
    }
  }

  private onPhase(e: TraceEvent): void {
    if (stringField(e, "phase") !== "ELECTION") return;
    this.nodeOfSid.set(intField(e, "sid"), e.node);
    this.elections.set(e.node, { node: e.node, epoch: intField(e, "epoch"), own: undefined, awaitingInit: true, proposals: new Map() });
  }

  private onVote(e: TraceEvent): void {
    const el = this.elections.get(e.node);
    if (el === undefined) return;
    const sid = intField(e, "sid");
    const leader = numberField(e, "proposedLeader");
    const zxidText = stringField(e, "zxid");
    if (el.awaitingInit) {
      el.awaitingInit = false;
      // A voter's initial vote is for itself; an observer's is for nobody (Long.MIN_VALUE,
      // which zxidHex writes 0x-8000000000000000): no recency of its own to judge.
      if (leader === sid && !zxidText.includes("-")) {
        el.own = { epoch: el.epoch, zxid: zxidField(e, "zxid") };
        this.rememberInit(sid, zxidText, el.epoch);
      }
    }
    const round = intField(e, "electionEpoch");
    let keys = el.proposals.get(round);
    if (keys === undefined) el.proposals.set(round, (keys = new Set()));
    keys.add(`${leader}:${zxidText}`);
  }

  private rememberInit(sid: number, zxidText: string, epoch: number): void {
    let byZxid = this.inits.get(sid);
    if (byZxid === undefined) this.inits.set(sid, (byZxid = new Map()));
    const known = byZxid.get(zxidText);
    if (known !== undefined && known >= epoch) return;
    byZxid.delete(zxidText);
    byZxid.set(zxidText, epoch);
    if (byZxid.size > INITS_KEPT) byZxid.delete(byZxid.keys().next().value as string);
  }

  private onElected(e: TraceEvent): void {
    const leader = numberField(e, "leader");
    const zxidText = stringField(e, "zxid");
    const candidateEpoch = this.inits.get(leader)?.get(zxidText);
    if (candidateEpoch === undefined) return; // not a vote this trace shows the origin of
    const candidate: Recency = { epoch: candidateEpoch, zxid: zxidField(e, "zxid") };
    const round = intField(e, "electionEpoch");
    const key = `${leader}:${zxidText}`;
    for (const el of this.elections.values()) {
      if (el.own === undefined || !(el.proposals.get(round)?.has(key) ?? false)) continue;
      if (!moreRecent(el.own, candidate)) continue;
      const seen = `${round}:${key}:${el.node}`;
      if (this.reported.has(seen)) continue;
      this.reported.add(seen);
      const leaderNode = this.nodeOfSid.get(leader) ?? `sid ${leader}`;
      this.log.add(
        e,
        `FLE elected a leader less recent than one of its voters: ${e.node} decided for ${leaderNode} (sid ${leader}) in round ${round} ` +
          `with (currentEpoch ${candidate.epoch}, last zxid ${formatZxid(candidate.zxid)}), but ${el.node} voted for it in that round holding ` +
          `(currentEpoch ${el.own.epoch}, last zxid ${formatZxid(el.own.zxid)}); totalOrderPredicate orders votes by epoch, then zxid, ` +
          `then sid, so no voter moves to a candidate below its own vote (the elected leader must hold the longest history of its quorum)`,
      );
    }
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}

function moreRecent(a: Recency, b: Recency): boolean {
  return a.epoch > b.epoch || (a.epoch === b.epoch && a.zxid > b.zxid);
}
