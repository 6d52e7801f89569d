/**
 * client.liveness: without faults, a connected client stays connected (docs/zookeeper.md §3.5),
 * online. An idle client whose links are healthy pings often enough (every readTimeout/2, and
 * readTimeout = 2/3 of the session timeout) that it never hits its read timeout, never loses
 * its connection and never has its session expire. So a disconnect of a connection that was
 * CONNECTED, or the expiry of a session whose handle is alive, is a violation when nothing
 * explains it:
 *
 * - a fault in force (a cut or clogged link, a paused or crashed node, a skewed clock), or any
 *   fault event (`FAULT_EVENT_KINDS`, and a node started after the run began) within the quiet
 *   window before it;
 * - any server changing its role within the window (it closes its clients' connections; an
 *   election can follow a fault by up to initLimit ticks);
 * - the session itself: its client asked to close it, or it expired (judged on its own), or a
 *   server closed the client's connection on purpose (`zk.session.moved`, `zk.cnxn.refused`,
 *   `zk.cnxn.malformed`), or another handle attached to the session (a server closes a session's
 *   connection when a new one presents the session, password right or wrong): a `client.connect`
 *   naming the session on another connection while it is connected, or `zk.session.established`
 *   / `zk.session.invalid` naming another client node.
 *
 * The quiet window is twice the session's timeout, and at least 30 s: long enough for a fault's
 * aftermath (a leader that lost its quorum gives up within syncLimit ticks; a client waits a
 * read timeout) to be over. A connection attempt that never reached CONNECTED is not judged.
 * State: the open connections and live sessions; a closed handle's session, and a crashed client
 * node's, is forgotten.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { FAULT_EVENT_KINDS } from "../../sim/trace-schema.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { CutLinks } from "../cut-links.js";
import { guarded, idOf, intField, numberField, optionalIntField, optionalStringField, stringField, stringListField } from "../event-reader.js";

export const MIN_QUIET_WINDOW_MS = 30_000;

interface Session {
  client: string;
  timeoutMs: number | undefined;
  closing: boolean;
  /** Explained already: it expired, or a server closed its connection on purpose (true time). */
  explainedAtUs: number | undefined;
}

const KINDS = [
  ...FAULT_EVENT_KINDS, "start", "zab.state", "client.state", "client.invoke", "client.connect", "client.disconnect",
  "zk.session.established", "zk.session.invalid", "zk.session.expire", "zk.session.moved", "zk.cnxn.refused", "zk.cnxn.malformed",
] as const;
type Kind = KindsOf<typeof KINDS>;
type FaultKind = (typeof FAULT_EVENT_KINDS)[number] | "start";
const FAULT_KIND_SET: ReadonlySet<string> = new Set(FAULT_EVENT_KINDS);

