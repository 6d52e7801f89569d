/**
 * Re-attachments whose timeout the trace does not show (client.sessions, client.session-failover).
 *
 * A client that re-attaches a session sends a ConnectRequest carrying the session's id and a
 * timeout of its own asking. 3.8 touches the session with that timeout as soon as a server takes
 * the request — standalone or leader directly, a learner through the leader's REVALIDATE
 * (`Leader.revalidateSession` → `touchSession(id, timeout)`) — whether or not the client ever
 * sees the answer. The negotiated timeout shows in the trace only as `zk.session.established`; a
 * re-attachment that reached a server and was never answered there (the client gave up on the
 * connection while the learner waited for the leader) may have touched the session with a
 * timeout nobody recorded, shorter than any seen (api-swarm-ensemble seed 10424: a REVALIDATE
 * delayed 6 s by a clogged link touched a 35 s session with the 4 s its abandoned connection
 * asked for). Such a session's expiry cannot be bounded from the trace.
 *
 * Read from `client.connect` (a connection carrying a session id), the `connect` packet's
 * delivery to a server, and that server's answer: `zk.session.established` (the timeout is then
 * known) or `zk.session.invalid` (a wrong password: no touch). State: one entry per re-attaching
 * connection until it is answered.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { optionalIntField, stringField } from "../event-reader.js";

/** The session id of a connection that asks for a new session. */
const NEW_SESSION = "0x0";

export class UnseenReattachTimeouts {
  /** Client connection → the session its ConnectRequest re-attaches. */
  private readonly reattaching = new Map<number, string>();
  /** Session → "server client" of each re-attaching ConnectRequest a server took and has not answered. */
  private readonly unanswered = new Map<string, string[]>();

  /** `client.connect`: remembers a connection that re-attaches a session. */
  onConnect(e: TraceEvent<"client.connect">): void {
    const session = stringField(e, "session");
    const conn = optionalIntField(e, "conn");
    if (conn === undefined || session === NEW_SESSION) return;
    this.reattaching.set(conn, session);
  }

  /** `deliver`: a re-attaching ConnectRequest reaches its server. */
  onDeliver(e: TraceEvent<"deliver">): void {
    if (e.detail !== "connect" || e.conn === undefined || e.peer === undefined) return;
    const session = this.reattaching.get(e.conn);
    if (session === undefined) return;
    this.reattaching.delete(e.conn);
    const list = this.unanswered.get(session);
    const key = `${e.node} ${e.peer}`;
    if (list === undefined) this.unanswered.set(session, [key]);
    else list.push(key);
  }

  /** `zk.session.established` / `zk.session.invalid`: the server answered one of them. */
  onAnswer(e: TraceEvent<"zk.session.established" | "zk.session.invalid">): void {
    const session = stringField(e, "session");
    const list = this.unanswered.get(session);
    if (list === undefined) return;
    const i = list.indexOf(`${e.node} ${stringField(e, "client")}`);
    if (i < 0) return;
    list.splice(i, 1);
    if (list.length === 0) this.unanswered.delete(session);
  }

  /** Whether some server took a re-attachment of `session` it never answered (its timeout unseen). */
  has(session: string): boolean {
    return this.unanswered.has(session);
  }
}

/** The kinds `UnseenReattachTimeouts` reads. */
export const UNSEEN_REATTACH_KINDS = ["client.connect", "deliver", "zk.session.established", "zk.session.invalid"] as const;
