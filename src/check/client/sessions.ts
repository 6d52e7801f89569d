/**
 * client.sessions: what a session end means (docs/zookeeper.md §3.3–3.4), online.
 *
 * A session ends when its closeSession txn (client close or expiry) is applied by a serving
 * server: `zk.apply` with op closeSession, at zxid C, on a standalone server or on a quorum
 * server in phase BROADCAST. Every server applies it at C, and a server that applies it closes
 * the session's connection there. (A learner also applies a DIFF's txns while it syncs, before
 * NEWLEADER; if that leader is never established they are discarded with its epoch, so an
 * apply outside BROADCAST ends nothing.) From that:
 *
 * 1. Nothing completes ok after the end. A reply header carries the answering server's last
 *    applied zxid, so an "ok" completion of session S (other than its own closeSession) whose
 *    reply zxid is ≥ C was answered by a server that had already ended S.
 * 2. Ephemerals go with their owner. A read whose reply zxid is ≥ C was served from a tree
 *    that had applied C, so it cannot show a node owned by S: getData/exists with
 *    `stat.ephemeralOwner` = S, or getChildren listing a child that S created as an ephemeral
 *    (only when no other create ever named that path, so the child is surely S's node).
 *    Reads served below C (a lagging follower) may still see it: that is allowed.
 * 3. A heartbeating session is not expired. A server touches a session for every packet it
 *    receives on the session's connection (auth packets aside); a follower relays its touches
 *    to the leader in its next PING reply. The leader (or standalone server) expires a session
 *    only after `timeout` without a touch (docs/zookeeper.md §3.3: in (timeout, timeout + tick]),
 *    where a touch's timeout is the one its connection negotiated (`zk.session.established`: a
 *    session re-attached with a shorter timeout expires by that one). So a
 *    `zk.session.expire` of S at server L less than `timeoutMs` after L received a packet the
 *    client sent while connected in S — directly, or through a follower's PING reply sent
 *    after the follower received it — is a violation. A re-attachment touches the session too,
 *    with the timeout its connection negotiated: at a standalone server or the leader when it
 *    takes the ConnectRequest, and through a learner when the learner's REVALIDATE reaches the
 *    leader (`Leader.revalidateSession` → `touchSession(id, timeout)`). That touch counts once
 *    the answering server's `zk.session.established` shows its timeout, as of the instant it
 *    happened (unseen-reattach.ts; api-swarm-ensemble seed 11155: a 9,878 ms session last touched
 *    at the leader by a REVALIDATE asking 5,828 ms). Only these clear cases are flagged:
 *    packets are counted only when sent after the client saw CONNECTED and before any
 *    disconnect, and a server whose clock was skewed (`clock` fault) is never judged. Once some
 *    handle of S asked to close it, the leader marks S closing when it preps the closeSession,
 *    and from then on 3.8's `touchSession` ignores S's packets (`SessionTrackerImpl.touchSession`
 *    returns false for a closing session), so the expirer may still expire S while its
 *    closeSession waits for a quorum — a second closeSession, harmless (zab-random-faults seed
 *    10275). When that mark fell is not in the trace: any touch from the last one before the
 *    close was asked for on may be the last the leader honoured, and the expiry is judged by the
 *    one of them that allows it soonest. Nor a session some server took a re-attachment of and
 *    never answered: that touch's timeout is not in the trace (unseen-reattach.ts).
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { guarded, intField, numberField, optionalIntField, optionalStringField, stringField, zxidField } from "../event-reader.js";
import { OpTable, fieldsOf, serverPathOf, type Completion, type Invocation } from "../history/client-events.js";
import type { CreateModeName } from "../../zk/proto/records.js";
import { parseZxidText } from "../zxid-text.js";
import { childPath, hex, isEphemeralMode, isSequentialMode } from "./znode-paths.js";
import { mayBeClientTraffic } from "../message-types.js";
import { UnseenReattachTimeouts, type ReattachTouch } from "./unseen-reattach.js";

interface ClientView {
  session: string;
  /** The record of `session` (interned once per client.state / connect / disconnect, not per packet). */
  rec: SessionRecord | undefined;
  connected: boolean;
  /** The server of the latest connection attempt. */
  server: string | undefined;
  paused: boolean;
}

/** Packets not touching a session: the handshake, and auth (processed before the touch). */
const isUntouching = (type: string | undefined): boolean => type === "connect" || type === "auth";
/** A client's view of no numbered connection (an event without `conn`). */
const NO_CONN = -1;