export class ClientLivenessChecker implements Checker<Kind> {
  readonly name = "client.liveness";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  // faults
  private lastFaultUs = -Infinity;
  private lastRoleChangeUs = -Infinity;
  private readonly cut = new CutLinks();
  private readonly clogged = new Set<string>();
  private readonly paused = new Set<string>();
  private readonly down = new Set<string>();
  private readonly skewed = new Set<string>();
  // clients
  /** "client/conn" of each connection that reached CONNECTED and is still open. */
  private readonly connected = new Set<string>();
  /** Session → the "client/conn" it last reached CONNECTED on. */
  private readonly connectedOn = new Map<string, string>();
  private readonly sessions = new Map<string, Session>();
  private readonly explainedClients = new Map<string, number>();

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    if (isFault(e) && (e.kind !== "start" || e.atUs > 0)) this.onFault(e);
    switch (e.kind) {
      case "zab.state":
        this.lastRoleChangeUs = e.atUs;
        return;
      case "client.state":
        return this.onClientState(e);
      case "client.invoke":
        if (stringField(e, "op") === "closeSession") this.session(stringField(e, "session"), e).closing = true;
        return;
      case "client.connect": {
        // Another handle presenting a connected session: the server closes the session's connection.
        const id = stringField(e, "session");
        const on = this.connectedOn.get(id);
        const s = this.sessions.get(id);
        if (s !== undefined && on !== undefined && on !== `${e.node}/${intField(e, "conn")}` && this.connected.has(on)) s.explainedAtUs = e.atUs;
        return;
      }
      case "client.disconnect":
        return this.onDisconnect(e);
      case "zk.session.established": {
        const s = this.session(stringField(e, "session"), e, stringField(e, "client"));
        s.timeoutMs = intField(e, "timeoutMs");
        this.attachedFrom(s, stringField(e, "client"), e.atUs);
        return;
      }
      case "zk.session.invalid": {
        const s = this.sessions.get(stringField(e, "session"));
        if (s !== undefined) this.attachedFrom(s, stringField(e, "client"), e.atUs);
        return;
      }
      case "zk.session.expire":
        return this.onExpire(e);
      case "zk.session.moved":
      case "zk.cnxn.refused":
      case "zk.cnxn.malformed":
        this.explainedClients.set(stringField(e, "client"), e.atUs);
        return;
    }
  }

  private onFault(e: TraceEvent<FaultKind>): void {
    this.lastFaultUs = e.atUs;
    switch (e.kind) {
      case "partition":
      case "heal":
        this.cut.apply(e);
        return;
      case "clog":
      case "unclog":
        for (const l of stringListField(e, "links")) {
          if (e.kind === "clog" && idOf(e) > 0) this.clogged.add(l);
          else this.clogged.delete(l);
        }
        return;
      case "pause":
        this.paused.add(e.node);
        return;
      case "resume":
        this.paused.delete(e.node);
        return;
      case "crash":
        this.down.add(e.node);
        this.paused.delete(e.node);
        this.forgetClient(e.node);
        return;
      case "start":
      case "restart":
        this.down.delete(e.node);
        return;
      case "clock":
        if (numberField(e, "rate") === 1) this.skewed.delete(e.node);
        else this.skewed.add(e.node);
        return;
    }
  }

  private session(id: string, e: TraceEvent, client = e.node): Session {
    let s = this.sessions.get(id);
    if (s === undefined) this.sessions.set(id, (s = { client, timeoutMs: undefined, closing: false, explainedAtUs: undefined }));
    return s;
  }

  /** Another client node presented the session: its holder's connection may be closed for it. */
  private attachedFrom(s: Session, client: string, atUs: number): void {
    if (client !== s.client) s.explainedAtUs = atUs;
  }

  /** A crashed client node's handles are gone and never say CLOSED: forget them (bounded state). */
  private forgetClient(node: string): void {
    for (const [id, s] of this.sessions) if (s.client === node) this.sessions.delete(id);
    for (const [id, on] of this.connectedOn) if (on.startsWith(`${node}/`)) this.connectedOn.delete(id);
    for (const key of this.connected) if (key.startsWith(`${node}/`)) this.connected.delete(key);
  }

  private onClientState(e: TraceEvent): void {
    const state = stringField(e, "state");
    const session = stringField(e, "session");
    const conn = optionalIntField(e, "conn");
    if (state === "CONNECTED" && conn !== undefined) {
      this.connected.add(`${e.node}/${conn}`);
      this.connectedOn.set(session, `${e.node}/${conn}`);
      this.session(session, e);
    } else if (state === "CLOSED" || state === "AUTH_FAILED") {
      // The handle is finished: forget its session (bounded state).
      this.sessions.delete(session);
      this.connectedOn.delete(session);
      if (conn !== undefined) this.connected.delete(`${e.node}/${conn}`);
    }
  }

  private onDisconnect(e: TraceEvent): void {
    const conn = optionalIntField(e, "conn");
    if (conn === undefined || !this.connected.delete(`${e.node}/${conn}`)) return;
    const id = stringField(e, "session");
    const s = this.sessions.get(id);
    const why = this.unexplained(e.atUs, s);
    if (why === undefined) return;
    this.log.add(
      e,
      `${e.node} lost its connection (session ${id}): ${optionalStringField(e, "reason") ?? "no reason given"}, ${why}: ` +
        `a connected client with healthy links pings often enough to stay connected`,
    );
  }

  private onExpire(e: TraceEvent): void {
    const id = stringField(e, "session");
    const s = this.sessions.get(id);
    if (s === undefined) return;
    const why = this.unexplained(e.atUs, s, intField(e, "timeoutMs"));
    s.explainedAtUs = e.atUs;
    if (why === undefined || s.closing) return;
    this.log.add(e, `${e.node} expired session ${id} of ${s.client}, whose handle is alive, ${why}: a client that pings keeps its session`);
  }

  /** Why nothing explains a loss at `atUs` ("with no fault …"), or undefined when something does. */
  private unexplained(atUs: number, s: Session | undefined, timeoutMs = s?.timeoutMs): string | undefined {
    if (s === undefined || s.closing || s.explainedAtUs !== undefined) return undefined;
    const windowUs = Math.max(MIN_QUIET_WINDOW_MS, 2 * (timeoutMs ?? 0)) * 1000;
    if (this.cut.list().length > 0 || this.clogged.size > 0 || this.paused.size > 0 || this.down.size > 0 || this.skewed.size > 0) return undefined;
    if (atUs - this.lastFaultUs <= windowUs || atUs - this.lastRoleChangeUs <= windowUs) return undefined;
    const closedUs = this.explainedClients.get(s.client);
    if (closedUs !== undefined && atUs - closedUs <= windowUs) return undefined;
    const since = Number.isFinite(this.lastFaultUs) ? `the last fault at ${this.lastFaultUs / 1000} ms` : "no fault in the run";
    return `with ${since}, no server changing its role for ${windowUs / 1000} ms, and no fault in force`;
  }

  finish(): Violation[] {
    return this.log.violations;
  }

  retained(): number {
    return this.connected.size + this.sessions.size + this.explainedClients.size + this.connectedOn.size;
  }
}

/** A fault event, or a node's start (a start after the run began is a fault's end). */
function isFault(e: TraceEvent): e is TraceEvent<FaultKind> {
  return FAULT_KIND_SET.has(e.kind) || e.kind === "start";
}
