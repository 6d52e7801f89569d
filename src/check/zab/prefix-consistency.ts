/**
 * Delivered histories agree (Zab TLA+ PrefixConsistency, Agreement, TotalOrder,
 * GlobalPrimaryOrder) and a leader mints zxids in order (LocalPrimaryOrder).
 *
 * The model. Each server has an *applied* history (what its data tree reflects, in order) and a
 * *logged* history (what its txn log durably holds). The global sequence G is the one
 * committed order everybody must follow: a delivery that extends a server's applied history
 * past the end of G extends G, and so does the initial history of an established leader (its
 * whole log is committed by the NEWLEADER quorum). Invariant: every server's applied history
 * and G are prefixes of one another, and each server's deliveries strictly increase in zxid.
 * A server whose applied history has left G — it holds a txn nobody else delivered, or lacks
 * one that others delivered — is reported at its next delivery (ZOOKEEPER-1154): until then it
 * may still be repaired by TRUNC, SNAP or a restart.
 *
 * Each server's logged and applied histories, and how recoveries, truncations, snapshots and
 * fast-forwards reset them, are the one replica model of `replica-log.ts` (where the trace
 * never showed what a reset reaches, G fills the gap). After a reset to zxid z, a delivery must
 * be above z (nothing below is re-delivered).
 *
 * Bounded state: the longest prefix of G that every server agrees with and that lies at or
 * below the durable floor (durable-floor.ts) is forgotten, from G and from every replica
 * (indices stay absolute, so `agree` keeps its meaning). Below it every server holds the same
 * txns durably; a server that later goes back below it has lost durable txns, and its
 * re-deliveries there are not compared (zab.committed-durability reports the loss).
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { KindsOf } from "../checker.js";
import { zxidCounter, zxidEpoch, type Zxid } from "../../zk/proto/records.js";
import { at, formatZxid, syncParties, ZabEventChecker } from "./zab-event.js";
import { optionalIntField, optionalZxidField, zxidField } from "../event-reader.js";
import { sameTxn, TxnHistory, type TxnEntry } from "./txn-history.js";
import { ReplicaLogs, type Replica } from "./replica-log.js";
import { FloorPruner } from "./durable-floor.js";

/** An entry of G, with who put it there (for messages). */
interface GlobalEntry extends TxnEntry {
  readonly by: string;
  readonly index: number;
  readonly atUs: number;
}

/** A server as this checker follows it: its replica (the shared model) and its agreement with G. */
interface ServerState {
  replica: Replica;
  /** Length of the common prefix of `replica.applied` and G. */
  agree: number;
  divergenceReported: boolean;
  lastProposal: { epoch: number; counter: number } | undefined;
}

const KINDS = ["zab.log", "zab.deliver", "zab.recovered", "zab.truncate", "zab.sync", "zab.snap.load", "zab.leader.established", "zab.propose", "disk.append"] as const;
type Kind = KindsOf<typeof KINDS>;

export class PrefixConsistencyChecker extends ZabEventChecker<Kind> {
  private readonly global = new TxnHistory<GlobalEntry>();
  private readonly replicas = new ReplicaLogs();
  private readonly servers = new Map<string, ServerState>();
  /** The last entry of G forgotten by `prune`: every server agrees up to it, so messages may name it. */
  private lastForgotten: GlobalEntry | undefined = undefined;

  constructor() {
    super("zab.prefix-consistency", KINDS);
    this.pruner = new FloorPruner((floorZxid) => this.prune(floorZxid));
  }

  retained(): number {
    return this.global.entries.length + this.replicas.retained();
  }

  /** Forgets the prefix of G at or below the floor that every server agrees with. */
  private prune(floorZxid: Zxid): void {
    let keep = this.global.length;
    for (const node of this.replicas.nodes) keep = Math.min(keep, this.server(node).agree);
    while (keep > this.global.offset && this.global.at(keep - 1)!.zxid > floorZxid) keep--;
    if (keep <= this.global.offset) return;
    this.lastForgotten = this.global.at(keep - 1)!;
    const baseZxid = this.lastForgotten.zxid;
    this.global.dropBefore(keep);
    this.replicas.prune(baseZxid, keep);
  }

