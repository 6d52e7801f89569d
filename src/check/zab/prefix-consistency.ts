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
 * Resets (the server's annotations state these, the checker takes them at their word):
 * - `zab.recovered {lastZxid}`: the logged history keeps only entries ≤ lastZxid; the applied
 *   history becomes that same list (a restart replays snapshot + log, uncommitted tail
 *   included). Where the trace never showed a logged zxid ≤ lastZxid, G fills the gap.
 * - `zab.truncate {zxid}`: logged and applied histories are cut back to ≤ zxid (the learner
 *   reloads its tree from the truncated log, so logged txns ≤ zxid it had not applied yet are
 *   applied: see fast-forward below).
 * - `zab.snap.load {zxid}`: applied and logged histories become the sync leader's tree ≤ zxid
 *   (its applied history, then its logged txns above it: a leader's tree holds its whole log;
 *   leader from the last `zab.sync`; G when unknown), G filling any gap.
 * After a reset to zxid z, a delivery must be above z (nothing below is re-delivered).
 *
 * Fast-forward. ZooKeeper replays the txn log into the tree whenever it (re)loads its database:
 * a follower going back to LOOKING (`fastForwardDataBase`), a leader starting `lead()` (its
 * whole log becomes its tree and is treated as committed), a learner after TRUNC. So at a
 * learner's `zab.sync {peerLastZxid}` (the zxid it reported, its tree's last zxid), at
 * `zab.leader.established {lastZxid}` and at `zab.truncate {zxid}`, the server's applied history
 * is extended with the txns of its own log above its last applied one, up to that zxid. Only
 * logged txns are replayed, so a tree that claims a zxid it never logged (ZOOKEEPER-2355)
 * still shows up as a hole.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { zxidCounter, zxidEpoch, type Zxid } from "../../zk/proto/records.js";
import { at, formatZxid, syncParties, ZabEventChecker } from "./zab-event.js";
import { optionalIntField, stringField, zxidField } from "../event-reader.js";
import { filledUpTo, sameTxn, TxnHistory, type TxnEntry } from "./txn-history.js";

/** An entry of G, with who put it there (for messages). */
interface GlobalEntry extends TxnEntry {
  readonly by: string;
  readonly index: number;
  readonly atUs: number;
}

interface ServerState {
  logged: TxnHistory;
  applied: TxnHistory;
  /** Length of the common prefix of `applied` and G. */
  agree: number;
  /** Deliveries must be above this: the last delivery or the last reset point. */
  floor: Zxid;
  divergenceReported: boolean;
  syncLeader: string | undefined;
  lastProposal: { epoch: number; counter: number } | undefined;
}

export class PrefixConsistencyChecker extends ZabEventChecker {
  private readonly global = new TxnHistory<GlobalEntry>();
  private readonly servers = new Map<string, ServerState>();

  constructor() {
    super("zab.prefix-consistency", new Set(["zab.log", "zab.deliver", "zab.recovered", "zab.truncate", "zab.sync", "zab.snap.load", "zab.leader.established", "zab.propose"]));
  }