const KINDS = [
  "client.invoke", "client.complete", "zk.apply", "zk.session.expire", "client.state", "client.connect", "client.disconnect",
  "pause", "resume", "crash", "send", "deliver", "drop", "zab.phase", "zab.state", "clock", "zk.session.established", "zk.session.invalid",
] as const;
type Kind = KindsOf<typeof KINDS>;

/**
 * The messages that may touch a session: a client's packets, a learner's PING that relays its
 * touches, and a learner's REVALIDATE of a re-attachment.
 */
const touching = (type: string): boolean => type === "PING" || type === "REVALIDATE" || mayBeClientTraffic(type);

/** A touch of a session at a server: when, and the timeout it set the expiry by (undefined: the session's own). */
interface Touch {
  atUs: number;
  timeoutMs: number | undefined;
  /** A re-attachment's (else a packet's) touch. */
  reattach: boolean;
}

/**
 * The touches of a session at a server that may have set its expiry there: the latest one, and,
 * once a close of the session was asked for, every one since (the leader honoured them until it
 * marked the session closing, which the trace does not show).
 */
interface Touches {
  /** Owned by this entry (never in `sinceClose`): a later touch overwrites it in place. */
  last: Touch;
  sinceClose: Touch[];
}

/**
 * What the heartbeat rule keeps of one session, interned by its id: a client view and a packet in
 * flight hold the record, so a packet's touch looks no session text up.
 */
interface SessionRecord {
  session: string;
  /** The timeout its latest connection negotiated (a re-attach may negotiate another). */
  negotiatedMs: number | undefined;
  /** Some handle asked to close it (`client.invoke` of closeSession): no touch counts any more. */
  closeRequested: boolean;
  /** Server → the touches there that may have set its expiry. */
  touches: Map<string, Touches>;
}

export class SessionsChecker implements Checker<Kind> {
  readonly name = "client.sessions";
  readonly kinds = KINDS;
  readonly messageTypes = { send: touching, deliver: touching };
  readonly log = new ViolationLog(this.name);
  private readonly ops = new OpTable(this.log);
  /** Session → zxid of its applied closeSession txn. */
  private readonly closedAt = new Map<string, bigint>();
  /** The same, by numeric session id (a Stat's ephemeralOwner). */
  private readonly closedById = new Map<bigint, { session: string; zxid: bigint }>();
  /** Ephemeral path → owner session (from ok creates). */
  private readonly ephemerals = new Map<string, string>();
  /** Path → how many creates may have produced it (any outcome). */
  private readonly createTargets = new Map<string, number>();
  // heartbeat bookkeeping
  /** Client → connection number (NO_CONN when not named) → its view. */
  private readonly clients = new Map<string, Map<number, ClientView>>();
  /** Session → its heartbeat record. */
  private readonly records = new Map<string, SessionRecord>();
  /** Message id (unique in a run) → the session a client packet in flight touches. */
  private readonly sessionPackets = new Map<number, SessionRecord>();
  /** Learner → the sessions touched there since its last PING reply. */
  private readonly touchedSinceDrain = new Map<string, Set<SessionRecord>>();
  /** Message id of a learner's PING reply in flight → the sessions it relays touches for. */
  private readonly relayed = new Map<number, SessionRecord[]>();
  private readonly skewed = new Set<string>();
  private readonly leading = new Set<string>();
  /** Quorum servers not in phase BROADCAST (electing, discovering, syncing). */
  private readonly notServing = new Set<string>();
  private readonly unseenReattach = new UnseenReattachTimeouts();

