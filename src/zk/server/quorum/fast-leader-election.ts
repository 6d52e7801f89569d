/**
 * Leader election as ZooKeeper 3.8 runs it (`FastLeaderElection`), written as an event-driven
 * state machine on a NodeContext.
 *
 * Java runs `lookForLeader()` as a loop on the QuorumPeer thread that polls a receive queue
 * with a timeout, plus a WorkerReceiver thread that answers peers at any time. Here:
 * - the WorkerReceiver is `receive` (called by the QuorumCnxManager for every message): it
 *   answers non-voters and LOOKING peers, and queues notifications while we are LOOKING;
 * - the loop body is `runLoop`: it takes queued notifications one by one, and when the queue is
 *   empty it arms the timer the Java `poll` would have waited on — the notification timeout
 *   (`notTimeout`, 200 ms doubling to 60 s; on expiry resend, or reconnect when nothing was
 *   delivered) or, once the proposal has a quorum, `finalizeWait` (200 ms without any
 *   notification ⇒ decide; a notification that beats the proposal ends the wait, one that does
 *   not is consumed and restarts the wait, as in Java).
 *
 * The decision is reported through `onElected(vote, state)` after the state machine has
 * settled, so the callback may start another election at once.
 *
 * This class also holds the two QuorumPeer fields the WorkerReceiver reads: the peer state
 * and the current vote. The QuorumPeer drives them with `lookForLeader`, `setPeerState` (e.g.
 * LOOKING during an observer's election delay) and `updateElectionVote` (after sync).
 *
 * Trace annotations for the teaching UI: `fle.vote` whenever the proposal is (re)set,
 * `fle.elected` at a decision, `fle.notification-timeout` when the poll times out.
 *
 * Not modelled: dynamic reconfiguration (config in notifications is sent but ignored), the
 * 2-node QuorumOracleMaj, JMX, and the 28/40-byte legacy notification formats.
 */
import { UserInputError, invariant, unreachable } from "../../../base/errors.js";
import type { NodeContext, TimerHandle } from "../../../world/index.js";
import { zxidHex, type Zxid } from "../../proto/records.js";
import type { ElectionMessage, QuorumCnxManager } from "./quorum-cnx-manager.js";
import type { QuorumVerifier } from "./quorum-verifier.js";
import {
  LONG_MIN_VALUE,
  LONG_MIN_VALUE_ZXID,
  SERVER_STATES,
  makeVote,
  totalOrderPredicate,
  voteEquals,
  type ServerState,
  type Vote,
} from "./vote.js";

/** How long a proposal backed by a quorum must stand unchallenged before deciding. */
export const FINALIZE_WAIT_MS = 200;
/** `zookeeper.fastleader.minNotificationInterval` (defaults to finalizeWait). */
export const MIN_NOTIFICATION_INTERVAL_MS = FINALIZE_WAIT_MS;
/** `zookeeper.fastleader.maxNotificationInterval`. */
export const MAX_NOTIFICATION_INTERVAL_MS = 60_000;
/** `Notification.CURRENTVERSION` (3.4.6+: version and config in every notification). */
export const NOTIFICATION_VERSION = 2;

export type ElectedState = "LEADING" | "FOLLOWING" | "OBSERVING";

/** A notification as it travels (the simulator carries the object, not the 44+ bytes). */
export interface FleNotificationMessage {
  kind: "fle.notification";
  state: ServerState;
  leader: number;
  zxid: Zxid;
  electionEpoch: bigint;
  peerEpoch: number;
  version: number;
  /** The sender's quorum config text (reconfig is not modelled: receivers ignore it). */
  config: string;
}

/** A received notification: the message plus the sender's sid (from its connection). */
export interface Notification extends FleNotificationMessage {
  sid: number;
}

