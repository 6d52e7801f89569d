/**
 * client.timeliness: ZooKeeper's timeliness guarantee (docs/zookeeper.md §1) from the server's
 * side, online. A server that has lost its leader or its quorum stops serving within a bound,
 * so a client's view is never staler than that: a server cut off longer than the bound must not
 * answer a client — a reply to a request, a ping that keeps the client attached to it, or a
 * ConnectResponse that (re)attaches a session.
 *
 * Cut off, read from the trace (`zab.state`, `fle.elected`, crashes, partitions):
 * - a leader (LEADING) has lost its quorum while the voters it could still lead, itself
 *   included, are not a majority of the voters. A voter counts unless it is down, a link between
 *   the two is cut (either way: a follower must hear the leader and the leader its ACKs), or it
 *   is leading or following another server. A voter the leader can no longer reach but still
 *   hears is lost only once its last packet has arrived: 3.8's LearnerHandler renews a learner's
 *   ack deadline on any packet it reads (a forwarded request, a revalidation, an ACK), and the
 *   learner goes on sending until its own syncLimit runs out — later still through a clogged link.
 *   So when the loss needs such a voter, each packet from it that reaches the leader restarts the
 *   loss (api-swarm-ensemble seed 10316: a REQUEST forwarded through a clogged link reached a
 *   leader whose outgoing links were cut 3.5 s after the cut, and it served 6 s more, as 3.8
 *   would). The voters are those of the config(s) the leader
 *   must hold a quorum of, read from its own `zab.config.activated` / `zab.config.next`: 3.8's
 *   Leader.lead checks, every tick, a quorum of its current config and, while a reconfig is
 *   pending, of the proposed one (the last-seen config, when its version is newer), so a loss
 *   of either is a loss (a voter whose server was never seen counts as support). A trace with no
 *   config events falls back to the servers seen FOLLOWING or LEADING (observers never are); one
 *   never seen so is not counted, which only makes a loss rarer.
 * - a learner (FOLLOWING, OBSERVING) has lost its leader — the one its last `fle.elected`
 *   named — while that leader is down or the link from it is cut.
 * A new role starts with a fresh judgement. Pauses and clogged links never count as a loss
 * (a paused node's partner may simply wait), so every loss judged is a certain one.
 *
 * The bound: `syncLimit` ticks (ZooKeeper's: a learner's read of its leader times out after
 * syncLimit ticks of silence; a leader gives up when a quorum has not answered for syncLimit
 * ticks), plus one tick because both are checked once per tick, plus one tick of margin: (syncLimit
 * + 2) ticks on the server's own clock (a `clock` fault changes it), not counting time it was
 * paused. tickTime is read from the trace: a leader's `leader-tick` timer fires every tickTime/2
 * of its own clock (its PINGs are not a measure: a learner that joins mid-round is pinged then).
 * Before a leader has sent two rounds, nothing is judged. `syncLimitTicks` is the ensemble's
 * setting (5 by default, as the scenarios' ensembles have).
 *
 * Read-only mode (docs/zookeeper.md §3.7) is the other way a cut-off server may answer clients:
 * between its `zk.readonly.start` and `zk.readonly.stop` (or a crash) a LOOKING server may serve
 * read-only clients, and only them, and only reads. So, for such a server:
 * - a reply labelled with a state-changing op (`reply:create`, `reply:setData`, … `reply:sync`)
 *   is a write acknowledged without a quorum: a violation (its refusals are labelled `notReadOnly`);
 * - any answer on a connection whose client did not ask for read-only (its `client.connect`
 *   carries no `readOnly`) is a violation: 3.8 closes such a connection unanswered. A connection
 *   whose `client.connect` was never seen (a real client through `zksim serve`) is not judged.
 *
 * State: one entry per server (a role, a loss start) and the cut links: bounded by the ensemble;
 * the read-only flag of each client connection seen (connections are few per run).
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { readConfig, type ConfigView } from "../reconfig/config-view.js";
import { CutLinks } from "../cut-links.js";
import { guarded, intField, optionalBooleanField, stringField } from "../event-reader.js";
import { NodeClocks } from "../node-clocks.js";
import { ServerNames } from "../zab/zab-event.js";
import { mayBeClientTraffic, SERVER_MESSAGE_TYPES } from "../message-types.js";

export const DEFAULT_SYNC_LIMIT_TICKS = 5;

interface Role {
  state: "LEADING" | "FOLLOWING" | "OBSERVING";
  /** A learner's leader (node id), when its election named one already seen. */
  leader: string | undefined;
}