  onEvent(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "client.invoke":
        return this.onInvoke(e);
      case "client.complete":
        return this.onComplete(e);
      case "zk.apply": {
        // Nearly every apply is another op's: its op, read by name, is all it takes to see that.
        const op = fieldsOf(e).op;
        if (typeof op === "string" && op !== "closeSession") return;
        return guarded(this.log, e, this, this.onApply);
      }
      case "zk.session.expire":
        return guarded(this.log, e, this, this.onExpire);
      case "zk.session.established":
        return guarded(this.log, e, this, this.onEstablished);
      case "zk.session.invalid":
        guarded(this.log, e, this.unseenReattach, this.unseenReattach.onAnswer);
        return;
      case "client.connect":
        guarded(this.log, e, this.unseenReattach, this.unseenReattach.onConnect);
        return guarded(this.log, e, this, this.onClientState);
      case "client.state":
      case "client.disconnect":
        return guarded(this.log, e, this, this.onClientState);
      case "pause":
      case "resume":
      case "crash":
        if (e.kind === "crash") {
          this.leading.delete(e.node);
          // A learner's touch table is volatile: a crash loses what it had not reported yet.
          this.touchedSinceDrain.delete(e.node);
        }
        return this.onNodeState(e);
      case "send":
        this.unseenReattach.onSend(e);
        return this.onSend(e);
      case "deliver":
        this.reattachTouch(this.unseenReattach.onDeliver(e));
        return this.onDeliver(e);
      case "drop":
        this.unseenReattach.onDrop(e);
        if (e.id !== undefined) {
          this.sessionPackets.delete(e.id);
          this.relayed.delete(e.id);
        }
        return;
      case "zab.phase":
      case "zab.state":
      case "clock":
        return guarded(this.log, e, this, this.onServerState);
    }
  }

  private onServerState(e: TraceEvent<"zab.phase" | "zab.state" | "clock">): void {
    switch (e.kind) {
      case "zab.phase":
        if (stringField(e, "phase") === "BROADCAST") this.notServing.delete(e.node);
        else this.notServing.add(e.node);
        return;
      case "zab.state":
        if (stringField(e, "state") === "LEADING") this.leading.add(e.node);
        else this.leading.delete(e.node);
        // The touch table belongs to the learner's server of one role: a role change drops it.
        this.touchedSinceDrain.delete(e.node);
        return;
      case "clock":
        if (numberField(e, "rate") !== 1) this.skewed.add(e.node);
        return;
    }
  }

  // ---- 1 and 2: nothing after the end -------------------------------------------------------

  private onInvoke(e: TraceEvent<"client.invoke">): void {
    const inv = this.ops.invoke(e);
    if (inv === undefined) return;
    if (inv.op === "closeSession") this.record(inv.session).closeRequested = true;
    else if (inv.op === "create") {
      if (!isSequentialMode(inv.args.mode)) this.countCreate(serverPathOf(inv, inv.path));
    } else if (inv.op === "multi") {
      for (const c of createsOf(inv)) if (!isSequentialMode(c.mode)) this.countCreate(c.path);
    }
  }

  private record(session: string): SessionRecord {
    let r = this.records.get(session);
    if (r === undefined) this.records.set(session, (r = { session, negotiatedMs: undefined, closeRequested: false, touches: new Map() }));
    return r;
  }

  private onApply(e: TraceEvent<"zk.apply">): void {
    if (stringField(e, "op") !== "closeSession" || optionalStringField(e, "err") !== undefined || this.notServing.has(e.node)) return;
    const session = stringField(e, "session");
    const zxid = zxidField(e, "zxid");
    if (this.closedAt.has(session)) return;
    this.closedAt.set(session, zxid);
    this.closedById.set(zxidField(e, "session"), { session, zxid });
  }

  private onComplete(e: TraceEvent<"client.complete">): void {
    const c = this.ops.complete(e);
    if (c === undefined || c.done.outcome !== "ok") return;
    const { inv, done } = c;
    if (inv.op === "create" || inv.op === "multi") this.recordCreates(inv, done);
    if (done.zxid === undefined || inv.op === "closeSession") return;
    const closed = this.closedAt.get(done.session);
    if (closed !== undefined && done.zxid >= closed) {
      this.log.add(
        e,
        `session ${done.session} of ${inv.client} ended with closeSession txn ${hex(closed)}, yet ${inv.op} ${inv.path} (op ${inv.opId}) completed ok with reply zxid ${hex(done.zxid)}: ` +
          `a server that had applied the session's end still answered it`,
      );
    }
    this.checkEphemeralRead(e, inv, done);
  }

  private recordCreates(inv: Invocation, done: Completion): void {
    const subs = createsOf(inv);
    const paths: (string | undefined)[] =
      inv.op === "multi"
        ? subResults(done, inv)
        : [done.result?.path !== undefined ? serverPathOf(inv, done.result.path, true) : subs[0] && !isSequentialMode(subs[0].mode) ? subs[0].path : undefined];
    subs.forEach((s, i) => {
      const path = paths[i];
      if (path === undefined) return;
      if (isSequentialMode(s.mode)) this.countCreate(path);
      if (isEphemeralMode(s.mode)) this.ephemerals.set(path, done.session);
    });
  }

  private countCreate(path: string): void {
    this.createTargets.set(path, (this.createTargets.get(path) ?? 0) + 1);
  }

  private checkEphemeralRead(e: TraceEvent<"client.complete">, inv: Invocation, done: Completion): void {
    if (inv.op !== "getData" && inv.op !== "exists" && inv.op !== "getChildren") return;
    const z = done.zxid!;
    const stat = done.result?.stat;
    const owner = stat?.ephemeralOwner === undefined ? undefined : parseZxidText(stat.ephemeralOwner);
    if (owner !== undefined && owner !== 0n) {
      const closed = this.closedById.get(owner);
      if (closed !== undefined && z >= closed.zxid) {
        this.log.add(e, `${inv.op} ${inv.path} (op ${inv.opId} of ${inv.client}) at zxid ${hex(z)} shows an ephemeral owned by session ${closed.session}, which ended at ${hex(closed.zxid)}`);
      }
    }
    const children = done.result?.children;
    // Only an ephemeral of a session that ended is judged: none has yet, or no child to list.
    if (inv.op !== "getChildren" || children === undefined || this.closedAt.size === 0) return;
    const parent = serverPathOf(inv, inv.path);
    for (const child of children) {
      const path = childPath(parent, child);
      const session = this.ephemerals.get(path);
      const closed = session === undefined ? undefined : this.closedAt.get(session);
      if (closed === undefined || z < closed || this.createTargets.get(path) !== 1) continue;
      this.log.add(e, `getChildren ${inv.path} (op ${inv.opId} of ${inv.client}) at zxid ${hex(z)} lists ${child}, an ephemeral of session ${session}, which ended at ${hex(closed)}`);
    }
  }

  // ---- 3: a heartbeating session is not expired ---------------------------------------------

  /**
   * Client views are per (node, connection): a node may run several handles (a recipe's lock
   * session and its storage session), and only the connection a packet travels on says whose
   * session it touches. Annotations name the connection in `conn`.
   */
  private onClientState(e: TraceEvent<"client.state" | "client.connect" | "client.disconnect">): void {
    const view = this.view(stringField(e, "client"), optionalIntField(e, "conn"));
    const session = stringField(e, "session");
    view.session = session;
    view.rec = this.record(session);
    if (e.kind === "client.state") view.connected = stringField(e, "state") === "CONNECTED";
    else view.connected = false;
    if (e.kind === "client.connect") view.server = stringField(e, "server");
  }

  private view(client: string, conn: number | undefined): ClientView {
    let byConn = this.clients.get(client);
    if (byConn === undefined) this.clients.set(client, (byConn = new Map()));
    const key = conn ?? NO_CONN;
    let v = byConn.get(key);
    if (v === undefined) byConn.set(key, (v = { session: "", rec: undefined, connected: false, server: undefined, paused: false }));
    return v;
  }

  private onNodeState(e: TraceEvent<"pause" | "resume" | "crash">): void {
    for (const v of this.clients.get(e.node)?.values() ?? []) {
      v.paused = e.kind === "pause";
      if (e.kind === "crash") v.connected = false;
    }
  }

  private onSend(e: TraceEvent<"send">): void {
    if (e.peer === undefined || e.id === undefined) return;
    const byConn = this.clients.get(e.node);
    if (byConn !== undefined) {
      const v = byConn.get(e.conn ?? NO_CONN);
      if (v === undefined) return;
      if (v.connected && !v.paused && e.peer === v.server && !isUntouching(e.detail)) {
        this.sessionPackets.set(e.id, v.rec ?? this.record(v.session));
      }
      return;
    }
    if (e.detail !== "PING") return;
    // A learner's PING reply carries (and drains) its touch table; a leader's PING carries none.
    const touched = this.touchedSinceDrain.get(e.node);
    if (touched === undefined || touched.size === 0 || this.leading.has(e.node)) return;
    this.relayed.set(e.id, [...touched]);
    touched.clear();
  }

  private onDeliver(e: TraceEvent<"deliver">): void {
    if (e.peer === undefined || e.id === undefined) return;
    const key = e.id;
    const rec = this.sessionPackets.get(key);
    if (rec !== undefined) {
      this.sessionPackets.delete(key);
      this.addTouch(e.node, rec, e.atUs, rec.negotiatedMs, false);
      let set = this.touchedSinceDrain.get(e.node);
      if (set === undefined) this.touchedSinceDrain.set(e.node, (set = new Set()));
      set.add(rec);
      return;
    }
    const recs = this.relayed.get(key);
    if (recs === undefined) return;
    this.relayed.delete(key);
    // A packet's touch, now, by the session's latest negotiated timeout.
    for (const r of recs) this.addTouch(e.node, r, e.atUs, r.negotiatedMs, false);
  }

  /** A re-attachment's touch, once its timeout is known: it may lie in the past. */
  private reattachTouch(t: ReattachTouch | undefined): void {
    if (t !== undefined) this.addTouch(t.server, this.record(t.session), t.atUs, t.timeoutMs, true);
  }

  private addTouch(server: string, rec: SessionRecord, atUs: number, timeoutMs: number | undefined, reattach: boolean): void {
    const known = rec.touches.get(server);
    if (known === undefined) {
      // Once a close was asked for, a first touch here may come after the leader marked the
      // session closing, and the touch it last honoured is not known: nothing to judge by.
      if (!rec.closeRequested) rec.touches.set(server, { last: { atUs, timeoutMs, reattach }, sinceClose: [] });
      return;
    }
    // A touch older than the latest one is not the last (a re-attachment's, answered late).
    const last = known.last;
    if (atUs < last.atUs) return;
    if (rec.closeRequested) known.sinceClose.push({ atUs, timeoutMs, reattach });
    else {
      last.atUs = atUs;
      last.timeoutMs = timeoutMs;
      last.reattach = reattach;
    }
  }

  private onEstablished(e: TraceEvent<"zk.session.established">): void {
    const rec = this.record(stringField(e, "session"));
    rec.negotiatedMs = numberField(e, "timeoutMs");
    this.reattachTouch(this.unseenReattach.onAnswer(e));
  }

  private onExpire(e: TraceEvent<"zk.session.expire">): void {
    const session = stringField(e, "session");
    const timeoutMs = intField(e, "timeoutMs");
    if (this.skewed.has(e.node) || this.unseenReattach.has(session)) return;
    const known = this.records.get(session)?.touches.get(e.node);
    if (known === undefined) return;
    // A touch sets the expiry by its connection's timeout (Java's touchSession(id, timeout)):
    // after a re-attach that negotiated a shorter one, the session expires sooner than the
    // timeout it was created with, which the expiry reports. Of the touches that may have been
    // the last honoured, the one whose deadline comes first is the bound.
    let bound: { touch: Touch; windowMs: number } | undefined;
    for (const touch of [known.last, ...known.sinceClose]) {
      const windowMs = Math.min(timeoutMs, touch.timeoutMs ?? timeoutMs);
      if (bound === undefined || touch.atUs + windowMs * 1000 < bound.touch.atUs + bound.windowMs * 1000) bound = { touch, windowMs };
    }
    const { touch, windowMs } = bound!;
    if (e.atUs - touch.atUs >= windowMs * 1000) return;
    const by = touch.reattach ? "a re-attachment of it (a learner's REVALIDATE, or a ConnectRequest the server took)" : "a packet its connected client sent";
    this.log.add(
      e,
      `${e.node} expired session ${session} (timeout ${windowMs} ms) only ${(e.atUs - touch.atUs) / 1000} ms after it was last touched there by ${by}: ` +
        `a session that heartbeats to a serving server must not expire`,
    );
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}


/** The creates of an invocation (itself, or a multi's sub-ops), with server paths and modes. */
function createsOf(inv: Invocation): { path: string; mode: CreateModeName | undefined }[] {
  if (inv.op === "create") return [{ path: serverPathOf(inv, inv.path), mode: inv.args.mode }];
  if (inv.op !== "multi") return [];
  return (inv.args.ops ?? []).filter((s) => s.op === "create").map((s) => ({ path: serverPathOf(inv, s.path), mode: s.args.mode }));
}

/** The created paths of a multi's create sub-ops, in order (undefined when not recorded). */
function subResults(done: Completion, inv: Invocation): (string | undefined)[] {
  const results = done.result?.results ?? [];
  const out: (string | undefined)[] = [];
  (inv.args.ops ?? []).forEach((s, i) => {
    if (s.op === "create") out.push(results[i]?.path);
  });
  return out;
}