export interface FastLeaderElectionOptions {
  ctx: NodeContext;
  myid: number;
  qv: QuorumVerifier;
  manager: QuorumCnxManager;
  /** The last zxid in the server's log (committed or not); −1 when the database is not loaded. */
  getLastLoggedZxid(): Zxid;
  /** The server's currentEpoch (the epoch it proposes for itself as `peerEpoch`). */
  getCurrentEpoch(): number;
  /** The election is over: this server now LEADs, FOLLOWs or OBSERVEs `vote.leader`. */
  onElected(vote: Vote, state: ElectedState): void;
  /** A LOOKING peer contacted us while we are not LOOKING (`Leader.reportLookingSid`). */
  onLookingPeer?(sid: number): void;
  /**
   * A notification carried a config of a higher version than ours (3.5+ config gossip). True
   * when the peer adopted it: this election is then restarted under it.
   */
  onNewerConfig?(configText: string): boolean;
  /** The election was restarted under a newer config: QuorumPeer.run enters its LOOKING branch again. */
  onElectionRestart?(): void;
  /** With dynamic reconfiguration: this server may be outside the config (removed), a non-voting participant. */
  nonMemberAllowed?: boolean;
  finalizeWaitMs?: number;
  minNotificationIntervalMs?: number;
  /** Bug zoo: compare votes with the pre-3.4.4 predicate that is not a total order (ZOOKEEPER-1419). */
  zk1419?: boolean;
  /** Canary `fle-ignores-zxid`: votes are compared by epoch and sid only, the last zxid is ignored. */
  ignoreZxid?: boolean;
  /** Canary `fle-counts-old-rounds`: a LOOKING vote of an older round is taken as one of the current round. */
  countOldRounds?: boolean;
  maxNotificationIntervalMs?: number;
}

/** The locals of one `lookForLeader()` call. */
interface ElectionRound {
  /** Votes of the current round (electionEpoch = logicalclock), by sender. */
  recvset: Map<number, Vote>;
  /** FOLLOWING/LEADING votes of any round, by sender (how late joiners find the leader). */
  outofelection: Map<number, Vote>;
  notTimeoutMs: number;
  /** The proposal has a quorum: waiting `finalizeWait` for a better notification. */
  finalizing: boolean;
  timer: TimerHandle | undefined;
}

export class FastLeaderElection {
  readonly myid: number;
  readonly finalizeWaitMs: number;
  readonly minNotificationIntervalMs: number;
  readonly maxNotificationIntervalMs: number;
  private readonly ctx: NodeContext;
  /** The committed configuration, and a pending one (a proposed reconfig) whose quorums count too. */
  private qv: QuorumVerifier;
  private nextQv: QuorumVerifier | undefined;
  private readonly manager: QuorumCnxManager;
  private isParticipant: boolean;
  private logicalclock = 0n;
  private proposedLeader = -1;
  private proposedZxid: Zxid = -1n;
  private proposedEpoch = 0;
  private state: ServerState = "LOOKING";
  private vote: Vote;
  private readonly recvqueue: Notification[] = [];
  private round: ElectionRound | undefined;
  private stop = false;
  private looping = false;
  private elected: { vote: Vote; state: ElectedState } | undefined;

  constructor(private readonly options: FastLeaderElectionOptions) {
    this.ctx = options.ctx;
    this.myid = options.myid;
    this.qv = options.qv;
    this.manager = options.manager;
    const me = this.qv.allMembers.get(this.myid);
    // A server a committed reconfig removed restarts from that config: a non-voting participant.
    if (me === undefined && options.nonMemberAllowed !== true) throw new UserInputError(`FastLeaderElection: myid ${this.myid} is not in the quorum config`);
    this.isParticipant = (me?.role ?? "participant") === "participant";
    this.nextQv = undefined;
    this.finalizeWaitMs = options.finalizeWaitMs ?? FINALIZE_WAIT_MS;
    this.minNotificationIntervalMs = options.minNotificationIntervalMs ?? this.finalizeWaitMs;
    this.maxNotificationIntervalMs = options.maxNotificationIntervalMs ?? MAX_NOTIFICATION_INTERVAL_MS;
    // QuorumPeer.startLeaderElection: the current vote starts as a vote for ourselves.
    this.vote = makeVote(this.myid, options.getLastLoggedZxid(), -1n, options.getCurrentEpoch());
  }

  // ---- what the QuorumPeer sees ---------------------------------------------------------

  /** Starts receiving: hooks into the connection manager and starts its listener. */
  start(): void {
    this.manager.setMessageHandler((sid, message) => this.receive(sid, message));
    this.manager.start();
  }

