/**
 * A distributed counter by versioned compare-and-set (Curator's DistributedAtomicLong, in its
 * optimistic form): read the value and its version, write value + delta with that version,
 * and on BADVERSION read again and retry.
 *
 * CONNECTIONLOSS on the write is the "unknown" case, and a blind retry can count twice. The
 * counter makes the increment idempotent with a per-client marker: the data is
 * `{value, applied: {clientId: {n, value}}}` (the client's last increment number and the value
 * it produced), each increment carries its own number, and every write copies the markers it
 * read forward. Our write happened iff a later read shows `applied[me].n >= n`: any later write read ours first (its version check saw it) and kept the
 * marker. So after CONNECTIONLOSS the counter re-reads and either recognises its increment or
 * knows it did not happen and retries — exactly once while the session (or any later session of
 * the same client id) can read.
 *
 * SESSIONEXPIRED with a write in flight leaves the outcome unknown to this handle;
 * `increment` then throws `SessionLostError` after annotating `unknown`, and `resolve()` on a
 * new handle (same client id) settles it from the marker.
 *
 * The `blind-retry` variant drops the marker check and just retries after CONNECTIONLOSS: the
 * double count the checker must catch.
 *
 * Trace: `recipe.counter {counter, client, session, event: "increment", n, outcome, value?}`
 * with outcome `ok` (value = the new value), `unknown`, or `resolved-ok` / `resolved-none`
 * (what `resolve` found for an unknown one); `{event: "read" | "final", value}`.
 */
import type { ZooKeeper } from "../zk/client/index.js";
import { Code } from "../zk/proto/error-code.js";
import { SessionLostError, decodeText, ensurePath, hasCode, isRecoverable, isSessionFatal, keeperCode, retrying, type RecipeHost } from "./recipe-support.js";
import type { TraceAnnotations } from "../sim/trace-schema.js";

export type CounterVariant = "marker" | "blind-retry";

interface CounterData {
  value: number;
  /** Per client id: its last applied increment number and the value that write produced. */
  applied: Record<string, { n: number; value: number }>;
}

export class DistributedCounter {
  private next = 0;
  private pending: number | undefined;
  private readonly variant: CounterVariant;

  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly path: string,
    options: { variant?: CounterVariant; firstIncrement?: number } = {},
  ) {
    this.variant = options.variant ?? "marker";
    this.next = options.firstIncrement ?? 0;
  }

  /** The client id the markers are kept under (stable across sessions). */
  get clientId(): string {
    return this.host.id;
  }

  /** The number the next increment will carry (to hand to a successor counter object). */
  get nextIncrement(): number {
    return this.next;
  }

  async init(): Promise<void> {
    await ensurePath(this.zk, this.host, "counter", this.path, JSON.stringify({ value: 0, applied: {} } satisfies CounterData));
  }

  /**
   * The current value. `final`: the caller promises no increment is in flight anywhere (the
   * checker compares it with the sum of acknowledged increments); it syncs first so a lagging
   * follower cannot serve an old value.
   */
  async get(final = false): Promise<number> {
    if (final) await retrying(this.host, "counter", () => this.zk.sync(this.path));
    const { data } = await this.read();
    this.emit({ event: final ? "final" : "read", value: data.value });
    return data.value;
  }

  /** Adds `delta`; resolves with the new value. Exactly once, barring SessionLostError. */
  async increment(delta = 1): Promise<number> {
    const n = ++this.next;
    this.pending = n;
    try {
      const value = await this.apply(n, delta);
      this.pending = undefined;
      this.emit({ event: "increment", n, delta, outcome: "ok", value });
      return value;
    } catch (err) {
      if (err instanceof SessionLostError) this.emit({ event: "increment", n, delta, outcome: "unknown" });
      throw err;
    }
  }

  /** After a lost session: did increment `n` of this client id happen? Settles it in the trace. */
  async resolve(n: number, delta = 1): Promise<boolean> {
    const { data } = await this.read();
    const happened = (data.applied[this.clientId]?.n ?? 0) >= n;
    this.emit({ event: "increment", n, delta, outcome: happened ? "resolved-ok" : "resolved-none" });
    return happened;
  }

  /** The increment a lost session left unknown, if any. */
  get unresolved(): number | undefined {
    return this.pending;
  }

  private async apply(n: number, delta: number): Promise<number> {
    for (;;) {
      const { data, version } = await this.read();
      const mine = data.applied[this.clientId];
      if (this.variant === "marker" && mine !== undefined && mine.n >= n) return mine.value; // our write landed
      const value = data.value + delta;
      const updated: CounterData = { value, applied: { ...data.applied, [this.clientId]: { n, value } } };
      try {
        await this.zk.setData(this.path, JSON.stringify(updated), version);
        return value;
      } catch (err) {
        if (isSessionFatal(err)) throw new SessionLostError("counter", keeperCode(err));
        if (!isRecoverable(err) && !hasCode(err, Code.BADVERSION)) throw err;
      }
    }
  }

  private async read(): Promise<{ data: CounterData; version: number }> {
    const { data, stat } = await retrying(this.host, "counter", () => this.zk.getData(this.path));
    return { data: JSON.parse(decodeText(data)) as CounterData, version: stat.version };
  }

  private emit(fields: Omit<TraceAnnotations["recipe.counter"], "counter" | "client" | "session">): void {
    this.host.annotate("recipe.counter", { counter: this.path, client: this.host.id, session: this.zk.getSessionIdHex(), ...fields });
  }
}
