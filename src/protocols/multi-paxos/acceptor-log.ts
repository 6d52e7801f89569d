/**
 * A Multi-Paxos acceptor's durable state: the ballot it has promised (for every slot) and,
 * per slot, the highest-numbered proposal it has accepted. Kept as an append-only file
 * "acceptor" of promise and accept records, fsynced before any answer leaves the replica;
 * after a restart the records are replayed (a torn last record is skipped: it was never
 * fsynced, so nobody was told about it).
 */
import { isTorn, type NodeContext } from "../../world/index.js";
import type { AcceptedEntry, Command } from "./messages.js";

const FILE = "acceptor";

type LogRecord = { t: "promise"; ballot: number } | { t: "accept"; slot: number; ballot: number; value: Command };

export class AcceptorLog {
  promised = 0;
  readonly accepted = new Map<number, AcceptedEntry>();

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

  accept(slot: number, ballot: number, value: Command, then: () => void): boolean {
    if (!this.ctx.disk.append(FILE, { t: "accept", slot, ballot, value }, 64).ok) return false;
    this.promised = Math.max(this.promised, ballot);
    this.accepted.set(slot, { slot, ballot, value });
    this.ctx.disk.fsync(FILE, then);
    return true;
  }

  entriesFrom(fromSlot: number): AcceptedEntry[] {
    return [...this.accepted.values()].filter((e) => e.slot >= fromSlot).sort((a, b) => a.slot - b.slot);
  }
}