  /** The peer state (QuorumPeer's `getPeerState`). */
  get peerState(): ServerState {
    return this.state;
  }

  /** The current vote (QuorumPeer's `getCurrentVote`): the last election's result. */
  get currentVote(): Vote {
    return this.vote;
  }

  /** True while a `lookForLeader` is in progress. */
  get electing(): boolean {
    return this.round !== undefined;
  }

  getLogicalClock(): bigint {
    return this.logicalclock;
  }

  /** The current proposal (Java's `getVote`). */
  getVote(): Vote {
    return makeVote(this.proposedLeader, this.proposedZxid, -1n, this.proposedEpoch);
  }

  /** QuorumPeer.setPeerState (e.g. LOOKING while an observer waits before re-electing). */
  setPeerState(state: ServerState): void {
    this.state = state;
  }

  /** After synchronisation the peer advertises the new epoch (`updateElectionVote`). */
  updateElectionVote(newEpoch: number): void {
    this.vote = { ...this.vote, peerEpoch: newEpoch };
  }

  /** Enters a new election round (Java's `lookForLeader` up to its loop). */
  lookForLeader(): void {
    if (this.stop) return;
    invariant(this.round === undefined, `sid ${this.myid} is already looking for a leader`);
    this.state = "LOOKING";
    this.round = {
      recvset: new Map(),
      outofelection: new Map(),
      notTimeoutMs: this.minNotificationIntervalMs,
      finalizing: false,
      timer: undefined,
    };
    this.logicalclock += 1n;
    this.updateProposal(this.initId(), this.initLastLoggedZxid(), this.initPeerEpoch());
    this.sendNotifications();
    this.runLoop();
  }

  /**
   * QuorumPeer.run after `shuttingDownLE`: the election instance is replaced (`startLeaderElection`
   * builds a new QuorumCnxManager and FastLeaderElection), so the round's votes, the logical
   * clock and the election connections go, and a new round starts from a vote for ourselves
   * under the configuration just adopted. Other peers' clocks pull ours up again.
   */
  private restartLeaderElection(): void {
    if (this.round === undefined || this.stop) return;
    this.ctx.cancelTimer(this.round.timer);
    this.round = undefined;
    this.recvqueue.length = 0;
    this.manager.reset();
    this.logicalclock = 0n;
    this.vote = makeVote(this.myid, this.options.getLastLoggedZxid(), -1n, this.options.getCurrentEpoch());
    this.options.onElectionRestart?.();
    this.lookForLeader();
  }

  shutdown(): void {
    this.stop = true;
    this.proposedLeader = -1;
    this.proposedZxid = -1n;
    if (this.round !== undefined) this.ctx.cancelTimer(this.round.timer);
    this.round = undefined;
    this.recvqueue.length = 0;
    this.manager.halt();
  }

  // ---- WorkerReceiver --------------------------------------------------------------------

  /** Every election message from a peer (or our own loopback) arrives here. */
  private receive(sid: number, message: ElectionMessage): void {
    if (this.stop || message.kind !== "fle.notification") return;
    const m = message as FleNotificationMessage;
    if (!SERVER_STATES.includes(m.state)) return; // unknown state ordinal: skipped
    if (configVersion(m.config) > this.qv.version && this.options.onNewerConfig?.(m.config) === true) {
      // 3.8's WorkerReceiver: the LOOKING peer took the newer config, so it shuts this election
      // down (`shuttingDownLE`) and starts another; the notification that carried it is dropped.
      this.restartLeaderElection();
      return;
    }
    if (!this.isVoter(sid)) {
      // Our own notification, sent while we were a voter and looped back after a reconfig made
      // us a non-voter: answering ourselves would loop (zero-delay) forever.
      if (sid === this.myid) return;
      // A non-voter (observer) learns from our current vote, whatever our state.
      const v = this.vote;
      this.sendTo(sid, v.leader, v.zxid, this.logicalclock, this.state, v.peerEpoch);
      return;
    }
    const n: Notification = { ...m, sid };
    if (this.state === "LOOKING") {
      this.recvqueue.push(n);
      if (n.state === "LOOKING" && n.electionEpoch < this.logicalclock) {
        // A LOOKING peer lagging behind: tell it about our round and proposal.
        this.sendTo(sid, this.proposedLeader, this.proposedZxid, this.logicalclock, this.state, this.proposedEpoch);
      }
      this.runLoop();
    } else if (n.state === "LOOKING") {
      // We are in an ensemble: tell a LOOKING peer who leads it.
      this.options.onLookingPeer?.(sid);
      const v = this.vote;
      this.sendTo(sid, v.leader, v.zxid, v.electionEpoch, this.state, v.peerEpoch);
    }
  }

