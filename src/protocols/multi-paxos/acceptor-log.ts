/**
 * A Multi-Paxos acceptor's durable state: the ballot it has promised (for every slot) and,
 * per slot, the highest-numbered proposal it has accepted. Kept as an append-only file
 * "acceptor" of promise and accept records, fsynced before any answer leaves the replica;
 * after a restart the records are replayed (a torn last record is skipped: it was never
 * fsynced, so nobody was told about it).
 *
 * A re-sent accept (the leader repeats every unanswered one each heartbeat) is not written
 * again: if the same proposal is already durable it is answered at once, and if its write is
 * still in the disk's queue it is answered when that write completes. Writing each copy again
 * queued one fsync per copy: on a slow disk the queue grew faster than it drained, and the
 * acceptor answered nothing for seconds after the disk was fast again.
 */
import { isTorn, type NodeContext } from "../../world/index.js";
import { commandId, type AcceptedEntry, type Command } from "./messages.js";

const FILE = "acceptor";

type LogRecord = { t: "promise"; ballot: number } | { t: "accept"; slot: number; ballot: number; value: Command };

export class AcceptorLog {
  promised = 0;
  readonly accepted = new Map<number, AcceptedEntry>();
  /** Per slot whose `accepted` entry is not durable yet: who waits for its write. */
  private readonly writing = new Map<number, (() => void)[]>();

  constructor(private readonly ctx: NodeContext) {
    for (const r of ctx.disk.read(FILE)) {
      if (isTorn(r)) continue;
      const rec = r as LogRecord;
      if (rec.t === "promise") this.promised = Math.max(this.promised, rec.ballot);
      else {
        this.promised = Math.max(this.promised, rec.ballot);
        this.accepted.set(rec.slot, { slot: rec.slot, ballot: rec.ballot, value: rec.value });
      }
    }
  }

  /** Records a promise; `then` runs once it is durable. False on a full disk (the request is ignored). */
  promise(ballot: number, then: () => void): boolean {
    if (!this.ctx.disk.append(FILE, { t: "promise", ballot }, 16).ok) return false;
    this.promised = ballot;
    this.ctx.disk.fsync(FILE, then);
    return true;
  }

  /**
   * Accepts `value` in `slot` at `ballot`; `then` runs once it is durable. False on a full disk
   * (the request is ignored).
   */
  accept(slot: number, ballot: number, value: Command, then: () => void): boolean {
    if (!this.ctx.disk.append(FILE, { t: "accept", slot, ballot, value }, 64).ok) return false;
    this.promised = Math.max(this.promised, ballot);
    this.accepted.set(slot, { slot, ballot, value });
    const waiters = [then];
    this.writing.set(slot, waiters);
    this.ctx.disk.fsync(FILE, () => {
      if (this.writing.get(slot) === waiters) this.writing.delete(slot);
      for (const waiter of waiters) waiter();
    });
    return true;
  }

  /**
   * A re-sent accept of a proposal this acceptor holds (same slot, ballot and command):
   * `then` runs at once if it is durable, or when its pending write completes. False if the
   * proposal is not the one held: it must be written (`accept`).
   */
  whenAccepted(slot: number, ballot: number, value: Command, then: () => void): boolean {
    const held = this.accepted.get(slot);
    if (held === undefined || held.ballot !== ballot || commandId(held.value) !== commandId(value)) return false;
    const waiters = this.writing.get(slot);
    if (waiters === undefined) then();
    else waiters.push(then);
    return true;
  }

  entriesFrom(fromSlot: number): AcceptedEntry[] {
    return [...this.accepted.values()].filter((e) => e.slot >= fromSlot).sort((a, b) => a.slot - b.slot);
  }
}
