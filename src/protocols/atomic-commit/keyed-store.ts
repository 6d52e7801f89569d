/**
 * A participant's data: a small keyed store with one exclusive lock per key. A transaction takes
 * its key's lock when it executes (2PC: at the transaction inquiry; 3PC: at canCommit) and keeps
 * it until its outcome is applied, so a participant in doubt visibly holds locks that block
 * other transactions — the book's "synchronous blocking". Locking is no-wait: a transaction that
 * finds its key locked cannot execute and its participant votes No (no deadlocks).
 *
 * Invariant: a key's lock is held by at most one transaction; values change only on commit.
 */
import type { Value } from "./config.js";
import { invariant } from "../../base/errors.js";

export class KeyedStore {
  readonly values = new Map<string, Value>();
  private readonly locks = new Map<string, string>();

  /** Takes `key`'s lock for `txn`; false if another transaction holds it. */
  tryLock(key: string, txn: string): boolean {
    const holder = this.locks.get(key);
    if (holder !== undefined && holder !== txn) return false;
    this.locks.set(key, txn);
    return true;
  }

  /** A commit applies `txn`'s write: only the transaction that holds the key's lock writes it. */
  commit(key: string, value: Value, txn: string): void {
    invariant(this.locks.get(key) === txn, () => `commit of ${txn} writes ${key}, whose lock ${this.locks.get(key) === undefined ? "nobody holds" : `${this.locks.get(key)} holds`}`);
    this.values.set(key, value);
  }

  holder(key: string): string | undefined {
    return this.locks.get(key);
  }

  unlock(key: string, txn: string): void {
    if (this.locks.get(key) === txn) this.locks.delete(key);
  }

  /** Every held lock as `key → txn`, sorted by key. */
  heldLocks(): Record<string, string> {
    return Object.fromEntries([...this.locks.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  snapshot(): Record<string, Value> {
    return Object.fromEntries([...this.values.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}
