/**
 * One model of every server's replica, as the server's `zab.*` annotations state it, for the
 * ZAB checkers that judge histories (prefix-consistency, committed-durability,
 * primary-integrity). Each used to rebuild per-server history on its own, with subtly
 * different rules; one model means one rule per event, tested on its own (test/check/zab/
 * replica-log.test.ts), and a reset the model misses is missed by nobody in particular.
 *
 * Per server:
 * - `logged`: what its txn log durably holds (`zab.log`; a second write of a zxid replaces it);
 * - `applied`: what its data tree reflects, in the order it was applied;
 * - `treeZxid`: the zxid its tree last claimed: the last delivery, or the point of its last
 *   reset (recovery, truncation, snapshot) or fast-forward. A delivery must be above it.
 * - `syncLeader`: the leader of its last `zab.sync`, whose tree a SNAP carries.
 *
 * The rules (the server's annotations are taken at their word):
 * - `zab.recovered {lastZxid}`: the log keeps only entries ≤ lastZxid (the rest was lost with
 *   the crash, or never fsynced); the tree becomes that same list (a restart replays snapshot +
 *   log, uncommitted tail included). Above its last `zab.log`, the log also holds what the
 *   server appended to it (`disk.append {record}`) up to lastZxid: an fsync can complete while
 *   the process cannot announce it (paused, then crashed as it resumed, before its sync thread
 *   ran), so the txn is durable though never traced as logged. Those txns are the proposals of
 *   their zxids (`zab.propose`: one txn per zxid, zab.zxid-uniqueness).
 * - `zab.truncate {zxid}`: log and tree are cut back to ≤ zxid; then the tree is fast-forwarded
 *   to zxid (the learner reloads its tree from the truncated log). The truncation is not
 *   fsynced: a crash can take it back, so at the next `zab.recovered` the removed records count
 *   as appended ones (above the last logged entry, in zxid order, up to lastZxid) until a later
 *   `zab.log` of a higher zxid shows the log durable past them.
 * - `zab.snap.load {zxid}`: log and tree become the sync leader's tree ≤ zxid (its applied
 *   history, then its logged txns above it: `lead()` loads the whole log into the tree).
 * - fast-forward: ZooKeeper replays the txn log into the tree whenever it (re)loads its
 *   database: a learner's `zab.sync {peerLastZxid}` (the zxid it reported, its tree's last),
 *   `zab.leader.established {lastZxid}`, a truncation. The tree is extended with the server's
 *   own logged txns above its last applied one, up to that zxid. Only logged txns are replayed,
 *   so a tree that claims a zxid it never logged (ZOOKEEPER-2355) still shows a hole.
 * - Where a reset reaches zxids the trace never showed the server holding (a snapshot from
 *   before the trace, a leader not yet seen), the gap is filled from `fill`, the caller's
 *   sequence of txns everybody must have (its committed or delivered sequence).
 *
 * Bounded state (`prune`): below a base zxid every server holds the same txns durably (the
 * durable floor of durable-floor.ts), so the histories forget their entries there; the base
 * entries count as the first `baseCount` entries of every applied history (indices stay
 * absolute, shared with the caller's global sequence). A reset at or above the base keeps that
 * prefix; a delivery or log entry at or below the base (only after a server lost durable txns)
 * moves the tree point and is not kept.
 *
 * The model judges nothing: the checkers read it and report.
 */
import type { Zxid } from "../../zk/proto/records.js";
import { filledUpTo, TxnHistory, type TxnEntry } from "./txn-history.js";

export class Replica {
  readonly logged = new TxnHistory();
  readonly applied = new TxnHistory();
  treeZxid: Zxid = -1n;
  syncLeader: string | undefined = undefined;

  /**
   * What this server's tree holds up to `upTo` when it leads a sync: its applied history, then
   * its logged txns above it (a SNAP it sends before it is established already carries its
   * uncommitted tail, which establishment then commits).
   */
  treeUpTo(upTo: Zxid): readonly TxnEntry[] {
    const applied = this.applied.entries;
    const last = this.applied.lastZxid() ?? -1n;
    const tail = this.logged.entries.filter((t) => t.zxid > last && t.zxid <= upTo);
    return tail.length === 0 ? applied : [...applied, ...tail];
  }
}

