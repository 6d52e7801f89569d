/**
 * `SessionTrackerImpl` with its `ExpiryQueue` (docs/zookeeper.md §3.2–3.3).
 *
 * Sessions live in buckets keyed by expiry time: `touch(session, timeout)` moves a session to
 * the bucket `roundToNextInterval(now + timeout)` where intervals are `expirationInterval =
 * tickTime`. The tracker wakes at `nextExpirationTime` (a multiple of tickTime), takes that
 * whole bucket, marks each session closing and asks the server to expire it (a closeSession
 * request). A session therefore expires in (timeout, timeout + tickTime] after its last touch.
 *
 * Invariants: a closing or unknown session cannot be touched; a session is in at most one
 * bucket; expiry happens only on a multiple of tickTime. Only the leader (or a standalone
 * server) runs expiry.
 */
import { Code } from "../proto/error-code.js";
import type { SessionId } from "../proto/records.js";
import { initialSessionId, CONTAINER_EPHEMERAL_OWNER } from "../proto/session-id.js";
import type { SessionChecker } from "./prep-request-processor.js";
import type { SessionDump } from "./zoo-keeper-server-bean.js";
import { invariant } from "../../base/errors.js";

export interface SessionImpl {
  readonly sessionId: SessionId;
  timeoutMs: number;
  isClosing: boolean;
  /** The server connection (or learner) the session is attached to. */
  owner: unknown;
  /** The bucket it is in (0 = none). */
  expiryMs: number;
}

/** What the tracker needs from its host: a clock, a timer, and a way to expire a session. */
export interface SessionTrackerHost {
  nowMs(): number;
  setTimerMs(delayMs: number, fn: () => void, label: string): { cancelled: boolean };
  cancelTimer(t: { cancelled: boolean } | undefined): void;
  expire(session: SessionImpl): void;
}

/** What a server needs of its session tracker (the leader's expires; a learner's only records). */
export interface SessionTracker extends SessionChecker {
  readonly sessionsById: ReadonlyMap<SessionId, unknown>;
  createSession(timeoutMs: number, owner: unknown): SessionId;
  addSession(sessionId: SessionId, timeoutMs: number, owner?: unknown): unknown;
  touchSession(sessionId: SessionId, timeoutMs: number): boolean;
  removeSession(sessionId: SessionId): void;
  setOwner(sessionId: SessionId, owner: unknown): void;
  /** Begins expiring sessions (only the leader or a standalone server does). */
  /** `freshTimeouts` false: a canary that keeps old deadlines. */
  start(freshTimeouts?: boolean): void;
  shutdown(): void;
  /** `dumpSessions` (the `dump` four-letter word), as data. */
  dump(): SessionDump;
}

export class SessionTrackerImpl implements SessionTracker {
  readonly sessionsById = new Map<SessionId, SessionImpl>();
  private readonly buckets = new Map<number, Set<SessionImpl>>();
  private nextExpirationTimeMs: number;
  private nextSessionId: SessionId;
  private timer: { cancelled: boolean } | undefined;
  /** Expiry runs only once started (a leader starts it when established, as `zk.startup()`). */
  private running = false;
  /**
   * The session found last: a packet's touch and its request's session check ask for the same
   * one in a row, and a Map keyed by bigint hashes the key in the runtime on every lookup.
   */
  private lastFound: SessionImpl | undefined;

  constructor(
    private readonly host: SessionTrackerHost,
    readonly tickTimeMs: number,
    serverId: number,
    /** Standalone answers UNKNOWNSESSION for an unknown id; a quorum leader SESSIONEXPIRED. */
    private readonly unknownSessionCode: number = Code.UNKNOWNSESSION,
  ) {
    this.nextExpirationTimeMs = this.roundToNextInterval(host.nowMs());
    this.nextSessionId = initialSessionId(serverId, host.nowMs());
  }

  /** `sessionsById.get`, through the one-entry memo. */
  private find(sessionId: SessionId): SessionImpl | undefined {
    const last = this.lastFound;
    if (last !== undefined && last.sessionId === sessionId) return last;
    const s = this.sessionsById.get(sessionId);
    if (s !== undefined) this.lastFound = s;
    return s;
  }