  // ---- the lookForLeader loop -------------------------------------------------------------

  /**
   * Runs the loop: `step` first (a timer expiry), then every queued notification, then arms
   * the timer the Java poll would wait on. Reports a decision once the loop has settled.
   */
  private runLoop(step?: () => void): void {
    if (this.looping) return; // a nested call (e.g. from a loopback) is drained by the outer one
    this.looping = true;
    try {
      step?.();
      while (this.round !== undefined && this.state === "LOOKING" && !this.stop) {
        const n = this.recvqueue.shift();
        if (n === undefined) {
          this.armTimer(this.round);
          break;
        }
        this.ctx.cancelTimer(this.round.timer);
        this.round.timer = undefined;
        if (this.round.finalizing) this.finalizeStep(this.round, n);
        else this.processNotification(this.round, n);
      }
    } finally {
      this.looping = false;
    }
    const elected = this.elected;
    if (elected !== undefined) {
      this.elected = undefined;
      this.options.onElected(elected.vote, elected.state);
    }
  }

  private armTimer(round: ElectionRound): void {
    this.ctx.cancelTimer(round.timer);
    const delayMs = round.finalizing ? this.finalizeWaitMs : round.notTimeoutMs;
    const label = round.finalizing ? "fle.finalizeWait" : "fle.notTimeout";
    round.timer = this.ctx.setTimerMs(delayMs, () => this.runLoop(() => this.pollTimedOut(round)), label);
  }

  /** The poll returned nothing within its timeout. */
  private pollTimedOut(round: ElectionRound): void {
    if (round !== this.round) return;
    round.timer = undefined;
    if (round.finalizing) {
      // No better notification within finalizeWait: the proposal stands.
      this.decide(this.proposedLeader, makeVote(this.proposedLeader, this.proposedZxid, this.logicalclock, this.proposedEpoch));
      return;
    }
    if (this.manager.haveDelivered()) this.sendNotifications();
    else this.manager.connectAll();
    round.notTimeoutMs = Math.min(round.notTimeoutMs * 2, this.maxNotificationIntervalMs);
    this.ctx.annotate("fle.notification-timeout", { sid: this.myid, nextTimeoutMs: round.notTimeoutMs });
  }

  /** During finalizeWait: a better notification reopens the round; any other is consumed. */
  private finalizeStep(round: ElectionRound, n: Notification): void {
    if (this.beats(n.leader, n.zxid, n.peerEpoch, this.proposedLeader, this.proposedZxid, this.proposedEpoch)) {
      round.finalizing = false;
      this.recvqueue.push(n); // put back: the loop takes it next
    }
  }

  private processNotification(round: ElectionRound, n: Notification): void {
    // Only votes from a voter about a voter count.
    if (!this.isVoter(n.sid) || !this.isVoter(n.leader)) return;
    switch (n.state) {
      case "LOOKING":
        // The canary takes a vote of an older round as one of the current round.
        if (this.options.countOldRounds === true && n.electionEpoch < this.logicalclock) this.receivedLookingNotification(round, { ...n, electionEpoch: this.logicalclock });
        else this.receivedLookingNotification(round, n);
        return;
      case "OBSERVING":
        return;
      case "FOLLOWING":
      case "LEADING":
        // 3.8 splits these (ZOOKEEPER-3922) only for the 2-node oracle, not modelled here.
        this.receivedFollowingNotification(round, n);
        return;
      default:
        unreachable(n.state);
    }
  }