export interface ReplicaLogsOptions {
  /**
   * Keep the logged and applied histories (default true). Without them only `treeZxid` and
   * `syncLeader` are followed, by the same rules, in constant space per server: for a checker
   * that needs to know only how far each tree got.
   */
  histories?: boolean;
}

export class ReplicaLogs {
  private readonly replicas = new Map<string, Replica>();
  private readonly histories: boolean;
  /** Everything at or below this zxid has been forgotten (see `prune`). */
  private baseZxid: Zxid = -1n;
  /** How many entries each applied history forgot: the absolute index of its first held one. */
  private baseCount = 0;
  /** Per server, the zxids it appended to its txn log above its last `zab.log`, in order. */
  private readonly unannounced = new Map<string, Zxid[]>();
  /** zxid → txn of the proposals seen (above the base). */
  private readonly proposals = new Map<Zxid, string>();

  constructor(options: ReplicaLogsOptions = {}) {
    this.histories = options.histories ?? true;
  }

  /** The servers seen so far, in order of first appearance. */
  get all(): IterableIterator<Replica> {
    return this.replicas.values();
  }

  /** The entries the histories hold (for `Checker.retained`). */
  retained(): number {
    let n = 0;
    for (const r of this.replicas.values()) n += r.logged.entries.length + r.applied.entries.length;
    for (const z of this.unannounced.values()) n += z.length;
    return n + this.proposals.size;
  }

  /** The servers seen so far, by node. */
  get nodes(): IterableIterator<string> {
    return this.replicas.keys();
  }

  replica(node: string): Replica {
    let r = this.replicas.get(node);
    if (r === undefined) {
      this.replicas.set(node, (r = new Replica()));
      r.applied.replace([], this.baseCount);
    }
    return r;
  }

  /**
   * Forgets the logged and applied entries at or below `baseZxid`. `appliedCount`: the absolute
   * index every applied history now starts at (the caller's global sequence forgot as many, and
   * every applied history agrees with it that far); without it, applied entries are dropped by
   * zxid.
   */
  prune(baseZxid: Zxid, appliedCount?: number): void {
    if (baseZxid <= this.baseZxid) return;
    this.baseZxid = baseZxid;
    if (appliedCount !== undefined) this.baseCount = appliedCount;
    for (const r of this.replicas.values()) {
      r.logged.dropThrough(baseZxid);
      if (appliedCount !== undefined) r.applied.dropBefore(appliedCount);
      else r.applied.dropThrough(baseZxid);
    }
    for (const zxid of this.proposals.keys()) if (zxid <= baseZxid) this.proposals.delete(zxid);
    for (const [node, zxids] of this.unannounced) this.unannounced.set(node, zxids.filter((z) => z > baseZxid));
  }

  /** `zab.propose`: the txn of `zxid`. */
  proposed(zxid: Zxid, txn: string): void {
    if (this.histories && zxid > this.baseZxid) this.proposals.set(zxid, txn);
  }

  /** `disk.append {record}`: `node` wrote the txn-log record of `zxid` (durable once an fsync covers it). */
  appended(node: string, zxid: Zxid): void {
    if (!this.histories || zxid <= this.baseZxid) return;
    let zxids = this.unannounced.get(node);
    if (zxids === undefined) this.unannounced.set(node, (zxids = []));
    zxids.push(zxid);
  }

  /** The replica of `node` if the trace has shown it. */
  find(node: string): Replica | undefined {
    return this.replicas.get(node);
  }

  /** `zab.log`: the txn is durable in the server's log. */
  log(node: string, entry: TxnEntry): void {
    if (this.histories && entry.zxid > this.baseZxid) this.replica(node).logged.put(entry);
    const zxids = this.unannounced.get(node);
    if (zxids !== undefined && zxids.length > 0) keepAbove(zxids, entry.zxid);
  }

  /**
   * `zab.deliver`: the server applied the txn. A delivery at or below the tree's zxid is not
   * applied (a TotalOrder violation, for the caller to report); returns whether it was.
   */
  deliver(node: string, entry: TxnEntry): boolean {
    const r = this.replica(node);
    if (entry.zxid <= r.treeZxid) return false;
    if (this.histories && entry.zxid > this.baseZxid) r.applied.append(entry);
    r.treeZxid = entry.zxid;
    return true;
  }