/** A server's configs: the one it activated last and the last one proposed to it (3.8's QuorumVerifier and lastSeenQuorumVerifier). */
interface Configs {
  current: ConfigView | undefined;
  lastSeen: ConfigView | undefined;
}

const KINDS = [
  "zab.state", "zab.role.ended", "fle.elected", "crash", "start", "restart", "pause", "resume", "partition", "heal", "clock", "send", "timer",
  "zk.readonly.start", "zk.readonly.stop", "client.connect", "zab.config.activated", "zab.config.next", "deliver",
] as const;
type Kind = KindsOf<typeof KINDS>;

/** Ops whose acknowledgement needs a quorum (3.8's ReadOnlyRequestProcessor refuses them), as reply labels. */
const QUORUM_OP_REPLIES: ReadonlySet<string> = new Set(
  ["create", "create2", "createContainer", "createTTL", "delete", "deleteContainer", "setData", "setACL", "check", "multi", "sync", "reconfig"].map((op) => `reply:${op}`),
);

/** A learner's packets on its quorum connection (not the election's): what renews its ack deadline at the leader. */
const isQuorumPacket = (type: string): boolean => SERVER_MESSAGE_TYPES.has(type) && !type.startsWith("fle.") && type !== "qcm.initial";

/** The kernel's label for the Leader's half-tick timer (Leader.lead). */
const LEADER_TICK = "leader-tick";

export class TimelinessChecker implements Checker<Kind> {
  readonly name = "client.timeliness";
  readonly kinds = KINDS;
  /** Of the messages, what a server sends its clients (its answers). */
  readonly messageTypes = { send: mayBeClientTraffic, deliver: isQuorumPacket };
  readonly log = new ViolationLog(this.name);
  private readonly names = new ServerNames();
  /** A config's voters as nodes (`configNodes`), worked out again only after the names changed, not per event. */
  private readonly voterNodes = new WeakMap<ConfigView, { namesChanged: number; nodes: string[] }>();
  private readonly roles = new Map<string, Role>();
  /** The leader each server's last election named. */
  private readonly elected = new Map<string, string>();
  private readonly voters = new Set<string>();
  /** Each server's configs, from its own config events. */
  private readonly configs = new Map<string, Configs>();
  private readonly down = new Set<string>();
  private readonly paused = new Map<string, number>();
  private readonly cut = new CutLinks();
  private readonly clocks = new NodeClocks();
  /** Server → true time its current loss (of leader or quorum) began. */
  private readonly lossSinceUs = new Map<string, number>();
  /** Servers already reported in their current loss (one violation per loss). */
  private readonly reported = new Set<string>();
  private readonly lastTickUs = new Map<string, number>();
  private halfTickLocalUs = Infinity;
  /** Servers running a read-only server now; those already reported in this read-only spell. */
  private readonly readOnly = new Set<string>();
  private readonly readOnlyReported = new Set<string>();
  /** Client connection → whether its client asked for read-only. */
  private readonly connReadOnly = new Map<number, boolean>();

  constructor(private readonly syncLimitTicks = DEFAULT_SYNC_LIMIT_TICKS) {}

  onEvent(e: TraceEvent<Kind>): void {
    if (!this.ignores(e)) guarded(this.log, e, this, this.read);
  }

  /**
   * Most of what it reads are messages and the servers' timers: a packet matters only to a
   * server in a loss (a sent one also to a read-only server), a timer only as the leader's tick.
   * Those it has nothing to do with are passed over before any field is read.
   */
  private ignores(e: TraceEvent<Kind>): boolean {
    switch (e.kind) {
      case "deliver":
        return this.lossSinceUs.size === 0;
      case "send":
        return this.lossSinceUs.size === 0 && this.readOnly.size === 0;
      case "timer":
        return e.detail !== LEADER_TICK;
      default:
        return false;
    }
  }