  private receivedLookingNotification(round: ElectionRound, n: Notification): void {
    if (this.initLastLoggedZxid() === -1n || n.zxid === -1n) return;
    if (n.electionEpoch > this.logicalclock) {
      // A newer round: join it, forget the old round's votes, re-propose the better of n's
      // vote and our *initial* vote.
      this.logicalclock = n.electionEpoch;
      round.recvset.clear();
      if (this.beats(n.leader, n.zxid, n.peerEpoch, this.initId(), this.initLastLoggedZxid(), this.initPeerEpoch())) {
        this.updateProposal(n.leader, n.zxid, n.peerEpoch);
      } else {
        this.updateProposal(this.initId(), this.initLastLoggedZxid(), this.initPeerEpoch());
      }
      this.sendNotifications();
    } else if (n.electionEpoch < this.logicalclock) {
      return; // an older round: not recorded
    } else if (this.beats(n.leader, n.zxid, n.peerEpoch, this.proposedLeader, this.proposedZxid, this.proposedEpoch)) {
      this.updateProposal(n.leader, n.zxid, n.peerEpoch);
      this.sendNotifications();
    }
    round.recvset.set(n.sid, makeVote(n.leader, n.zxid, n.electionEpoch, n.peerEpoch));
    const proposal = makeVote(this.proposedLeader, this.proposedZxid, this.logicalclock, this.proposedEpoch);
    if (this.hasQuorum(round.recvset, proposal)) round.finalizing = true;
  }

  /** n comes from a member of an established ensemble (FOLLOWING or LEADING). */
  private receivedFollowingNotification(round: ElectionRound, n: Notification): void {
    // Java stores recvset entries with format version 0 but compares them to a vote with n's
    // version; Vote.equals then compares only leader ids between non-LOOKING votes.
    const nVote = makeVote(n.leader, n.zxid, n.electionEpoch, n.peerEpoch, n.state, n.version);
    const endVote = makeVote(n.leader, n.zxid, n.electionEpoch, n.peerEpoch);
    if (n.electionEpoch === this.logicalclock) {
      round.recvset.set(n.sid, makeVote(n.leader, n.zxid, n.electionEpoch, n.peerEpoch, n.state));
      if (this.hasQuorum(round.recvset, nVote) && this.checkLeader(round.recvset, n.leader, n.electionEpoch)) {
        this.decide(n.leader, endVote);
        return;
      }
    }
    // Before joining an established ensemble, a quorum must follow the same leader (and the
    // leader must say it leads). outofelection also keeps votes of the current round.
    round.outofelection.set(n.sid, nVote);
    if (this.hasQuorum(round.outofelection, nVote) && this.checkLeader(round.outofelection, n.leader, n.electionEpoch)) {
      this.logicalclock = n.electionEpoch;
      this.decide(n.leader, endVote);
    }
  }

  /**
   * The leader of a quorum must have told us itself that it is LEADING, so that we do not keep
   * electing a leader that has crashed; if everyone else thinks we lead, the round must be ours.
   */
  private checkLeader(votes: ReadonlyMap<number, Vote>, leader: number, electionEpoch: bigint): boolean {
    if (leader !== this.myid) return votes.get(leader)?.state === "LEADING";
    return this.logicalclock === electionEpoch;
  }

  /** `getVoteTracker(votes, vote).hasAllQuorums()`: do the voters agreeing with `vote` form a quorum? */
  private hasQuorum(votes: ReadonlyMap<number, Vote>, vote: Vote): boolean {
    const acks = new Set<number>();
    for (const [sid, v] of votes) if (voteEquals(vote, v)) acks.add(sid);
    return this.qv.containsQuorum(acks) && (this.nextQv === undefined || this.nextQv.containsQuorum(acks));
  }

  /** `validVoter`: a voter of the committed or of the pending configuration. */
  private isVoter(sid: number): boolean {
    return this.qv.isVoter(sid) || (this.nextQv?.isVoter(sid) ?? false);
  }

  /**
   * The configurations changed (a reconfig proposed, committed, or learnt by gossip). A server
   * that is no member any more stays a participant that cannot vote (3.8's non-voting follower).
   */
  setQuorumVerifiers(qv: QuorumVerifier, lastSeen: QuorumVerifier): void {
    this.qv = qv;
    this.nextQv = lastSeen.version > qv.version ? lastSeen : undefined;
    this.isParticipant = (qv.allMembers.get(this.myid)?.role ?? "participant") === "participant";
  }

