/**
 * No committed txn is lost across leader changes (NJU Remix specs: CommittedLogDurability,
 * LeaderLogCompleteness / CommitCompleteness).
 *
 * A txn is *committed* once a leader decides to commit it (`zab.commit`), any server delivers it
 * (`zab.deliver`), or it is part of an established leader's initial history (the NEWLEADER
 * quorum commits the whole log of the new leader, ZooKeeper's departure from textbook Zab).
 * The committed set only grows.
 *
 * A TRUNC is judged against what was committed when the leader chose it (`zab.sync`, the
 * leader's LearnerHandler.syncFollower): a txn the leader still held as an outstanding proposal
 * may be truncated from the learner and committed before the TRUNC arrives, and the leader
 * forwards it again right behind the TRUNC (Leader.startForwarding), proposal and commit, on the
 * same connection; the learner then has it again before it acknowledges NEWLEADER. If it never
 * does, LeaderLogCompleteness and the delivery checkers see it.
 *
 * Each server's *logged* history is the one replica model of `replica-log.ts`: `zab.recovered
 * {lastZxid}` keeps only what it had ≤ lastZxid (the rest was lost with the crash),
 * `zab.truncate {zxid}` cuts it back, `zab.snap.load {zxid}` replaces it with the sync leader's
 * tree ≤ zxid (the snapshot will be persisted); where the trace never showed what a reset
 * reaches, the known committed txns fill the gap. Violations:
 * - CommittedLogDurability: a `zab.truncate` removes a committed txn the server had.
 * - LeaderLogCompleteness: when `zab.leader.established` fires, every committed txn must be in
 *   the leader's history ≤ its lastZxid. A leader that lost committed txns at a recovery (the
 *   ZOOKEEPER-3911/4643/4646/4785 family: currentEpoch durable before the synced txns) is
 *   caught here, with the recovery that lost them named.
 * - HistoryConsistency (leader side): the established history ends at lastZxid, so the leader's
 *   log must hold nothing above it; otherwise its tree lags its log (ZOOKEEPER-2845: the tree
 *   not reloaded from the log on going back to LOOKING).
 *
 * Bounded state: the committed txns at or below the durable floor (durable-floor.ts: every
 * server applied them and holds them durably; txns a learner synced but never persisted keep
 * the floor below them) are forgotten with the replicas' entries there. A leader established
 * below the floor, or a truncation below it, removes txns every server had made durable: that
 * is reported as above, without naming each txn.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { KindsOf } from "../checker.js";
import type { Zxid } from "../../zk/proto/records.js";
import { at, formatZxid, syncParties, ZabEventChecker } from "./zab-event.js";
import { intField, optionalZxidField, zxidField } from "../event-reader.js";
import type { TxnEntry } from "./txn-history.js";
import { ReplicaLogs, type Replica } from "./replica-log.js";
import { FloorPruner } from "./durable-floor.js";

interface Committed {
  readonly zxid: Zxid;
  /** The content digest; undefined while only a `zab.commit` (which carries none) named it. */
  txn: string | undefined;
  /** How it became committed (the event that showed it), for messages: see `how`. */
  readonly verb: "committed" | "delivered" | "established";
  readonly by: TraceEvent;
}

/** A server as this checker follows it: its replica (the shared model) and what it lost. */
interface ServerState {
  replica: Replica;
  /** Txns this server had logged and lost at a recovery, by zxid: the recovery that lost them. */
  lostAt: Map<Zxid, string>;
}

const KINDS = ["zab.propose", "zab.log", "zab.commit", "zab.deliver", "zab.recovered", "zab.truncate", "zab.sync", "zab.snap.load", "zab.leader.established", "disk.append"] as const;
type Kind = KindsOf<typeof KINDS>;

export class CommittedDurabilityChecker extends ZabEventChecker<Kind> {
  /** The global committed set, by zxid; it only grows. */
  private readonly committed = new Map<Zxid, Committed>();
  private readonly replicas = new ReplicaLogs();
  private readonly servers = new Map<string, ServerState>();
  /** The txn each zxid was last proposed or logged with, to name the txn of a `zab.commit`. */
  private readonly txnOf = new Map<Zxid, string>();
  /** Per learner node, the trace index of the leader's last sync decision for it (`zab.sync`). */
  private readonly syncDecidedAt = new Map<string, number>();

  constructor() {
    super("zab.committed-durability", KINDS);
    this.pruner = new FloorPruner((floorZxid) => this.prune(floorZxid));
  }

  retained(): number {
    let lost = 0;
    for (const s of this.servers.values()) lost += s.lostAt.size;
    return this.committed.size + this.txnOf.size + lost + this.replicas.retained();
  }

