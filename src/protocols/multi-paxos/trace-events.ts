/**
 * The `multipaxos.*` trace annotations and their fields (types only: the checkers read the
 * trace through these names and share no code with the protocol). Commands appear by id:
 * "noop" or "<client>#<reqId>".
 */
import "../../sim/trace-schema.js";
export interface MultiPaxosTraceEvents {
  "multipaxos.replica.recovered": { promised: number; accepted: number };
  /** A candidate's phase 1 for every slot from `fromSlot` on. */
  "multipaxos.prepare": { ballot: number; fromSlot: number };
  /** A promise, durable, as it leaves (peer: the candidate). */
  "multipaxos.promised": { ballot: number };
  /** An acceptance, durable, as it leaves; `acceptors` is the replica count. */
  "multipaxos.accepted": { slot: number; ballot: number; command: string; acceptors: number };
  /** A replica leads: it re-proposed `reproposed` slots from `fromSlot`, `noops` of them gaps (phase1 false: the broken twin). */
  "multipaxos.leader": { ballot: number; fromSlot: number; reproposed: number; noops: number; phase1: boolean };
  /** A leader or candidate learned of a higher promise and stepped down. */
  "multipaxos.deposed": { ballot: number; promised: number };
  /** A replica's state machine applied the command of `slot`. */
  "multipaxos.apply": { slot: number; command: string };
  /** The leader served a read from its state machine (leaseMs 0: without a lease). */
  "multipaxos.read": { client: string; reqId: number; key: string; leaseMs: number };
  "multipaxos.client.invoke": { client: string; reqId: number; op: "put" | "get"; key: string; value?: string };
  "multipaxos.client.complete": { client: string; reqId: number; op: "put" | "get"; key: string; value?: string | null };
}

declare module "../../sim/trace-schema.js" {
  interface TraceAnnotations extends MultiPaxosTraceEvents {}
}
