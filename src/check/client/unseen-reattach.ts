/**
 * Re-attachments: where and when they touched their session, and those whose timeout the trace
 * does not show (client.sessions, client.session-failover).
 *
 * A client that re-attaches a session sends a ConnectRequest carrying the session's id and a
 * timeout of its own asking. 3.8 touches the session with the negotiated timeout as soon as a
 * server takes the request — a standalone server or the leader directly, while it handles the
 * ConnectRequest (`ZooKeeperServer.revalidateSession` → `touchSession(id, timeout)`), a learner
 * through the leader, when the learner's REVALIDATE reaches it (`Leader.revalidateSession` →
 * `LeaderZooKeeperServer.checkIfValidGlobalSession` → `touchSession(id, timeout)`) — whether or
 * not the client ever sees the answer. The negotiated timeout shows in the trace only as the
 * answering server's `zk.session.established`, which a learner writes only once the leader's
 * answer is back. So:
 *
 * - an answered re-attachment touched the session at the leader (or the answering standalone or
 *   leader) when its REVALIDATE arrived there (or when the ConnectRequest did), with the timeout
 *   the answer shows (`touches`, for client.sessions: api-swarm-ensemble seed 11155, where a
 *   REVALIDATE's touch with 5,828 ms was the leader's last touch of a 9,878 ms session);
 * - a re-attachment that reached a server and was never answered there (the client gave up on
 *   the connection while the learner waited for the leader) may have touched the session with a
 *   timeout nobody recorded, shorter than any seen (api-swarm-ensemble seed 10424: a REVALIDATE
 *   delayed 6 s by a clogged link touched a 35 s session with the 4 s its abandoned connection
 *   asked for). Such a session's expiry cannot be bounded from the trace (`has`).
 *
 * Read from `client.connect` (a connection carrying a session id), the `connect` packet's
 * delivery to a server, that server's answer — `zk.session.established` (the timeout is then
 * known) or `zk.session.invalid` (a wrong password, or a session the leader no longer knows or
 * is closing: no touch) — and, for the touches, the REVALIDATE the server sends while it handles
 * the ConnectRequest (at the same instant: the learner sends it synchronously) and that
 * REVALIDATE's delivery to the leader. State: one entry per re-attaching connection until it is
 * answered, and, for a learner's, until its REVALIDATE was delivered or dropped.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { intField, optionalIntField, stringField } from "../event-reader.js";

/** The session id of a connection that asks for a new session. */
const NEW_SESSION = "0x0";

/** A re-attaching ConnectRequest a server took. */
interface Reattachment {
  session: string;
  /** The server that took it, and the client whose connection it came on. */
  server: string;
  client: string;
  deliveredAtUs: number;
  /** The REVALIDATE the server sent for it (a learner), while in flight or until answered. */
  revalidate?: number;
  /** Where and when the session was touched for it, once known (a learner's: the REVALIDATE's delivery). */
  touchedAt?: { server: string; atUs: number };
  /** The negotiated timeout, once answered. */
  timeoutMs?: number;
}

/** A touch of `session` at `server` at `atUs` with `timeoutMs`, reported once both time and timeout are known. */
export interface ReattachTouch {
  server: string;
  session: string;
  atUs: number;
  timeoutMs: number;
}

export class UnseenReattachTimeouts {
  /** Client connection → the session its ConnectRequest re-attaches. */
  private readonly reattaching = new Map<number, string>();
  /** Session → each re-attaching ConnectRequest a server took and has not answered. */
  private readonly unanswered = new Map<string, Reattachment[]>();
  /** Server → the re-attachment it took last (its REVALIDATE, if any, follows at the same instant). */
  private readonly lastTaken = new Map<string, Reattachment>();
  /** REVALIDATE message id → its re-attachment. */
  private readonly revalidations = new Map<number, Reattachment>();

  /** `client.connect`: remembers a connection that re-attaches a session. */
  onConnect(e: TraceEvent<"client.connect">): void {
    const session = stringField(e, "session");
    const conn = optionalIntField(e, "conn");
    if (conn === undefined || session === NEW_SESSION) return;
    this.reattaching.set(conn, session);
  }