  /** `zab.recovered`: returns the logged txns above `lastZxid`, lost with the crash. */
  recovered(node: string, lastZxid: Zxid, fill: readonly TxnEntry[]): TxnEntry[] {
    const r = this.replica(node);
    const lost = r.logged.cutAbove(lastZxid);
    const held = this.histories ? [...r.logged.entries, ...this.appendedUnannounced(node, r, lastZxid)] : [];
    this.unannounced.delete(node);
    this.reset(r, this.histories ? filledUpTo(held, fill, lastZxid) : [], lastZxid);
    return lost;
  }

  /** The txns `node` appended above its last logged one, up to `upTo`, whose proposals are known (in zxid order, no gap). */
  private appendedUnannounced(node: string, r: Replica, upTo: Zxid): TxnEntry[] {
    const out: TxnEntry[] = [];
    let last = r.logged.lastZxid() ?? -1n;
    for (const zxid of this.unannounced.get(node) ?? []) {
      if (zxid <= last || zxid > upTo) continue;
      const txn = this.proposals.get(zxid);
      if (txn === undefined) break;
      out.push({ zxid, txn });
      last = zxid;
    }
    return out;
  }

  /**
   * `zab.truncate`: returns the logged txns above `zxid`, removed from the log. The truncation
   * is a write like any other (ZooKeeper does not fsync it): a crash before a later fsync of that
   * log can take it back, and the removed records are on the disk again. So they stay candidates
   * for the next recovery, as appended records never announced as logged do.
   */
  truncate(node: string, zxid: Zxid): TxnEntry[] {
    const r = this.replica(node);
    const removed = r.logged.cutAbove(zxid);
    if (this.histories && removed.length > 0) {
      const zxids = new Set([...(this.unannounced.get(node) ?? []), ...removed.map((t) => t.zxid)]);
      this.unannounced.set(node, [...zxids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    r.applied.cutAbove(zxid);
    r.treeZxid = zxid;
    this.fastForward(r, zxid);
    return removed;
  }

  /** `zab.sync`: `learner` syncs with `leader` (either may be unknown yet) having reported `peerLastZxid`. */
  sync(leader: string | undefined, learner: string, peerLastZxid: Zxid): void {
    const r = this.replica(learner);
    r.syncLeader = leader;
    this.fastForward(r, peerLastZxid);
  }

  /** `zab.snap.load`: the server's log and tree become its sync leader's tree up to `zxid`. */
  snapLoad(node: string, zxid: Zxid, fill: readonly TxnEntry[]): void {
    const r = this.replica(node);
    const leader = r.syncLeader === undefined ? undefined : this.replicas.get(r.syncLeader);
    const source = leader === undefined ? fill : leader.treeUpTo(zxid);
    this.unannounced.delete(node);
    this.reset(r, this.histories ? filledUpTo(source, fill, zxid) : [], zxid);
  }

  /** `zab.leader.established`: the leader's tree holds its whole log up to `lastZxid`. */
  established(node: string, lastZxid: Zxid): void {
    this.fastForward(this.replica(node), lastZxid);
  }

  private reset(r: Replica, history: TxnEntry[], point: Zxid): void {
    if (this.histories) {
      const held = history.filter((t) => t.zxid > this.baseZxid);
      r.logged.replace(held);
      r.applied.replace(held, this.baseCount);
    }
    r.treeZxid = point;
  }

  /** Replays `r`'s logged txns above its last applied one, up to `upTo`, into its tree. */
  private fastForward(r: Replica, upTo: Zxid): void {
    if (r.treeZxid < upTo) r.treeZxid = upTo;
    const from = r.applied.lastZxid() ?? -1n;
    if (upTo <= from) return;
    for (const t of r.logged.entries) if (t.zxid > from && t.zxid <= upTo) r.applied.append(t);
  }
}

/** Drops the zxids at or below `zxid` from `zxids`, in place (the rest keep their order). */
function keepAbove(zxids: Zxid[], zxid: Zxid): void {
  let kept = 0;
  for (let i = 0; i < zxids.length; i++) if (zxids[i]! > zxid) zxids[kept++] = zxids[i]!;
  zxids.length = kept;
}
