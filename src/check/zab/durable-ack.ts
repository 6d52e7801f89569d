/**
 * Durability ordering, read from the trace: a server acknowledges a proposal only once the txn
 * is durable on its own disk — appended to its txn log AND covered by an fsync that completed —
 * and (with `replies`, a standalone server) a client sees a zxid in an ok reply only once that
 * zxid is durable on the server it is connected to. The order itself is judged, not its rare
 * consequence (a txn a quorum ACKed, lost when a follower and the leader crash within one fsync).
 *
 * Evidence, all from the trace (Zab's "a follower logs a proposal to stable storage before its
 * ACK"; ZooKeeper's SyncRequestProcessor → SendAckRequestProcessor):
 * - `disk.append` with a `record` field (the zxid the server labels a txn-log append with),
 *   numbered per node as the kernel numbers disk operations (append, replace, delete);
 * - `disk.fsync.done` on the same node and file, whose `id` is the last operation it covers;
 * - `crash`: the node's appends not yet covered are lost (never durable);
 * - `zab.ack` with `from` = `sid`: the server's own ACK at the moment it goes out (a learner's
 *   ACK sent, the leader's self-ACK counted); `from` ≠ `sid` is the leader counting a learner's
 *   ACK, which the learner's own event already judged;
 * - `client.connect` / `client.complete` (with `replies`): the server a client talks to, and the
 *   zxid of each ok reply. The reply is received after it was sent, and a zxid durable when it
 *   was sent is durable still, so a zxid not durable at receipt was not durable at the send.
 *
 * - `zab.snap.load`: a learner replaced its tree by the leader's snapshot (SNAP). It holds the
 *   leader's history in memory only until the snapshot it writes at NEWLEADER (the next
 *   `disk.replace` of a `version-2/snapshot.*` file) is covered by a completed fsync; until
 *   then it sends no `ACK` (the kernel's `send` event of that type) — its NEWLEADER ACK counts
 *   it into the new leader's quorum as holding that history (Learner.syncWithLeader's
 *   `takeSnapshot(true)` before the ACK). A crash, or `zab.recovered` (the tree dropped back to
 *   the disk's), ends that state.
 *
 * A leader's replies are not held to its own fsync: ZooKeeper's leader commits on a quorum of
 * ACKs, which need not include its own (its disk may be the slow one); what makes the commit
 * safe is that each ACK counted was durable, which is the rule judged here.
 *
 * State is bounded: per node, the appends not yet durable (at most what one fsync will cover),
 * and the zxids made durable but not yet ACKed — pruned at each ACK (ACKs go out in zxid order,
 * so older entries are done) and capped at DURABLE_KEPT (an observer never ACKs); an ACK of a
 * zxid older than what the cap forgot is not judged. With `replies`: one watermark per node.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { Zxid } from "../../zk/proto/records.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { detailOf, guarded, idOf, intField, optionalStringField, optionalZxidField, stringField, zxidField } from "../event-reader.js";
import { formatZxid } from "./zab-event.js";

/** How many durable, un-ACKed zxids one node keeps before forgetting the oldest. */
export const DURABLE_KEPT = 4096;

interface Pending {
  zxid: Zxid;
  file: string;
  seq: number;
}

interface NodeLog {
  /** Disk operations so far (the kernel's numbering). */
  ops: number;
  /** Txn-log appends not yet covered by a completed fsync, in append order. */
  pending: Pending[];
  /** Durable zxids not yet ACKed, in the order they became durable. */
  durable: Set<Zxid>;
  /** The highest zxid dropped from `durable` by the cap (0: none). */
  forgotten: Zxid;
  /** The highest zxid ever durable here (the `replies` rule). */
  durableMax: Zxid;
  /** A SNAP loaded and not yet durable: its snapshot file and write (disk op), once written. */
  snap: { file: string; seq: number } | { file: undefined } | undefined;
}

const SNAPSHOT_PREFIX = "version-2/snapshot.";

const KINDS = ["disk.append", "disk.replace", "disk.delete", "disk.fsync.done", "crash", "zab.ack", "zab.snap.load", "zab.recovered", "send"] as const;
const REPLY_KINDS = [...KINDS, "client.connect", "client.complete"] as const;
type Kind = KindsOf<typeof REPLY_KINDS>;

export interface DurableAckOptions {
  /** Also judge clients' ok replies against their server's disk (a standalone server). */
  replies?: boolean;
}

export class DurableAckChecker implements Checker<Kind> {
  readonly log: ViolationLog;
  private readonly nodes = new Map<string, NodeLog>();
  /** Client → the server it last connected to (`replies`). */
  private readonly serverOf = new Map<string, string>();
  readonly kinds: readonly Kind[];
  /** Of the messages, a learner's ACKs (a SNAP's NEWLEADER ACK). */
  readonly messageTypes = { send: ["ACK"] } as const;