  /** Leaves the election: sets the state, records the vote, reports after the loop settles. */
  private decide(leader: number, endVote: Vote): void {
    const state: ElectedState = leader === this.myid ? "LEADING" : this.isParticipant ? "FOLLOWING" : "OBSERVING";
    this.state = state;
    const round = this.round;
    if (round !== undefined) this.ctx.cancelTimer(round.timer);
    this.round = undefined;
    this.recvqueue.length = 0; // leaveInstance
    this.vote = endVote; // QuorumPeer: setCurrentVote(lookForLeader())
    this.ctx.annotate("fle.elected", {
      sid: this.myid,
      leader: endVote.leader,
      zxid: zxidHex(endVote.zxid),
      state,
      electionEpoch: Number(endVote.electionEpoch),
    });
    this.elected = { vote: endVote, state };
  }

  // ---- proposals and notifications ---------------------------------------------------------

  private updateProposal(leader: number, zxid: Zxid, epoch: number): void {
    this.proposedLeader = leader;
    this.proposedZxid = zxid;
    this.proposedEpoch = epoch;
    this.ctx.annotate("fle.vote", {
      sid: this.myid,
      proposedLeader: leader,
      zxid: zxidHex(zxid),
      electionEpoch: Number(this.logicalclock),
      state: this.state,
    });
  }

  /** Our proposal, as LOOKING, to every voter (ourselves included, through the loopback). */
  private sendNotifications(): void {
    const voters = new Set(this.qv.votingMembers.keys());
    for (const sid of this.nextQv?.votingMembers.keys() ?? []) voters.add(sid);
    for (const sid of voters) {
      this.sendTo(sid, this.proposedLeader, this.proposedZxid, this.logicalclock, "LOOKING", this.proposedEpoch);
    }
  }

  private sendTo(sid: number, leader: number, zxid: Zxid, electionEpoch: bigint, state: ServerState, peerEpoch: number): void {
    const message: FleNotificationMessage = {
      kind: "fle.notification",
      state,
      leader,
      zxid,
      electionEpoch,
      peerEpoch,
      version: NOTIFICATION_VERSION,
      config: this.qv.toString(),
    };
    this.manager.toSend(sid, message);
  }

  private readonly weightOf = (sid: number): number => this.qv.getWeight(sid);

  /** `totalOrderPredicate(new, cur)` with this peer's weights (and, in the bug zoo, its defects). */
  private beats(newId: number, newZxid: Zxid, newEpoch: number, curId: number, curZxid: Zxid, curEpoch: number): boolean {
    const zxid = this.options.ignoreZxid === true ? curZxid : newZxid; // the canary: equal zxids, so the sid decides
    return totalOrderPredicate(newId, zxid, newEpoch, curId, curZxid, curEpoch, this.weightOf, this.options.zk1419 === true);
  }

  /**
   * Observers propose Long.MIN_VALUE so that any voter's vote beats theirs. A voter of the
   * committed configuration only (3.8's `getInitId` reads `getQuorumVerifier`, not the pending
   * one): a server a pending reconfig makes a voter is still an observer, and proposing itself
   * would pair its sid with an observer's Long.MIN_VALUE zxid and epoch.
   */
  private initId(): number {
    return this.qv.isVoter(this.myid) ? this.myid : LONG_MIN_VALUE;
  }

  private initLastLoggedZxid(): Zxid {
    return this.isParticipant ? this.options.getLastLoggedZxid() : LONG_MIN_VALUE_ZXID;
  }

  private initPeerEpoch(): number {
    return this.isParticipant ? this.options.getCurrentEpoch() : LONG_MIN_VALUE;
  }
}

/** The `version=<hex>` of a config text carried by a notification; −1 when it has none. */
function configVersion(text: string): bigint {
  const m = /(?:^|\n)version=([0-9a-fA-F]{1,16})\s*$/.exec(text);
  return m === null ? -1n : BigInt(`0x${m[1]}`);
}