  protected dispatch(e: TraceEvent): void {
    switch (e.kind) {
      case "zab.log":
        this.server(e.node).logged.put({ zxid: zxidField(e, "zxid"), txn: stringField(e, "txn") });
        return;
      case "zab.deliver":
        this.onDeliver(e, { zxid: zxidField(e, "zxid"), txn: stringField(e, "txn") });
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
        const s = this.server(learner);
        s.syncLeader = leader;
        this.fastForward(s, zxidField(e, "peerLastZxid"));
        return;
      }
      case "zab.snap.load":
        this.onSnapLoad(e, zxidField(e, "zxid"));
        return;
      case "zab.leader.established":
        this.onEstablished(e, zxidField(e, "lastZxid"));
        return;
      case "zab.propose":
        this.onPropose(e, zxidField(e, "zxid"));
        return;
    }
  }

  private onDeliver(e: TraceEvent, entry: TxnEntry): void {
    const s = this.server(e.node);
    if (entry.zxid <= s.floor) {
      this.log.add(
        e,
        `TotalOrder violated: ${this.names.label(e.node)} delivered ${formatZxid(entry.zxid)} after it was already at ${formatZxid(s.floor)}; ` +
          `a server's deliveries strictly increase in zxid and nothing at or below its recovery/sync point is delivered again`,
      );
      return;
    }
    const wasConsistent = this.consistent(s);
    s.applied.append(entry);
    s.floor = entry.zxid;
    if (wasConsistent && s.applied.length > this.global.length) {
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
    const s = this.server(e.node);
    s.logged.cutAbove(lastZxid);
    this.reset(s, filledUpTo(s.logged.entries, this.global.entries, lastZxid), lastZxid);
  }

  private onTruncate(e: TraceEvent, zxid: Zxid): void {
    const s = this.server(e.node);
    s.logged.cutAbove(zxid);
    s.applied.cutAbove(zxid);
    s.agree = Math.min(s.agree, s.applied.length);
    s.floor = zxid;
    s.divergenceReported = false;
    this.fastForward(s, zxid);
  }

  private onSnapLoad(e: TraceEvent, zxid: Zxid): void {
    const s = this.server(e.node);
    const leader = s.syncLeader === undefined ? undefined : this.servers.get(s.syncLeader);
    const source = leader === undefined ? this.global.entries : this.treeOf(leader, zxid);
    this.reset(s, filledUpTo(source, this.global.entries, zxid), zxid);
  }

  /**
   * What a syncing leader's tree holds up to `upTo`: its applied history, then its logged txns
   * above it. A leader's `lead()` loads its whole log into its tree, so a SNAP it sends before
   * it is established already carries its uncommitted tail (which establishment then commits).
   */
  private treeOf(leader: ServerState, upTo: Zxid): readonly TxnEntry[] {
    const applied = leader.applied.entries;
    const last = leader.applied.lastZxid() ?? -1n;
    const tail = leader.logged.entries.filter((t) => t.zxid > last && t.zxid <= upTo);
    return tail.length === 0 ? applied : [...applied, ...tail];
  }

  /** A leader's initial history is committed once a quorum ACKed NEWLEADER: it joins G. */
  private onEstablished(e: TraceEvent, lastZxid: Zxid): void {
    const s = this.server(e.node);
    this.fastForward(s, lastZxid);
    if (!this.consistent(s) || s.applied.length <= this.global.length) return;
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

  private reset(s: ServerState, history: TxnEntry[], point: Zxid): void {
    s.logged.replace(history);
    s.applied.replace(history);
    s.floor = point;
    s.divergenceReported = false;
    s.agree = 0;
    this.advanceAgree(s);
  }

  /** Replays `s`'s logged txns above its last applied one, up to `upTo`, into its applied history. */
  private fastForward(s: ServerState, upTo: Zxid): void {
    const from = s.applied.lastZxid() ?? -1n;
    if (upTo <= from) return;
    for (const t of s.logged.entries) if (t.zxid > from && t.zxid <= upTo) s.applied.append(t);
    if (s.floor < upTo) s.floor = upTo;
    this.advanceAgree(s);
  }

  /** Appends `s`'s applied entries beyond G (up to `upTo`) to G, then lets everybody catch up. */
  private extendGlobal(node: string, s: ServerState, e: TraceEvent, upTo: Zxid): void {
    const by = this.names.label(node);
    for (let i = this.global.length; i < s.applied.length; i++) {
      const t = s.applied.at(i)!;
      if (t.zxid > upTo) break;
      this.global.append({ zxid: t.zxid, txn: t.txn, by, index: e.index, atUs: e.atUs });
    }
    for (const other of this.servers.values()) this.advanceAgree(other);
  }

  private advanceAgree(s: ServerState): void {
    while (s.agree < s.applied.length && s.agree < this.global.length && sameTxn(s.applied.at(s.agree)!, this.global.at(s.agree)!)) s.agree++;
  }

  private consistent(s: ServerState): boolean {
    return s.agree === Math.min(s.applied.length, this.global.length);
  }

  /** Why `s`'s applied history and G are not prefixes of one another: [invariant, explanation]. */
  private describeDivergence(s: ServerState): [string, string] {
    const k = s.agree;
    const mine = s.applied.at(k)!;
    const theirs = this.global.at(k)!;
    const after = k === 0 ? "from the first txn" : `after ${formatZxid(this.global.at(k - 1)!.zxid)}`;
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
      s = {
        logged: new TxnHistory(),
        applied: new TxnHistory(),
        agree: 0,
        floor: -1n,
        divergenceReported: false,
        syncLeader: undefined,
        lastProposal: undefined,
      };
      this.servers.set(node, s);
    }
    return s;
  }
}