  protected dispatch(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "zab.log":
        this.replicas.log(e.node, this.txnFields.entry(e));
        return;
      case "zab.deliver":
        this.onDeliver(e, this.txnFields.entry(e));
        return;
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
        this.advanceAgree(this.server(learner));
        return;
      }
      case "zab.snap.load":
        this.onSnapLoad(e, zxidField(e, "zxid"));
        return;
      case "zab.leader.established":
        this.onEstablished(e, zxidField(e, "lastZxid"));
        return;
      case "zab.propose": {
        const { zxid, txn } = this.txnFields.entry(e);
        this.replicas.proposed(zxid, txn);
        this.onPropose(e, zxid);
        return;
      }
      case "disk.append": {
        // A txn-log record (a snapshot's appends carry none): durable once an fsync covers it.
        const record = optionalZxidField(e, "record");
        if (record !== undefined) this.replicas.appended(e.node, record);
        return;
      }
    }
  }

  private onDeliver(e: TraceEvent, entry: TxnEntry): void {
    const s = this.server(e.node);
    const wasConsistent = this.consistent(s);
    if (!this.replicas.deliver(e.node, entry)) {
      this.log.add(
        e,
        `TotalOrder violated: ${this.names.label(e.node)} delivered ${formatZxid(entry.zxid)} after it was already at ${formatZxid(s.replica.treeZxid)}; ` +
          `a server's deliveries strictly increase in zxid and nothing at or below its recovery/sync point is delivered again`,
      );
      return;
    }
    if (wasConsistent && s.replica.applied.length > this.global.length) {
      this.extendGlobal(e.node, s, e, entry.zxid);
      return;
    }
    this.advanceAgree(s);
    if (this.consistent(s) || s.divergenceReported) return;
    s.divergenceReported = true;
    const [invariant, why] = this.describeDivergence(s);
    this.log.add(e, `${invariant} violated: ${this.names.label(e.node)} delivered ${formatZxid(entry.zxid)} while ${why}`);
  }

  private onRecovered(e: TraceEvent, lastZxid: Zxid): void {
    this.replicas.recovered(e.node, lastZxid, this.global.entries);
    this.reset(this.server(e.node));
  }

  private onTruncate(e: TraceEvent, zxid: Zxid): void {
    const s = this.server(e.node);
    // What stays of the tree is a prefix of it (entries ≤ zxid): agreement beyond it is undone.
    let kept = s.replica.applied.offset;
    for (const t of s.replica.applied.entries) if (t.zxid <= zxid) kept++;
    s.agree = Math.min(s.agree, kept);
    s.divergenceReported = false;
    this.replicas.truncate(e.node, zxid);
    this.advanceAgree(s);
  }

  private onSnapLoad(e: TraceEvent, zxid: Zxid): void {
    this.replicas.snapLoad(e.node, zxid, this.global.entries);
    this.reset(this.server(e.node));
  }

  /** A leader's initial history is committed once a quorum ACKed NEWLEADER: it joins G. */
  private onEstablished(e: TraceEvent, lastZxid: Zxid): void {
    const s = this.server(e.node);
    this.replicas.established(e.node, lastZxid);
    this.advanceAgree(s);
    if (!this.consistent(s) || s.replica.applied.length <= this.global.length) return;
    this.extendGlobal(e.node, s, e, lastZxid);
  }

  /** LocalPrimaryOrder: a leader's zxids go (e,1), (e,2), … with no gap and no going back. */
  private onPropose(e: TraceEvent, zxid: Zxid): void {
    const s = this.server(e.node);
    const epoch = zxidEpoch(zxid);
    const counter = zxidCounter(zxid);
    const last = s.lastProposal;
    s.lastProposal = { epoch, counter };
    const who = this.names.label(e.node);
    const declared = optionalIntField(e, "epoch") ?? epoch;
    let problem: string | undefined;
    if (declared !== epoch) problem = `its epoch is ${declared} but the zxid's epoch is ${epoch}`;
    else if (last === undefined || epoch > last.epoch) {
      if (counter !== 1) problem = `it is ${who}'s first proposal of epoch ${epoch}, which must have counter 1`;
    } else if (epoch < last.epoch) problem = `${who} already proposed in the later epoch ${last.epoch}`;
    else if (counter !== last.counter + 1) problem = `${who}'s previous proposal was counter ${last.counter}; counters must go up by exactly 1`;
    if (problem !== undefined) this.log.add(e, `LocalPrimaryOrder violated: ${who} proposed ${formatZxid(zxid)}, but ${problem}`);
  }

  /** After the replica's tree was replaced: agreement is worked out again from the start. */
  private reset(s: ServerState): void {
    s.divergenceReported = false;
    s.agree = s.replica.applied.offset;
    this.advanceAgree(s);
  }

  /** Appends `s`'s applied entries beyond G (up to `upTo`) to G, then lets everybody catch up. */
  private extendGlobal(node: string, s: ServerState, e: TraceEvent, upTo: Zxid): void {
    const by = this.names.label(node);
    for (let i = this.global.length; i < s.replica.applied.length; i++) {
      const t = s.replica.applied.at(i)!;
      if (t.zxid > upTo) break;
      this.global.append({ zxid: t.zxid, txn: t.txn, by, index: e.index, atUs: e.atUs });
    }
    for (const other of this.servers.values()) this.advanceAgree(other);
  }

  private advanceAgree(s: ServerState): void {
    while (s.agree < s.replica.applied.length && s.agree < this.global.length && sameTxn(s.replica.applied.at(s.agree)!, this.global.at(s.agree)!)) s.agree++;
  }

  private consistent(s: ServerState): boolean {
    return s.agree === Math.min(s.replica.applied.length, this.global.length);
  }

  /** Why `s`'s applied history and G are not prefixes of one another: [invariant, explanation]. */
  private describeDivergence(s: ServerState): [string, string] {
    const k = s.agree;
    const mine = s.replica.applied.at(k)!;
    const theirs = this.global.at(k)!;
    // k ≥ G's offset (every server agrees with the forgotten prefix), so entry k - 1 is held or the last forgotten one.
    const before = this.global.at(k - 1) ?? this.lastForgotten;
    const after = k === 0 || before === undefined ? "from the first txn" : `after ${formatZxid(before.zxid)}`;
    const first = `${theirs.by} (${at(theirs)})`;
    if (mine.zxid === theirs.zxid) {
      return ["Agreement", `it applied txn "${mine.txn}" at ${formatZxid(mine.zxid)} where ${first} delivered txn "${theirs.txn}"; delivered histories must agree on their common prefix`];
    }
    if (mine.zxid > theirs.zxid) {
      return [
        "TotalOrder/GlobalPrimaryOrder",
        `its delivered history skips ${formatZxid(theirs.zxid)}, which ${first} delivered ${after}; a server delivering a later txn must have delivered every earlier committed one (a hole)`,
      ];
    }
    return [
      "PrefixConsistency",
      `its history diverges ${after}: it holds ${formatZxid(mine.zxid)} ("${mine.txn}"), which no other server delivered, where ${first} delivered ${formatZxid(theirs.zxid)} next ` +
        `(cf. ZOOKEEPER-1154: a txn that should have been truncated away)`,
    ];
  }

  private server(node: string): ServerState {
    let s = this.servers.get(node);
    if (s === undefined) {
      const replica = this.replicas.replica(node);
      s = { replica, agree: replica.applied.offset, divergenceReported: false, lastProposal: undefined };
      this.servers.set(node, s);
    }
    return s;
  }
}
