/**
 * Multi-Paxos (book 3.1.5: Chubby's fault-tolerant log, one Paxos instance per log slot): the
 * messages between replicas and with clients, named as the book and the Paxos literature name
 * them, and the commands of the small key-value state machine the log drives.
 *
 * Ballots are disjoint per replica as in single-decree Paxos: replica i of N uses
 * round·N + i + 1. One promise covers every slot from `fromSlot` on, which is what lets a
 * distinguished proposer (the leader, Chubby's master) run phase 1 once for all later slots.
 */

/**
 * A log entry: a client's put, or the no-op a new leader fills a gap with. `client` is the
 * client's identity, not its node: a restarted client is a new client (its node name and
 * incarnation, "c1/3"), since its request ids start again from 1.
 */
export type Command = { kind: "noop" } | { kind: "put"; client: string; reqId: number; key: string; value: string };

/** A command's identity in the trace: "noop" or "<client>#<reqId>". */
export function commandId(c: Command): string {
  return c.kind === "noop" ? "noop" : `${c.client}#${c.reqId}`;
}

export interface AcceptedEntry {
  slot: number;
  ballot: number;
  value: Command;
}

export type MultiPaxosMessage =
  | { kind: "prepare"; ballot: number; fromSlot: number }
  | { kind: "promise"; ballot: number; entries: AcceptedEntry[] }
  | { kind: "accept"; ballot: number; slot: number; value: Command }
  | { kind: "accepted"; ballot: number; slot: number }
  | { kind: "nack"; ballot: number; promised: number }
  | { kind: "chosen"; slot: number; value: Command }
  | { kind: "heartbeat"; ballot: number; chosenUpTo: number; sentUs: number }
  | { kind: "heartbeat-ack"; ballot: number; sentUs: number }
  | { kind: "catchup"; fromSlot: number }
  | { kind: "request"; client: string; reqId: number; op: "put" | "get"; key: string; value?: string }
  | { kind: "reply"; client: string; reqId: number; value: string | null }
  | { kind: "redirect"; client: string; reqId: number; leader: string | null };

const KINDS = new Set(["prepare", "promise", "accept", "accepted", "nack", "chosen", "heartbeat", "heartbeat-ack", "catchup", "request", "reply", "redirect"]);

export function isMultiPaxosMessage(m: unknown): m is MultiPaxosMessage {
  return typeof m === "object" && m !== null && KINDS.has((m as { kind?: unknown }).kind as string);
}

export function majority(n: number): number {
  return Math.floor(n / 2) + 1;
}