  constructor(
    readonly name = "zab.durable-ack",
    options: DurableAckOptions = {},
  ) {
    this.log = new ViolationLog(name);
    this.kinds = options.replies === true ? REPLY_KINDS : KINDS;
  }

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "disk.append": {
        const n = this.node(e.node);
        const seq = ++n.ops;
        const label = optionalStringField(e, "record");
        if (label !== undefined) n.pending.push({ zxid: zxidField(e, "record"), file: detailOf(e), seq });
        return;
      }
      case "disk.replace": {
        const n = this.node(e.node);
        const seq = ++n.ops;
        if (n.snap !== undefined && detailOf(e).startsWith(SNAPSHOT_PREFIX)) n.snap = { file: detailOf(e), seq };
        return;
      }
      case "disk.delete":
        this.node(e.node).ops++;
        return;
      case "disk.fsync.done": {
        const n = this.node(e.node);
        const file = detailOf(e);
        const mark = idOf(e);
        if (n.snap?.file === file && n.snap.seq <= mark) n.snap = undefined;
        return this.onFsyncDone(n, file, mark);
      }
      case "crash": {
        const n = this.node(e.node);
        n.pending = [];
        n.snap = undefined;
        return;
      }
      case "zab.snap.load":
        this.node(e.node).snap = { file: undefined };
        return;
      case "zab.recovered":
        this.node(e.node).snap = undefined;
        return;
      case "send":
        if (detailOf(e) === "ACK") this.onSnapAck(e, this.node(e.node));
        return;
      case "zab.ack":
        if (intField(e, "from") === intField(e, "sid")) this.onAck(e, this.node(e.node), zxidField(e, "zxid"));
        return;
      case "client.connect":
        this.serverOf.set(stringField(e, "client"), stringField(e, "server"));
        return;
      case "client.complete":
        return this.onReply(e);
    }
  }

  private onFsyncDone(n: NodeLog, file: string, mark: number): void {
    if (n.pending.length === 0) return;
    const still: Pending[] = [];
    for (const p of n.pending) {
      if (p.file !== file || p.seq > mark) {
        still.push(p);
        continue;
      }
      n.durable.add(p.zxid);
      if (p.zxid > n.durableMax) n.durableMax = p.zxid;
      if (n.durable.size > DURABLE_KEPT) {
        const oldest = n.durable.values().next().value as Zxid;
        n.durable.delete(oldest);
        if (oldest > n.forgotten) n.forgotten = oldest;
      }
    }
    n.pending = still;
  }

  private onAck(e: TraceEvent, n: NodeLog, zxid: Zxid): void {
    if (n.durable.has(zxid)) {
      // ACKs go out in zxid order: what became durable before this one is done with.
      for (const z of n.durable) {
        n.durable.delete(z);
        if (z === zxid) break;
      }
      return;
    }
    const unsynced = n.pending.find((p) => p.zxid === zxid);
    if (unsynced !== undefined) {
      this.log.add(e, `${e.node} ACKs ${formatZxid(zxid)} before it is durable: appended to ${unsynced.file} (disk op ${unsynced.seq}) but no fsync covering it has completed; a crash now loses a txn the leader may count towards a quorum`);
      return;
    }
    if (zxid <= n.forgotten) return;
    this.log.add(e, `${e.node} ACKs ${formatZxid(zxid)} without having appended it to its txn log and fsynced it`);
  }

  /** A learner's ACK while the SNAP it loaded is in memory only. */
  private onSnapAck(e: TraceEvent, n: NodeLog): void {
    if (n.snap === undefined) return;
    const where = n.snap.file === undefined ? "it has not written its snapshot yet" : `its snapshot ${n.snap.file} (disk op ${n.snap.seq}) is not covered by a completed fsync`;
    this.log.add(e, `${e.node} sends an ACK while the leader's snapshot it loaded (SNAP) is in memory only: ${where}; a crash now loses the history its NEWLEADER ACK vouched for`);
  }

  private onReply(e: TraceEvent<"client.complete">): void {
    if (optionalStringField(e, "outcome") !== "ok") return;
    const zxid = optionalZxidField(e, "zxid");
    if (zxid === undefined || zxid === 0n) return;
    const client = stringField(e, "client");
    const server = this.serverOf.get(client);
    if (server === undefined) return;
    const n = this.node(server);
    if (zxid <= n.durableMax) return;
    this.log.add(e, `${client} got an ok reply with zxid ${formatZxid(zxid)} from ${server}, whose txn log is durable only up to ${formatZxid(n.durableMax)}: the server answered before its fsync`);
  }

  private node(id: string): NodeLog {
    let n = this.nodes.get(id);
    if (n === undefined) this.nodes.set(id, (n = { ops: 0, pending: [], durable: new Set(), forgotten: 0n, durableMax: 0n, snap: undefined }));
    return n;
  }

  finish(): Violation[] {
    return this.log.violations;
  }

  retained(): number {
    let items = this.serverOf.size;
    for (const n of this.nodes.values()) items += n.pending.length + n.durable.size;
    return items;
  }
}