  /**
   * `deliver`: a re-attaching ConnectRequest reaches its server, or (for a reader of touches) a
   * REVALIDATE reaches the leader, which touches the session then. Returns a touch whose timeout
   * is already known (a REVALIDATE delivered after its connection was answered).
   */
  onDeliver(e: TraceEvent<"deliver">): ReattachTouch | undefined {
    if (e.detail === "REVALIDATE") return this.onRevalidateDelivered(e);
    if (e.detail !== "connect" || e.conn === undefined || e.peer === undefined) return undefined;
    const session = this.reattaching.get(e.conn);
    if (session === undefined) return undefined;
    this.reattaching.delete(e.conn);
    const r: Reattachment = { session, server: e.node, client: e.peer, deliveredAtUs: e.atUs };
    const list = this.unanswered.get(session);
    if (list === undefined) this.unanswered.set(session, [r]);
    else list.push(r);
    this.lastTaken.set(e.node, r);
    return undefined;
  }

  /** `send` of a REVALIDATE (a reader of touches): a learner asks the leader about the re-attachment it just took. */
  onSend(e: TraceEvent<"send">): void {
    if (e.detail !== "REVALIDATE" || e.id === undefined) return;
    const r = this.lastTaken.get(e.node);
    // The leader's answer travels as a REVALIDATE too; it follows no ConnectRequest of its sender.
    if (r === undefined || r.deliveredAtUs !== e.atUs || r.revalidate !== undefined) return;
    r.revalidate = e.id;
    this.revalidations.set(e.id, r);
  }

  /** `drop` (a reader of touches): a REVALIDATE lost on the way touched nothing. */
  onDrop(e: TraceEvent<"drop">): void {
    if (e.id !== undefined) this.revalidations.delete(e.id);
  }

  private onRevalidateDelivered(e: TraceEvent<"deliver">): ReattachTouch | undefined {
    if (e.id === undefined) return undefined;
    const r = this.revalidations.get(e.id);
    if (r === undefined) return undefined;
    r.touchedAt = { server: e.node, atUs: e.atUs };
    if (r.timeoutMs === undefined) return undefined;
    // Answered before its own REVALIDATE arrived (another REVALIDATE's answer covered it).
    this.revalidations.delete(e.id);
    return { server: e.node, session: r.session, atUs: e.atUs, timeoutMs: r.timeoutMs };
  }

  /**
   * `zk.session.established` / `zk.session.invalid`: the server answered one of them. For an
   * established re-attachment, returns its touch once known: at the answering server when it
   * revalidated the session itself, at the leader when its REVALIDATE reached it (meaningful to a
   * reader that feeds the REVALIDATE sends and deliveries).
   */
  onAnswer(e: TraceEvent<"zk.session.established" | "zk.session.invalid">): ReattachTouch | undefined {
    const session = stringField(e, "session");
    const list = this.unanswered.get(session);
    if (list === undefined) return undefined;
    const client = stringField(e, "client");
    const i = list.findIndex((r) => r.server === e.node && r.client === client);
    if (i < 0) return undefined;
    const r = list[i]!;
    list.splice(i, 1);
    if (list.length === 0) this.unanswered.delete(session);
    if (this.lastTaken.get(e.node) === r) this.lastTaken.delete(e.node);
    if (e.kind !== "zk.session.established") {
      if (r.revalidate !== undefined) this.revalidations.delete(r.revalidate);
      return undefined;
    }
    const timeoutMs = intField(e, "timeoutMs");
    if (r.revalidate === undefined) return { server: e.node, session, atUs: r.deliveredAtUs, timeoutMs };
    if (r.touchedAt === undefined) {
      r.timeoutMs = timeoutMs; // its REVALIDATE is still on the way: the touch comes with its delivery
      return undefined;
    }
    this.revalidations.delete(r.revalidate);
    return { server: r.touchedAt.server, session, atUs: r.touchedAt.atUs, timeoutMs };
  }

  /** Whether some server took a re-attachment of `session` it never answered (its timeout unseen). */
  has(session: string): boolean {
    return this.unanswered.has(session);
  }
}

/** The kinds `UnseenReattachTimeouts` reads. */
export const UNSEEN_REATTACH_KINDS = ["client.connect", "deliver", "zk.session.established", "zk.session.invalid"] as const;
