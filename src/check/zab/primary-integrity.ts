/**
 * PrimaryIntegrity (docs/zookeeper.md §7.10; Junqueira, Reed and Serafini, "Zab", DSN'11): if the primary of epoch
 * e broadcasts ⟨v,z⟩, and some process delivers ⟨v',z'⟩ broadcast in an earlier epoch e' < e,
 * then the primary delivered ⟨v',z'⟩ before it broadcast ⟨v,z⟩. A txn committed in an old epoch
 * that the new primary never had is a txn lost across the leader change, however briefly a
 * server showed it to a client.
 *
 * How ZooKeeper 3.8 delivers, as the server's annotations state it:
 * - a leader "delivers" its whole initial history at once: `lead()` loads snapshot + every
 *   logged txn into its tree and treats them all as committed (committed for the followers by
 *   DIFF/SNAP and the NEWLEADER quorum; §7.8). `zab.leader.established {lastZxid}` names the
 *   last zxid of that tree, and no `zab.propose` comes before it (the leader serves, and so
 *   proposes, only once established). A restart (`zab.recovered {lastZxid}`) likewise puts the
 *   whole log in the tree;
 * - every other delivery is a `zab.deliver`, in zxid order per server (the TotalOrder check of
 *   zab.prefix-consistency holds them to that).
 *
 * The online formulation. Deliveries are in zxid order, so "the primary delivered ⟨v',z'⟩" for
 * an earlier-epoch z' becomes z' ≤ B, where B is the last zxid the primary had delivered at its
 * first `zab.propose` of epoch e (its established lastZxid; else how far its tree got, by
 * the one replica model of `replica-log.ts`: its last delivery, recovery, truncation, snapshot
 * or sync). Then any `zab.deliver` anywhere, before or after that propose, of a zxid z' with
 * epoch(z') < e and z' > B is a violation. Per server that has led epoch e the bound is kept
 * with its propose event; per epoch the highest delivered zxid is kept with its event, so that
 * deliveries before the propose are judged when the bound appears. That a delivery at z' ≤ B
 * is the same txn the primary holds at z' is Agreement's business, and a primary whose history
 * has a hole below B (it lost (1,3) but holds (2,1): ZOOKEEPER-4646) is TotalOrder's; both are
 * zab.prefix-consistency's to report.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { KindsOf } from "../checker.js";
import { zxidEpoch, type Zxid } from "../../zk/proto/records.js";
import { at, formatZxid, syncParties, ZabEventChecker } from "./zab-event.js";
import { ReplicaLogs } from "./replica-log.js";
import { intField, zxidField } from "../event-reader.js";

/** A primary's first proposal of its epoch, and the highest zxid it had delivered by then. */
interface PrimaryBound {
  readonly epoch: number;
  readonly primary: string;
  readonly bound: Zxid;
  readonly propose: TraceEvent;
  readonly proposed: Zxid;
}

/** The highest zxid of one epoch delivered so far, with the delivery that showed it. */
interface Delivered {
  readonly zxid: Zxid;
  readonly event: TraceEvent;
}

const KINDS = ["zab.propose", "zab.deliver", "zab.recovered", "zab.leader.established", "zab.truncate", "zab.snap.load", "zab.sync"] as const;
type Kind = KindsOf<typeof KINDS>;

export class PrimaryIntegrityChecker extends ZabEventChecker<Kind> {
  /** How far each server's tree got (no histories: only the zxids are needed here). */
  private readonly replicas = new ReplicaLogs({ histories: false });
  /** Per server: the epoch it last established as leader and its lastZxid then. */
  private readonly established = new Map<string, { epoch: number; lastZxid: Zxid }>();
  /** One per (primary, epoch), in the order they first proposed. */
  private readonly bounds: PrimaryBound[] = [];
  private readonly boundKeys = new Set<string>();
  /** The highest epoch any bound is for: deliveries of that epoch or later need no look. */
  private maxBoundEpoch = -1;
  private readonly highestByEpoch = new Map<number, Delivered>();
  /** `epoch:zxid` pairs already reported, so each server's copy of a lost txn is not a new report. */
  private readonly reported = new Set<string>();

  constructor() {
    super("zab.primary-integrity", KINDS);
  }

  protected dispatch(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "zab.deliver":
        this.onDeliver(e, this.txnFields.zxid(e));
        return;
      case "zab.recovered":
        this.replicas.recovered(e.node, zxidField(e, "lastZxid"), []);
        return;
      case "zab.truncate":
        this.replicas.truncate(e.node, zxidField(e, "zxid"));
        return;
      case "zab.snap.load":
        this.replicas.snapLoad(e.node, zxidField(e, "zxid"), []);
        return;
      case "zab.sync": {
        const { leader, learner } = syncParties(e, this.names);
        if (learner !== undefined) this.replicas.sync(leader, learner, zxidField(e, "peerLastZxid"));
        return;
      }
      case "zab.leader.established": {
        const lastZxid = zxidField(e, "lastZxid");
        const epoch = intField(e, "epoch");
        this.replicas.established(e.node, lastZxid);
        this.established.set(e.node, { epoch, lastZxid });
        return;
      }
      case "zab.propose":
        this.onPropose(e, this.txnFields.zxid(e));
        return;
    }
  }

  private onDeliver(e: TraceEvent, zxid: Zxid): void {
    // The txn's content is prefix-consistency's business; only its zxid counts here.
    this.replicas.deliver(e.node, { zxid, txn: "" });
    const epoch = zxidEpoch(zxid);
    const highest = this.highestByEpoch.get(epoch);
    if (highest === undefined || zxid > highest.zxid) this.highestByEpoch.set(epoch, { zxid, event: e });
    if (epoch >= this.maxBoundEpoch) return;
    for (const b of this.bounds) {
      if (b.epoch > epoch && zxid > b.bound) this.report(e, b, { zxid, event: e });
    }
  }

  private onPropose(e: TraceEvent, zxid: Zxid): void {
    const epoch = zxidEpoch(zxid);
    const key = `${e.node}/${epoch}`;
    if (this.boundKeys.has(key)) return;
    this.boundKeys.add(key);
    const est = this.established.get(e.node);
    const bound = est !== undefined && est.epoch === epoch ? est.lastZxid : (this.replicas.find(e.node)?.treeZxid ?? -1n);
    const b: PrimaryBound = { epoch, primary: e.node, bound, propose: e, proposed: zxid };
    this.bounds.push(b);
    if (epoch > this.maxBoundEpoch) this.maxBoundEpoch = epoch;
    for (const [deliveredEpoch, d] of this.highestByEpoch) {
      if (deliveredEpoch < epoch && d.zxid > bound) this.report(e, b, d);
    }
  }

  /** Reports `d`, an earlier-epoch delivery above primary `b`'s bound, at event `e`. */
  private report(e: TraceEvent, b: PrimaryBound, d: Delivered): void {
    const key = `${b.epoch}:${d.zxid}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    const primary = this.names.label(b.primary);
    const had = b.bound < 0n ? "nothing" : `only up to ${formatZxid(b.bound)}`;
    this.log.add(
      e,
      `PrimaryIntegrity violated: ${this.names.label(d.event.node)} delivered ${formatZxid(d.zxid)} (${at(d.event)}), broadcast in epoch ${zxidEpoch(d.zxid)}, ` +
        `but ${primary}, primary of epoch ${b.epoch}, had delivered ${had} when it broadcast ${formatZxid(b.proposed)} (${at(b.propose)}); ` +
        `a primary must have delivered every earlier-epoch txn that anyone delivers before it broadcasts (a committed txn lost across the leader change)`,
    );
  }
}

