/**
 * The learner's session tracker (docs/zookeeper.md §3.3): it expires nothing and keeps the
 * touch table it reports to the leader.
 */
import type { SessionId } from "../../proto/records.js";
import { initialSessionId } from "../../proto/session-id.js";
import { Code } from "../../proto/error-code.js";
import type { SessionTracker } from "../session-tracker.js";
import { SessionTable } from "../session-table.js";
import type { SessionDump } from "../zoo-keeper-server-bean.js";

/**
 * `LearnerSessionTracker`: a learner does not expire sessions; it records which sessions its
 * clients touched and reports them to the leader in every PING reply (the touch table).
 */
export class LearnerSessionTracker implements SessionTracker {
  readonly sessionsById = new Map<SessionId, number>();
  /** The touch table: the sessions touched since the last PING, with their timeouts, in first-touch order. */
  private readonly touchTable = new SessionTable<number>();
  private nextSessionId: SessionId;

  constructor(serverId: number, nowMs: number) {
    this.nextSessionId = initialSessionId(serverId, nowMs);
  }

  /** `LearnerSessionTracker.dumpSessions`: the global sessions (a TreeSet<Long>: by id) with their timeouts. */
  dump(): SessionDump {
    const ids = [...this.sessionsById.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return { kind: "global-sessions", sessions: ids.map((id) => [id, this.sessionsById.get(id)!]) };
  }

  createSession(timeoutMs: number): SessionId {
    const id = this.nextSessionId++;
    this.sessionsById.set(id, timeoutMs);
    return id;
  }
  addSession(sessionId: SessionId, timeoutMs: number): void {
    this.sessionsById.set(sessionId, timeoutMs);
  }
  touchSession(sessionId: SessionId, timeoutMs: number): boolean {
    this.touchTable.set(sessionId, timeoutMs);
    return true;
  }
  removeSession(sessionId: SessionId): void {
    this.sessionsById.delete(sessionId);
    this.touchTable.delete(sessionId);
  }
  setOwner(): void {}
  checkSession(): number {
    return Code.OK;
  }
  checkGlobalSession(): number {
    return Code.OK;
  }
  setSessionClosing(): void {}
  /** Learners never expire sessions. */
  start(): void {}
  shutdown(): void {}

  drainTouches(): [SessionId, number][] {
    return this.touchTable.drain();
  }
}