  /**
   * Starts expiring. Every known session gets a fresh, full timeout from now: no session expires
   * while nobody served it (a new leader, a restarted standalone server).
   */
  start(freshTimeouts = true): void {
    if (this.running) return;
    this.running = true;
    this.nextExpirationTimeMs = this.roundToNextInterval(this.host.nowMs());
    for (const s of [...this.sessionsById.values()].sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0))) {
      if (freshTimeouts) this.touch(s, s.timeoutMs);
      // Only a canary passes false: it keeps the deadlines `addSessionTouchedAt` restored (those past, due at once).
      else if (s.expiryMs < this.nextExpirationTimeMs) this.moveTo(s, this.nextExpirationTimeMs);
    }
    this.schedule();
  }

  private roundToNextInterval(timeMs: number): number {
    return (Math.floor(timeMs / this.tickTimeMs) + 1) * this.tickTimeMs;
  }

  /** A new session id (the 16 low bits count up from the initial value). */
  createSession(timeoutMs: number, owner: unknown): SessionId {
    let id = this.nextSessionId++;
    if (id === CONTAINER_EPHEMERAL_OWNER) id = this.nextSessionId++;
    this.addSession(id, timeoutMs, owner);
    return id;
  }

  /** Tracks a session (new, or loaded from the database at startup) and touches it. */
  addSession(sessionId: SessionId, timeoutMs: number, owner: unknown = null): SessionImpl {
    let s = this.sessionsById.get(sessionId);
    if (s === undefined) {
      s = { sessionId, timeoutMs, isClosing: false, owner, expiryMs: 0 };
      this.sessionsById.set(sessionId, s);
    }
    this.touch(s, timeoutMs);
    return s;
  }

  /**
   * A canary only (stale-session-deadlines): tracks a session as if last touched at
   * `lastTouchMs`; a deadline already past expires at the first expiry check.
   */
  addSessionTouchedAt(sessionId: SessionId, timeoutMs: number, lastTouchMs: number): void {
    this.moveTo(this.addSession(sessionId, timeoutMs), this.roundToNextInterval(lastTouchMs + timeoutMs));
  }

  /** `touchSession`: false when the session is unknown or closing (the packet is then dropped). */
  touchSession(sessionId: SessionId, timeoutMs: number): boolean {
    const s = this.find(sessionId);
    if (s === undefined || s.isClosing) return false;
    this.touch(s, timeoutMs);
    return true;
  }

  private touch(s: SessionImpl, timeoutMs: number): void {
    this.moveTo(s, this.roundToNextInterval(this.host.nowMs() + timeoutMs));
  }

  private moveTo(s: SessionImpl, expiry: number): void {
    if (s.expiryMs === expiry) return;
    // A live session sits in exactly the bucket of its expiry time (0: in none, being expired).
    invariant(s.expiryMs === 0 || this.buckets.get(s.expiryMs)?.has(s) === true, () => `session 0x${s.sessionId.toString(16)} is not in its expiry bucket ${s.expiryMs}`);
    if (s.expiryMs !== 0) this.buckets.get(s.expiryMs)?.delete(s);
    let bucket = this.buckets.get(expiry);
    if (bucket === undefined) {
      bucket = new Set();
      this.buckets.set(expiry, bucket);
    }
    bucket.add(s);
    s.expiryMs = expiry;
  }

  removeSession(sessionId: SessionId): void {
    const s = this.find(sessionId);
    if (s === undefined) return;
    this.sessionsById.delete(sessionId);
    if (this.lastFound === s) this.lastFound = undefined;
    if (s.expiryMs !== 0) this.buckets.get(s.expiryMs)?.delete(s);
  }

  setOwner(sessionId: SessionId, owner: unknown): void {
    const s = this.find(sessionId);
    if (s !== undefined) s.owner = owner;
  }

  // ---- SessionChecker (used by PrepRequestProcessor) -------------------------------------

  checkSession(sessionId: SessionId, owner: unknown): number {
    const s = this.find(sessionId);
    if (s === undefined) return this.unknownSessionCode;
    if (s.isClosing) return Code.SESSIONEXPIRED;
    if (s.owner === null) s.owner = owner;
    else if (s.owner !== owner) return Code.SESSIONMOVED;
    return Code.OK;
  }

  checkGlobalSession(sessionId: SessionId, owner: unknown): number {
    const s = this.find(sessionId);
    if (s === undefined || s.isClosing) return Code.SESSIONEXPIRED;
    if (s.owner === null) s.owner = owner;
    else if (s.owner !== owner) return Code.SESSIONMOVED;
    return Code.OK;
  }

  setSessionClosing(sessionId: SessionId): void {
    const s = this.find(sessionId);
    if (s !== undefined) s.isClosing = true;
  }

  // ---- expiry ----------------------------------------------------------------------------

  private schedule(): void {
    if (!this.running) return;
    const delay = Math.max(0, this.nextExpirationTimeMs - this.host.nowMs());
    this.timer = this.host.setTimerMs(delay, () => this.expireDue(), "session-expiry");
  }

  /** Takes the bucket due now, marks its sessions closing and expires them in id order. */
  private expireDue(): void {
    const now = this.host.nowMs();
    while (this.nextExpirationTimeMs <= now) {
      const bucket = this.buckets.get(this.nextExpirationTimeMs);
      this.buckets.delete(this.nextExpirationTimeMs);
      this.nextExpirationTimeMs += this.tickTimeMs;
      if (bucket === undefined) continue;
      const due = [...bucket].sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
      for (const s of due) {
        s.expiryMs = 0;
        s.isClosing = true;
        this.host.expire(s);
      }
    }
    this.schedule();
  }

  shutdown(): void {
    this.running = false;
    this.host.cancelTimer(this.timer);
  }

  /**
   * Sessions grouped by bucket, by expiry time (for `dump`): as Java's ExpiryQueue, a bucket a
   * session left stays, empty, until its time comes; sessions in the order they entered it.
   */
  dump(): SessionDump {
    return { kind: "expiry-buckets", sessionCount: this.sessionsById.size, buckets: this.bucketsSnapshot() };
  }

  bucketsSnapshot(): { expiryMs: number; sessions: SessionId[] }[] {
    return [...this.buckets.entries()]
      .sort(([a], [b]) => a - b)
      .map(([expiryMs, b]) => ({ expiryMs, sessions: [...b].map((s) => s.sessionId) }));
  }
}
