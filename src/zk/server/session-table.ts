/**
 * A few (session id → value) pairs in first-insertion order, for tables that hold only the
 * sessions active right now (a learner's touches between PINGs, the leader's forwarded writes
 * in flight): a scan of a handful compares bigints in place, cheaper than a Map keyed by
 * bigint, which hashes the key in the runtime on every lookup.
 */
import type { SessionId } from "../proto/records.js";

export class SessionTable<V> {
  private sessions: SessionId[] = [];
  private values: V[] = [];

  private indexOf(sessionId: SessionId): number {
    for (let i = 0; i < this.sessions.length; i++) if (this.sessions[i] === sessionId) return i;
    return -1;
  }

  get(sessionId: SessionId): V | undefined {
    const i = this.indexOf(sessionId);
    return i < 0 ? undefined : this.values[i];
  }

  /** Sets the value; a session already present keeps its place. */
  set(sessionId: SessionId, value: V): void {
    const i = this.indexOf(sessionId);
    if (i >= 0) {
      this.values[i] = value;
      return;
    }
    this.sessions.push(sessionId);
    this.values.push(value);
  }

  delete(sessionId: SessionId): void {
    const i = this.indexOf(sessionId);
    if (i < 0) return;
    this.sessions.splice(i, 1);
    this.values.splice(i, 1);
  }

  /** Every pair in insertion order, and the table left empty. */
  drain(): [SessionId, V][] {
    const out = this.sessions.map((id, i): [SessionId, V] => [id, this.values[i]!]);
    this.sessions = [];
    this.values = [];
    return out;
  }
}