  private read(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "timer":
        if (e.detail === LEADER_TICK) this.learnTick(e.node, e.atUs);
        return;
      case "send":
        return this.onSend(e);
      case "deliver":
        return this.onDeliver(e);
      case "clock":
        this.clocks.apply(e);
        // A timer already set keeps the delay it was given in real time (the kernel converts a
        // local delay once, when it is set), so a tick spanning a rate change is no measure.
        this.lastTickUs.delete(e.node);
        return;
      case "pause":
        this.paused.set(e.node, e.atUs);
        return;
      case "resume": {
        // Time spent paused is not the server's to count: its loss starts that much later.
        const since = this.paused.get(e.node);
        this.paused.delete(e.node);
        const loss = this.lossSinceUs.get(e.node);
        if (since !== undefined && loss !== undefined) this.lossSinceUs.set(e.node, loss + (e.atUs - since));
        return;
      }
      case "zk.readonly.start":
        this.readOnly.add(e.node);
        this.readOnlyReported.delete(e.node);
        return;
      case "zk.readonly.stop":
        this.readOnly.delete(e.node);
        return;
      case "client.connect":
        this.connReadOnly.set(intField(e, "conn"), optionalBooleanField(e, "readOnly") === true);
        return;
      case "crash":
        this.readOnly.delete(e.node);
        this.down.add(e.node);
        this.paused.delete(e.node);
        this.endRole(e.node);
        break;
      case "start":
      case "restart":
        this.down.delete(e.node);
        break;
      case "partition":
      case "heal":
        this.cut.apply(e);
        break;
      case "fle.elected": {
        this.names.learn(e);
        const leader = this.names.node(String(intField(e, "leader")));
        if (leader === undefined) this.elected.delete(e.node);
        else this.elected.set(e.node, leader);
        return;
      }
      case "zab.role.ended":
        this.names.learn(e);
        this.endRole(e.node);
        break;
      case "zab.state":
        this.names.learn(e);
        this.onState(e, stringField(e, "state"));
        break;
      case "zab.config.activated":
      case "zab.config.next":
        this.names.learn(e);
        this.onConfig(e);
        break;
    }
    this.recompute(e.atUs);
  }

  private onState(e: TraceEvent, state: string): void {
    this.endRole(e.node);
    if (state !== "LEADING" && state !== "FOLLOWING" && state !== "OBSERVING") return;
    if (state !== "OBSERVING") this.voters.add(e.node);
    this.roles.set(e.node, { state, leader: state === "LEADING" ? undefined : this.elected.get(e.node) });
  }

  private onConfig(e: TraceEvent): void {
    const c = readConfig(stringField(e, "config"));
    if (typeof c === "string") return this.log.add(e, `${e.kind} carries an unreadable config: ${c}`);
    const configs = this.configs.get(e.node) ?? { current: undefined, lastSeen: undefined };
    if (e.kind === "zab.config.activated") configs.current = c;
    else configs.lastSeen = c;
    this.configs.set(e.node, configs);
  }

  private endRole(node: string): void {
    this.roles.delete(node);
    this.lossSinceUs.delete(node);
    this.reported.delete(node);
    this.lastTickUs.delete(node);
  }

  /** Starts or ends each server's loss after a change of roles, crashes or links. */
  private recompute(nowUs: number): void {
    for (const [node, role] of this.roles) {
      if (!this.isCutOff(node, role)) {
        this.lossSinceUs.delete(node);
        this.reported.delete(node);
      } else if (!this.lossSinceUs.has(node)) {
        this.lossSinceUs.set(node, nowUs);
      }
    }
  }

  /**
   * Whether `node` has lost its leader or quorum; with `heardSupport`, a voter the leader still
   * hears (only the leader's own link to it cut) counts as support.
   */
  private isCutOff(node: string, role: Role, heardSupport = false): boolean {
    if (role.state !== "LEADING") {
      const leader = role.leader;
      return leader !== undefined && (this.down.has(leader) || this.cut.has(leader, node));
    }
    const configs = this.configs.get(node);
    const current = configs?.current;
    if (current === undefined) return !this.hasQuorum(node, this.voters, heardSupport);
    const lastSeen = configs?.lastSeen;
    const pending = lastSeen !== undefined && lastSeen.version > current.version ? lastSeen : undefined;
    return !this.hasQuorum(node, this.configNodes(current), heardSupport) || (pending !== undefined && !this.hasQuorum(node, this.configNodes(pending), heardSupport));
  }

  /**
   * A learner's packet reaches a leader in a loss: when the loss needs a voter the leader still
   * hears (counting those as support it would lead a quorum), the packet renews that voter's ack
   * deadline and the loss starts again from its arrival.
   */
  private onDeliver(e: TraceEvent): void {
    const since = this.lossSinceUs.get(e.node);
    const peer = e.peer;
    if (since === undefined || peer === undefined || since >= e.atUs) return;
    if (!this.cut.has(e.node, peer) || this.cut.has(peer, e.node) || e.detail === undefined || !isQuorumPacket(e.detail)) return;
    const role = this.roles.get(e.node);
    if (role?.state !== "LEADING" || this.down.has(peer) || this.isCutOff(e.node, role, true)) return;
    this.lossSinceUs.set(e.node, e.atUs);
    this.reported.delete(e.node);
  }

  /** A config's voters as nodes; a voter whose server was never seen stays its sid (then it counts as support). */
  private configNodes(c: ConfigView): string[] {
    const known = this.voterNodes.get(c);
    if (known !== undefined && known.namesChanged === this.names.changes) return known.nodes;
    const nodes = [...c.voters].map((sid) => this.names.node(String(sid)) ?? `sid ${sid}`);
    this.voterNodes.set(c, { namesChanged: this.names.changes, nodes });
    return nodes;
  }

  /** Whether the leader `node` can still lead a majority of `voters`, itself included if it is one. */
  private hasQuorum(node: string, voters: Iterable<string>, heardSupport: boolean): boolean {
    let support = 0;
    let size = 0;
    for (const v of voters) {
      size++;
      if (v !== node && (this.down.has(v) || (this.cut.has(node, v) && !heardSupport) || this.cut.has(v, node))) continue;
      const r = v === node ? undefined : this.roles.get(v);
      if (r !== undefined && (r.state === "LEADING" || (r.leader !== undefined && r.leader !== node))) continue;
      support++;
    }
    return 2 * support > size;
  }

  private onSend(e: TraceEvent): void {
    if (this.readOnly.has(e.node)) return this.onReadOnlySend(e);
    const role = this.roles.get(e.node);
    if (role === undefined) return;
    const what = e.detail ?? "";
    if (what !== "ping" && what !== "connected" && !what.startsWith("reply:")) return;
    const since = this.lossSinceUs.get(e.node);
    if (since === undefined || this.reported.has(e.node) || this.halfTickLocalUs === Infinity) return;
    const tickUs = 2 * this.halfTickLocalUs;
    const boundUs = (this.syncLimitTicks + 2) * tickUs;
    const cutOffUs = this.clocks.elapsedLocalUs(e.node, since, e.atUs);
    if (cutOffUs <= boundUs) return;
    this.reported.add(e.node);
    const lost = role.state === "LEADING" ? "its quorum" : `its leader ${role.leader ?? "?"}`;
    this.log.add(
      e,
      `${this.names.label(e.node)} (${role.state}) answered ${e.peer ?? "a client"} (${what}) ${cutOffUs / 1000} ms after it lost ${lost} at ${since / 1000} ms: ` +
        `a server cut off for longer than syncLimit (${this.syncLimitTicks}) + 2 ticks of ${tickUs / 1000} ms must have stopped serving`,
    );
  }

  /** An answer from a read-only server: reads to read-only clients only. */
  private onReadOnlySend(e: TraceEvent): void {
    const what = e.detail ?? "";
    if (this.readOnlyReported.has(e.node) || e.conn === undefined) return;
    const asked = this.connReadOnly.get(e.conn);
    let wrong: string | undefined;
    if (QUORUM_OP_REPLIES.has(what)) wrong = `acknowledged a write (${what}) without a quorum; a read-only server answers NOTREADONLY`;
    else if (asked === false) wrong = `answered (${what}) a client that did not ask for read-only; a read-only server closes such a connection unanswered`;
    if (wrong === undefined) return;
    this.readOnlyReported.add(e.node);
    this.log.add(e, `${this.names.label(e.node)} in read-only mode ${wrong} (to ${e.peer ?? "a client"}, connection ${e.conn})`);
  }

  /** tickTime/2: the shortest gap between two firings of a leader's half-tick timer, on its own clock. */
  private learnTick(node: string, atUs: number): void {
    const last = this.lastTickUs.get(node);
    if (last === atUs) return;
    if (last !== undefined) this.halfTickLocalUs = Math.min(this.halfTickLocalUs, this.clocks.elapsedLocalUs(node, last, atUs));
    this.lastTickUs.set(node, atUs);
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
