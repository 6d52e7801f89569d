/**
 * Synthetic traces for the ZAB checkers: the `zab.*` annotations the quorum server emits and the
 * kernel's fault events, with increasing index and time (1 ms per event unless told otherwise).
 * Servers are nodes `s<sid>`; zxids are written (epoch, counter) and emitted as hex strings.
 */
import { asEvent, type LooseEvent } from "../../helpers/loose-events.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { runCheckers, type Checker, type Violation } from "../../../src/check/checker.js";

/** The hex zxid string of (epoch, counter), as the server annotates it. */
export function z(epoch: number, counter: number): string {
  return `0x${((BigInt(epoch) << 32n) | BigInt(counter)).toString(16)}`;
}

export class TraceBuilder {
  readonly events: TraceEvent[] = [];
  private nowUs = 0;

  /** Moves the clock forward (the next event happens `ms` later than it otherwise would). */
  wait(ms: number): this {
    this.nowUs += ms * 1000;
    return this;
  }

  event(kind: string, node: string, fields?: Record<string, unknown>): this {
    this.nowUs += 1000;
    const e: LooseEvent = { index: this.events.length, atUs: this.nowUs, kind, node };
    if (fields !== undefined) e.fields = fields;
    this.events.push(asEvent(e));
    return this;
  }

  zab(kind: string, sid: number, fields: Record<string, unknown> = {}): this {
    return this.event(`zab.${kind}`, `s${sid}`, { sid, ...fields });
  }

  // ---- kernel -------------------------------------------------------------------------
  start(...sids: number[]): this {
    for (const sid of sids) this.event("start", `s${sid}`);
    return this;
  }
  crash(sid: number): this {
    return this.event("crash", `s${sid}`);
  }
  restart(sid: number): this {
    return this.event("restart", `s${sid}`);
  }
  partition(links: string[]): this {
    return this.event("partition", "", { links });
  }
  heal(links: string[]): this {
    return this.event("heal", "", { links });
  }
  /** Some unrelated event, to let time pass in the trace. */
  tick(node = "s1"): this {
    return this.event("timer", node);
  }

  // ---- zab annotations ------------------------------------------------------------------
  state(sid: number, state: string): this {
    return this.zab("state", sid, { state });
  }
  phase(sid: number, phase: string, epoch: number): this {
    return this.zab("phase", sid, { phase, epoch });
  }
  recovered(sid: number, lastZxid: string, currentEpoch = 0, acceptedEpoch = currentEpoch): this {
    return this.zab("recovered", sid, { lastZxid, currentEpoch, acceptedEpoch });
  }
  established(sid: number, epoch: number, lastZxid: string): this {
    return this.zab("leader.established", sid, { epoch, lastZxid });
  }
  propose(sid: number, epoch: number, zxid: string, txn: string): this {
    return this.zab("propose", sid, { epoch, zxid, txn });
  }
  logTxn(sid: number, zxid: string, txn: string): this {
    return this.zab("log", sid, { zxid, txn });
  }
  private readonly diskOps = new Map<number, number>();
  /** The kernel's evidence that `zxid` is durable on `sid`: its labelled txn-log append, then the fsync covering it. */
  durable(sid: number, zxid: string): this {
    const op = (this.diskOps.get(sid) ?? 0) + 1;
    this.diskOps.set(sid, op);
    this.events.push({ index: this.events.length, atUs: (this.nowUs += 1000), kind: "disk.append", node: `s${sid}`, id: 64, detail: "version-2/log.1", fields: { record: zxid } });
    this.events.push({ index: this.events.length, atUs: (this.nowUs += 1000), kind: "disk.fsync.done", node: `s${sid}`, id: op, detail: "version-2/log.1", fields: { bytes: 64 } });
    return this;
  }
  ack(leader: number, from: number, zxid: string): this {
    return this.zab("ack", leader, { from, zxid });
  }
  commit(sid: number, zxid: string): this {
    return this.zab("commit", sid, { zxid });
  }
  deliver(sid: number, zxid: string, txn: string): this {
    return this.zab("deliver", sid, { zxid, txn });
  }
  sync(sid: number, leader: number, mode: "DIFF" | "TRUNC" | "SNAP", peerLastZxid: string, zxid: string): this {
    return this.zab("sync", sid, { leader, mode, peerLastZxid, zxid });
  }
  truncate(sid: number, zxid: string): this {
    return this.zab("truncate", sid, { zxid });
  }
  snapLoad(sid: number, zxid: string): this {
    return this.zab("snap.load", sid, { zxid });
  }
  digest(sid: number, zxid: string, digest: string): this {
    return this.zab("digest", sid, { zxid, digest });
  }
  flag(sid: number, flag: string, detail: string): this {
    return this.zab("flag", sid, { flag, detail });
  }

  // ---- compound steps -------------------------------------------------------------------
  /** Servers come up fresh and look for a leader. */
  boot(...sids: number[]): this {
    for (const sid of sids) this.start(sid).recovered(sid, z(0, 0)).state(sid, "LOOKING").phase(sid, "ELECTION", 0);
    return this;
  }

  /** `leader` establishes `epoch` with `followers` (phases, epoch files, the given sync modes). */
  elect(leader: number, followers: number[], epoch: number, lastZxid: string, sync: (f: number) => void = () => {}): this {
    this.state(leader, "LEADING").phase(leader, "DISCOVERY", epoch);
    for (const f of followers) this.state(f, "FOLLOWING").phase(f, "DISCOVERY", epoch);
    for (const s of [leader, ...followers]) this.zab("epoch.accepted", s, { epoch });
    this.zab("epoch.current", leader, { epoch }).phase(leader, "SYNCHRONIZATION", epoch);
    for (const f of followers) {
      this.phase(f, "SYNCHRONIZATION", epoch);
      sync(f);
      this.zab("epoch.current", f, { epoch });
    }
    this.established(leader, epoch, lastZxid);
    for (const s of [leader, ...followers]) this.phase(s, "BROADCAST", epoch);
    return this;
  }

  /**
   * A txn through the broadcast pipeline: proposed by `leader`, logged by `loggers`, committed,
   * delivered by `deliverers` (each followed by a matching digest).
   */
  broadcast(leader: number, zxid: string, txn: string, loggers: number[], deliverers: number[] = loggers): this {
    const epoch = Number(BigInt(zxid) >> 32n);
    this.propose(leader, epoch, zxid, txn);
    for (const s of loggers) this.durable(s, zxid).logTxn(s, zxid, txn);
    for (const s of loggers) this.ack(leader, s, zxid);
    this.commit(leader, zxid);
    for (const s of deliverers) this.deliver(s, zxid, txn).digest(s, zxid, `d:${txn}`);
    return this;
  }
}

/** As a scenario run feeds it: only the kinds it accepts, then `finish` with the last event. */
export function runChecker(checker: Checker, events: readonly TraceEvent[]): Violation[] {
  return runCheckers([checker], events);
}
