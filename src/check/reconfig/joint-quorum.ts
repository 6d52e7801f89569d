/**
 * reconfig.joint-quorum: while a reconfiguration is pending, a leader commits only what a quorum
 * of the old config AND a quorum of the new config have ACKed — the reconfig itself first of all
 * (3.8's `Proposal.hasAllQuorums` over `qvAcksetPairs`). A config activated on the old quorum
 * alone lets the new config's majority, which may not include a single server that logged it,
 * elect a leader that never saw it: a committed txn lost across the reconfig.
 *
 * Read from the trace: each server's committed config (`zab.config.activated`, also at a start),
 * its pending one (`zab.config.next`); a proposal (`zab.propose`) needs a quorum of every config
 * in force on its leader when proposed; the leader's counted ACKs (`zab.ack`); the commit
 * (`zab.commit`). A crash forgets the node's pending state. Runs without reconfiguration (no
 * config events) are not judged.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { guarded, intField, stringField, zxidField } from "../event-reader.js";
import { describe, isQuorum, readConfig, type ConfigView } from "./config-view.js";

const KINDS = ["zab.config.activated", "zab.config.next", "zab.propose", "zab.ack", "zab.commit", "crash"] as const;
type Kind = KindsOf<typeof KINDS>;

interface Pending {
  configs: ConfigView[];
  acks: Set<number>;
}

export class JointQuorumChecker implements Checker<Kind> {
  readonly name = "reconfig.joint-quorum";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly committed = new Map<string, ConfigView>();
  private readonly next = new Map<string, ConfigView>();
  /** Per leader node, its proposals by zxid. */
  private readonly proposals = new Map<string, Map<bigint, Pending>>();

  onEvent(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "zab.config.activated":
        return guarded(this.log, e, this, this.onActivated);
      case "zab.config.next":
        return guarded(this.log, e, this, this.onNext);
      case "zab.propose":
        return guarded(this.log, e, this, this.onPropose);
      case "zab.ack":
        return guarded(this.log, e, this, this.onAck);
      case "zab.commit":
        return guarded(this.log, e, this, this.onCommit);
      case "crash":
        this.next.delete(e.node);
        this.proposals.delete(e.node);
        return;
    }
  }

  private config(e: TraceEvent): ConfigView | undefined {
    const c = readConfig(stringField(e, "config"));
    if (typeof c === "string") {
      this.log.add(e, `${e.kind} carries an unreadable config: ${c}`);
      return undefined;
    }
    return c;
  }

  private onActivated(e: TraceEvent): void {
    const c = this.config(e);
    if (c === undefined) return;
    this.committed.set(e.node, c);
    const n = this.next.get(e.node);
    if (n !== undefined && n.version <= c.version) this.next.delete(e.node);
  }

  private onNext(e: TraceEvent): void {
    const c = this.config(e);
    if (c !== undefined) this.next.set(e.node, c);
  }

  private onPropose(e: TraceEvent): void {
    const committed = this.committed.get(e.node);
    if (committed === undefined) return; // a run without reconfiguration
    const configs = [committed];
    const n = this.next.get(e.node);
    if (n !== undefined && n.version > committed.version) configs.push(n);
    let mine = this.proposals.get(e.node);
    if (mine === undefined) this.proposals.set(e.node, (mine = new Map()));
    mine.set(zxidField(e, "zxid"), { configs, acks: new Set() });
  }

  private onAck(e: TraceEvent): void {
    intField(e, "sid");
    const p = this.proposals.get(e.node)?.get(zxidField(e, "zxid"));
    if (p !== undefined) p.acks.add(intField(e, "from"));
  }

  private onCommit(e: TraceEvent): void {
    const zxid = zxidField(e, "zxid");
    const mine = this.proposals.get(e.node);
    const p = mine?.get(zxid);
    if (p === undefined) return;
    mine!.delete(zxid);
    const short = p.configs.filter((c) => !isQuorum(c.voters, p.acks));
    if (short.length === 0) return;
    const acks = [...p.acks].sort((a, b) => a - b).join(",") || "none";
    this.log.add(
      e,
      `${e.node} committed 0x${zxid.toString(16)} with the ACKs of ${acks}, not a quorum of ${short.map(describe).join(" nor ")}; ` +
        `while a reconfiguration is pending every commit, the reconfig's own first, needs a quorum of the old and of the new config, ` +
        `or the new config's majority may elect a leader that never logged it`,
    );
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
