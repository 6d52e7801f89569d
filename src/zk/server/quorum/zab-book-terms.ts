/**
 * The book's name of each quorum message, by message id, from its place on its connection
 * (ZooKeeper's names stay in the trace: its per-message events are hashed and carry nothing
 * more). FOLLOWERINFO → CEPOCH (discovery), PROPOSAL → PROPOSE (broadcast), …
 *
 * A connection is a leader–learner (quorum) connection when its first message is FOLLOWERINFO
 * or OBSERVERINFO, which every learner sends first; its receiver is the leader. Three packet
 * types depend on where they travel on such a connection, in the order the leader sends:
 * - a PROPOSAL that the leader follows with a COMMIT after DIFF/TRUNC and before NEWLEADER is
 *   part of the new leader's history Ie′ (synchronization); a PROPOSAL without its COMMIT there
 *   is an outstanding proposal forwarded early (startForwarding), a broadcast PROPOSE;
 * - the learner's first ACK after NEWLEADER is ACK-LD (the leader reads exactly one packet as
 *   the NEWLEADER ACK), and its first ACK after UPTODATE is the ignored ACK of UPTODATE.
 *
 * Read by the reports (a whole trace) and by the teaching stepper (one send at a time, as the
 * run goes); pure over the trace's `send` events, taken by their shape (`MessageEvent`).
 */
import { ACK_LD, ACK_OF_UPTODATE, QUORUM_PACKET_BOOK, SYNC_HISTORY, type BookTerm, type QuorumPacketType } from "./zab-vocabulary.js";

/** The fields of a trace event this reading needs (a kernel `send`: sender, receiver, message id, type, connection). */
export interface MessageEvent {
  kind: string;
  node: string;
  peer?: string;
  id?: number;
  detail?: string;
  conn?: number;
}

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
export function bookTermsOfMessages(events: readonly MessageEvent[]): Map<number, BookTerm> {
  const terms = new QuorumBookTerms();
  for (const e of events) terms.onSend(e);
  return terms.terms;
}

/**
 * The same reading, one `send` event at a time (the teaching UI follows a run as it goes).
 * `limit` bounds the messages remembered: the oldest are forgotten first.
 */
export class QuorumBookTerms {
  readonly terms = new Map<number, BookTerm>();
  private readonly quorum = new Map<number, QuorumConnection>();
  private readonly other = new Set<number>();

  constructor(private readonly limit = Infinity) {}

  /** The kinds it reads. */
  static readonly KINDS = ["send"] as const;

  onSend(e: MessageEvent): void {
    if (e.kind !== "send" || e.conn === undefined || e.id === undefined || e.detail === undefined || this.other.has(e.conn)) return;
    let c = this.quorum.get(e.conn);
    if (c === undefined) {
      if ((e.detail !== "FOLLOWERINFO" && e.detail !== "OBSERVERINFO") || e.peer === undefined) {
        this.other.add(e.conn);
        return;
      }
      this.quorum.set(e.conn, (c = { leader: e.peer, syncing: false, pendingProposal: undefined, awaiting: undefined }));
    }
    const base = packetTerm(e.detail);
    if (base === undefined) return;
    this.terms.set(e.id, e.node === c.leader ? fromLeader(c, e.detail, e.id, base, this.terms) : fromLearner(c, e.detail, base));
    if (this.terms.size > this.limit) this.terms.delete(this.terms.keys().next().value!);
  }
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