  private prune(floorZxid: Zxid): void {
    for (const zxid of this.committed.keys()) if (zxid <= floorZxid) this.committed.delete(zxid);
    for (const zxid of this.txnOf.keys()) if (zxid <= floorZxid) this.txnOf.delete(zxid);
    for (const s of this.servers.values()) for (const zxid of s.lostAt.keys()) if (zxid <= floorZxid) s.lostAt.delete(zxid);
    this.replicas.prune(floorZxid);
  }

  /** Everything at or below this zxid is committed and durable everywhere, and forgotten. */
  private get floorZxid(): Zxid {
    return this.pruner!.prunedThrough;
  }

  /** "… up to (e,c), which every server had applied and made durable": the forgotten committed txns a reset below the floor loses. */
  private belowFloor(zxid: Zxid): string {
    return `the committed txns above ${formatZxid(zxid)} up to ${formatZxid(this.floorZxid)}, which every server had applied and made durable`;
  }

  protected dispatch(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "zab.propose": {
        const { zxid, txn } = this.txnFields.entry(e);
        this.txnOf.set(zxid, txn);
        this.replicas.proposed(zxid, txn);
        return;
      }
      case "disk.append": {
        // A txn-log record (a snapshot's appends carry none): durable once an fsync covers it.
        const record = optionalZxidField(e, "record");
        if (record !== undefined) this.replicas.appended(e.node, record);
        return;
      }
      case "zab.log":
        this.onLog(e, this.txnFields.entry(e));
        return;
      case "zab.commit":
        this.onCommit(e, zxidField(e, "zxid"));
        return;
      case "zab.deliver": {
        const entry = this.txnFields.entry(e);
        this.replicas.deliver(e.node, entry);
        this.commit(entry.zxid, entry.txn, "delivered", e);
        return;
      }
      case "zab.recovered":
        this.onRecovered(e, zxidField(e, "lastZxid"));
        return;
      case "zab.truncate":
        this.onTruncate(e, zxidField(e, "zxid"));
        return;
      case "zab.sync": {
        const { leader, learner } = syncParties(e, this.names);
        if (learner === undefined) return;
        this.replicas.sync(leader, learner, zxidField(e, "peerLastZxid"));
        this.syncDecidedAt.set(learner, e.index);
        return;
      }
      case "zab.snap.load":
        this.onSnapLoad(e, zxidField(e, "zxid"));
        return;
      case "zab.leader.established":
        this.onEstablished(e, intField(e, "epoch"), zxidField(e, "lastZxid"));
        return;
    }
  }

  private onLog(e: TraceEvent, entry: TxnEntry): void {
    this.replicas.log(e.node, entry);
    this.server(e.node).lostAt.delete(entry.zxid);
    this.txnOf.set(entry.zxid, entry.txn);
  }

  private onCommit(e: TraceEvent, zxid: Zxid): void {
    const txn = this.server(e.node).replica.logged.get(zxid)?.txn ?? this.txnOf.get(zxid);
    this.commit(zxid, txn, "committed", e);
  }

  private commit(zxid: Zxid, txn: string | undefined, verb: Committed["verb"], by: TraceEvent): void {
    if (zxid <= this.floorZxid) return;
    const c = this.committed.get(zxid);
    if (c === undefined) this.committed.set(zxid, { zxid, txn, verb, by });
    else if (c.txn === undefined) c.txn = txn;
  }

  /** "committed by s1 (sid 1) #12 at 3ms": built only for a message (most never need one). */
  private how(c: Committed): string {
    const who = this.names.label(c.by.node);
    if (c.verb === "established") return `in the initial history of ${who}, established epoch ${intField(c.by, "epoch")} (${at(c.by)})`;
    return `${c.verb} by ${who} (${at(c.by)})`;
  }

  /** The committed txns in zxid order. */
  private committedInOrder(): Committed[] {
    return [...this.committed.values()].sort((a, b) => (a.zxid < b.zxid ? -1 : a.zxid > b.zxid ? 1 : 0));
  }

  /** Whether the server holds the committed txn at that zxid (any txn, if its content is unknown). */
  private holds(s: ServerState, c: Committed): boolean {
    const had = s.replica.logged.get(c.zxid);
    return had !== undefined && (c.txn === undefined || had.txn === c.txn);
  }

  private onRecovered(e: TraceEvent, lastZxid: Zxid): void {
    const s = this.server(e.node);
    const lost = this.replicas.recovered(e.node, lastZxid, this.knownCommitted());
    const why = `lost when ${this.names.label(e.node)} recovered with lastZxid ${formatZxid(lastZxid)} (${at(e)})`;
    for (const t of lost) s.lostAt.set(t.zxid, why);
  }

  private onTruncate(e: TraceEvent, zxid: Zxid): void {
    const s = this.server(e.node);
    const truncated = this.replicas.truncate(e.node, zxid).filter((t) => this.isCommitted(t));
    for (const t of truncated) s.lostAt.set(t.zxid, `truncated away at ${this.names.label(e.node)} (${at(e)})`);
    // Committed only after the leader chose this TRUNC: forwarded again behind it (see above).
    const decidedAt = this.syncDecidedAt.get(e.node);
    const removed = decidedAt === undefined ? truncated : truncated.filter((t) => this.committed.get(t.zxid)!.by.index < decidedAt);
    const forgotten = zxid < this.floorZxid ? [this.belowFloor(zxid)] : [];
    if (removed.length === 0 && forgotten.length === 0) return;
    const list = [...forgotten, ...removed.map((t) => `${formatZxid(t.zxid)} (${this.how(this.committed.get(t.zxid)!)})`)].join(", ");
    const syncLeader = s.replica.syncLeader;
    const leader = syncLeader === undefined ? "" : ` on the order of its leader ${this.names.label(syncLeader)}`;
    this.log.add(
      e,
      `CommittedLogDurability violated: ${this.names.label(e.node)} truncated its log to ${formatZxid(zxid)}${leader}, removing committed ${list}; ` +
        `a sync-time truncation may only remove txns that were never committed (cf. ZOOKEEPER-4643/4785)`,
    );
  }

  private onSnapLoad(e: TraceEvent, zxid: Zxid): void {
    const s = this.server(e.node);
    this.replicas.snapLoad(e.node, zxid, this.knownCommitted());
    for (const t of s.replica.logged.entries) s.lostAt.delete(t.zxid);
  }

  private onEstablished(e: TraceEvent, epoch: number, lastZxid: Zxid): void {
    const s = this.server(e.node);
    this.replicas.established(e.node, lastZxid);
    const missing = this.committedInOrder().filter((c) => c.zxid > lastZxid || !this.holds(s, c));
    if (lastZxid < this.floorZxid) {
      this.log.add(
        e,
        `LeaderLogCompleteness violated: ${this.names.label(e.node)} established epoch ${epoch} with history up to ${formatZxid(lastZxid)}, missing ${this.belowFloor(lastZxid)}; ` +
          `the committed txns are lost cluster-wide once its history wins (cf. ZOOKEEPER-3911/4643/4646/4785)`,
      );
    } else if (missing.length > 0) {
      const who = this.names.label(e.node);
      const list = missing.slice(0, 8).map((c) => this.describeMissing(s, c, lastZxid)).join("; ");
      const more = missing.length > 8 ? `; and ${missing.length - 8} more` : "";
      this.log.add(
        e,
        `LeaderLogCompleteness violated: ${who} established epoch ${epoch} with history up to ${formatZxid(lastZxid)}, ` +
          `missing ${missing.length} committed txn${missing.length === 1 ? "" : "s"}: ${list}${more}; ` +
          `the committed txns are lost cluster-wide once its history wins (cf. ZOOKEEPER-3911/4643/4646/4785)`,
      );
    }
    const beyond = s.replica.logged.entries.filter((t) => t.zxid > lastZxid);
    if (beyond.length > 0) {
      this.log.add(
        e,
        `HistoryConsistency violated: ${this.names.label(e.node)} established epoch ${epoch} with history up to ${formatZxid(lastZxid)}, ` +
          `but its txn log also holds ${beyond.slice(0, 8).map((t) => formatZxid(t.zxid)).join(", ")}${beyond.length > 8 ? ` and ${beyond.length - 8} more` : ""}; ` +
          `a leader's initial history is its whole log, so its tree lags its log and its own restart will disagree with its followers (cf. ZOOKEEPER-2845)`,
      );
    }
    // The NEWLEADER quorum commits the leader's whole initial history.
    for (const t of s.replica.logged.entries) {
      if (t.zxid <= lastZxid) this.commit(t.zxid, t.txn, "established", e);
    }
  }

  private describeMissing(s: ServerState, c: Committed, lastZxid: Zxid): string {
    const had = s.replica.logged.get(c.zxid);
    const lost = s.lostAt.get(c.zxid);
    const state =
      had !== undefined && c.zxid <= lastZxid ? `it holds txn "${had.txn}" there instead of "${c.txn ?? "?"}"`
      : lost !== undefined ? lost
      : had !== undefined ? `above its lastZxid`
      : "never logged by it";
    return `${formatZxid(c.zxid)} (${this.how(c)}; ${state})`;
  }

  private isCommitted(t: TxnEntry): boolean {
    const c = this.committed.get(t.zxid);
    return c !== undefined && (c.txn === undefined || c.txn === t.txn);
  }

  /** Committed txns whose content is known, in zxid order: the fill for a history reset. */
  private knownCommitted(): TxnEntry[] {
    return this.committedInOrder().filter((c): c is Committed & TxnEntry => c.txn !== undefined);
  }

  private server(node: string): ServerState {
    let s = this.servers.get(node);
    if (s === undefined) {
      s = { replica: this.replicas.replica(node), lostAt: new Map() };
      this.servers.set(node, s);
    }
    return s;
  }
}
