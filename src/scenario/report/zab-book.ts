/**
 * The book's ZAB names for what a trace shows in ZooKeeper's (`zab-vocabulary.ts`): for each
 * quorum message, by message id, its book term (FOLLOWERINFO → CEPOCH (discovery), PROPOSAL →
 * PROPOSE (broadcast), …); for each `zab.phase` annotation, the book's phase. Pure, and read
 * only by the reports: the trace itself keeps ZooKeeper's names (its per-message events are
 * hashed, and carry nothing more).
 *
 * A connection is a leader–learner (quorum) connection when its first message is FOLLOWERINFO
 * or OBSERVERINFO, which every learner sends first; its receiver is the leader. Three packet
 * types depend on where they travel on such a connection, in the order the leader sends:
 * - a PROPOSAL that the leader follows with a COMMIT after DIFF/TRUNC and before NEWLEADER is
 *   part of the new leader's history Ie′ (synchronization); a PROPOSAL without its COMMIT there
 *   is an outstanding proposal forwarded early (startForwarding), a broadcast PROPOSE;
 * - the learner's first ACK after NEWLEADER is ACK-LD (the leader reads exactly one packet as
 *   the NEWLEADER ACK), and its first ACK after UPTODATE is the ignored ACK of UPTODATE.
 */
import type { TraceEvent } from "../../sim/trace.js";
import {
  ACK_LD,
  ACK_OF_UPTODATE,
  QUORUM_PACKET_BOOK,
  SYNC_HISTORY,
  ZAB_STATE_BOOK_PHASE,
  type BookPhaseName,
  type BookTerm,
  type QuorumPacketType,
} from "../../zk/server/quorum/zab-vocabulary.js";

interface QuorumConnection {
  readonly leader: string;
  /** Between DIFF/TRUNC/SNAP and NEWLEADER. */
  syncing: boolean;
  /** A PROPOSAL sent while syncing, until the next packet says whether a COMMIT pairs it. */
  pendingProposal: number | undefined;
  /** The ACK the learner owes: of NEWLEADER or of UPTODATE. */
  awaiting: "NEWLEADER" | "UPTODATE" | undefined;
}

/** Message id → book term, for every message sent on a quorum connection among `events`. */
export function bookTermsOfMessages(events: readonly TraceEvent[]): Map<number, BookTerm> {
  const terms = new Map<number, BookTerm>();
  const quorum = new Map<number, QuorumConnection>();
  const other = new Set<number>();
  for (const e of events) {
    if (e.kind !== "send" || e.conn === undefined || e.id === undefined || e.detail === undefined || other.has(e.conn)) continue;
    let c = quorum.get(e.conn);
    if (c === undefined) {
      if ((e.detail !== "FOLLOWERINFO" && e.detail !== "OBSERVERINFO") || e.peer === undefined) {
        other.add(e.conn);
        continue;
      }
      quorum.set(e.conn, (c = { leader: e.peer, syncing: false, pendingProposal: undefined, awaiting: undefined }));
    }
    const base = packetTerm(e.detail);
    if (base === undefined) continue;
    terms.set(e.id, e.node === c.leader ? fromLeader(c, e.detail, e.id, base, terms) : fromLearner(c, e.detail, base));
  }
  return terms;
}

function fromLeader(c: QuorumConnection, type: string, id: number, base: BookTerm, terms: Map<number, BookTerm>): BookTerm {
  const pending = c.pendingProposal;
  c.pendingProposal = undefined;
  switch (type) {
    case "DIFF":
    case "TRUNC":
    case "SNAP":
      c.syncing = true;
      return base;
    case "PROPOSAL":
      if (c.syncing) c.pendingProposal = id;
      return base;
    case "COMMIT":
      if (pending === undefined) return base;
      terms.set(pending, SYNC_HISTORY);
      return SYNC_HISTORY;
    case "NEWLEADER":
      c.syncing = false;
      c.awaiting = "NEWLEADER";
      return base;
    case "UPTODATE":
      c.awaiting = "UPTODATE";
      return base;
    default:
      return base;
  }
}

function fromLearner(c: QuorumConnection, type: string, base: BookTerm): BookTerm {
  if (type !== "ACK" || c.awaiting === undefined) return base;
  const term = c.awaiting === "NEWLEADER" ? ACK_LD : ACK_OF_UPTODATE;
  c.awaiting = undefined;
  return term;
}

function packetTerm(type: string): BookTerm | undefined {
  return Object.hasOwn(QUORUM_PACKET_BOOK, type) ? QUORUM_PACKET_BOOK[type as QuorumPacketType] : undefined;
}

/** The book's phase of a `zab.phase` annotation (ZooKeeper's `ZabState` in its `phase` field). */
export function bookPhaseOf(e: TraceEvent): BookPhaseName | undefined {
  return e.kind === "zab.phase" ? ZAB_STATE_BOOK_PHASE[e.fields.phase] : undefined;
}
