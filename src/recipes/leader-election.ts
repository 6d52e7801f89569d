/**
 * Leader election without herd effect (ZooKeeper recipes, "Leader Election"), in two shapes
 * after Curator's: `LeaderLatch` (stand, then ask `hasLeadership()` or `await()` until you
 * close it) and `LeaderSelector` (a leadership callback: you lead while it runs, and resign
 * when it returns). Both follow the recipe:
 *
 *   1. create `<dir>/<sessionIdHex>-n_` EPHEMERAL_SEQUENTIAL (after CONNECTIONLOSS, look for
 *      our session's child before creating again);
 *   2. getChildren(dir); the lowest sequence number leads;
 *   3. otherwise watch only the next-lower node; when it goes, go to 2.
 *
 * Losing leadership must be noticed: the leader watches its own node and the session. On
 * Disconnected the latch suspends leadership (`hasLeadership()` turns false at once: the
 * leader cannot know whether its session is still alive, and must stop acting before the
 * server can expire it); on reconnect it checks again. On Expired (or its node's deletion)
 * leadership is lost for good, `await()` rejects, and the application makes a new handle and
 * a new latch.
 *
 * Trace: `recipe.election {election, client, session, event}` with event `candidate`,
 * `elected`, `suspended` (disconnected: stop acting), `lost`, `resigned` (close, emitted
 * before the delete), `withdrawn` (gave up before being elected).
 */
import type { ZooKeeper, WatchedEvent } from "../zk/client/index.js";
import { EventType, KeeperState } from "../zk/proto/records.js";
import type { Deferred } from "../base/deferred.js";
import {
  SessionLostError,
  childrenWithoutOrphans,
  createOwnSequential,
  deleteOwnNode,
  ensurePath,
  isExpiredEvent,
  retrying,
  watchOnce,
  type RecipeHost,
} from "./recipe-support.js";
import type { TraceAnnotations } from "../sim/trace-schema.js";

type LatchState = "idle" | "candidate" | "leader" | "suspended" | "closed";

/**
 * `careful`: the recipe above. `stays-leader` is a deliberately broken latch (a canary): once
 * elected it ignores Disconnected and Expired, and goes on leading after its session is gone.
 * `no-suspend` (a canary too) ignores only Disconnected: it goes on leading while disconnected,
 * and gives leadership up only when it hears Expired.
 */
export type LatchVariant = "careful" | "stays-leader" | "no-suspend";

export interface LatchOptions {
  variant?: LatchVariant;
}

export class LeaderLatch {
  private state: LatchState = "idle";
  private node: string | undefined;
  private leaderWaiters: Deferred<void>[] = [];
  private closedReason: SessionLostError | undefined;
  private checking = false;
  /** Resolved when a term of leadership ends (suspended, lost or closed). */
  private term: Deferred<void> | undefined;
  private recheck = false;
  /** One watcher object for our own node: its deletion and every session event reach it. */
  private readonly ownWatcher = (e: WatchedEvent): void => this.onOwnNodeEvent(e);
  private readonly variant: LatchVariant;

  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly dir: string,
    options: LatchOptions = {},
  ) {
    this.variant = options.variant ?? "careful";
  }

  hasLeadership(): boolean {
    return this.state === "leader";
  }

  /** Joins the election; leadership is then pursued in the background (see `await`). */
  async start(): Promise<void> {
    if (this.state !== "idle") throw new Error(`leader latch ${this.dir}: started twice`);
    this.state = "candidate";
    try {
      await ensurePath(this.zk, this.host, "election", this.dir);
      this.emit("candidate");
      this.node = await createOwnSequential(this.host, "election", this.zk, this.dir, this.prefix);
      const node = this.node;
      const stat = await retrying(this.host, "election", () => this.zk.exists(node, this.ownWatcher));
      if (stat === null) throw new SessionLostError("election", "our election node vanished");
    } catch (err) {
      this.fail(err);
      return;
    }
    void this.check();
  }

  /** Resolves once we lead; rejects with SessionLostError if the session dies first. */
  await(): Promise<void> {
    const d = this.host.deferred<void>();
    if (this.state === "leader") d.resolve();
    else if (this.state === "closed") d.reject(this.closedReason ?? new Error(`leader latch ${this.dir}: closed`));
    else this.leaderWaiters.push(d);
    return d.promise;
  }

  /** Resolves when the current term of leadership ends; at once if we do not lead. */
  leadershipEnded(): Promise<void> {
    if (this.state === "leader" && this.term !== undefined) return this.term.promise;
    const d = this.host.deferred<void>();
    d.resolve();
    return d.promise;
  }

  /** Resigns (or withdraws): stop acting first, then delete our node. */
  async close(): Promise<void> {
    if (this.state === "closed") return;
    this.emit(this.state === "leader" ? "resigned" : "withdrawn");
    this.state = "closed";
    this.endTerm();
    this.rejectWaiters(new Error(`leader latch ${this.dir}: closed`));
    const node = this.node;
    if (node === undefined) return;
    await deleteOwnNode(this.host, "election", this.zk, node, true);
  }

  private get prefix(): string {
    return `${this.zk.getSessionIdHex()}-n_`;
  }

  /** Steps 2–3, serialised: a check asked for while one runs is run again after it. */
  private async check(): Promise<void> {
    if (this.checking) {
      this.recheck = true;
      return;
    }
    this.checking = true;
    try {
      do {
        this.recheck = false;
        await this.checkOnce();
      } while (this.recheck && this.state !== "closed");
    } catch (err) {
      this.fail(err);
    } finally {
      this.checking = false;
    }
  }

  private async checkOnce(): Promise<void> {
    const name = this.node!.slice(this.dir.length + 1);
    for (;;) {
      if (this.state === "closed" || this.state === "leader") return;
      const children = await childrenWithoutOrphans(this.host, "election", this.zk, this.dir, name);
      const i = children.indexOf(name);
      if (i < 0) throw new SessionLostError("election", "our election node vanished");
      if (i === 0) return this.becomeLeader();
      const w = watchOnce(this.host);
      const stat = await retrying(this.host, "election", () => this.zk.exists(`${this.dir}/${children[i - 1]}`, w.watcher));
      if (stat === null) continue;
      const e = await w.fired;
      if (isExpiredEvent(e)) throw new SessionLostError("election", "Expired");
    }
  }

  private becomeLeader(): void {
    if (this.zk.getState() !== "CONNECTED") {
      this.state = "suspended"; // the SyncConnected event will check again
      return;
    }
    this.state = "leader";
    this.term = this.host.deferred<void>();
    this.emit("elected");
    const waiters = this.leaderWaiters;
    this.leaderWaiters = [];
    for (const d of waiters) d.resolve();
  }

  private onOwnNodeEvent(e: WatchedEvent): void {
    if (this.state === "closed") return;
    // The canary's flaw: a leader that does not listen to its session any more.
    if (this.variant === "stays-leader" && this.state === "leader") return;
    if (e.type === EventType.None) {
      // The no-suspend canary's flaw: a leader that keeps leading through a connection loss.
      if (this.variant === "no-suspend" && e.state === KeeperState.Disconnected) return;
      if (e.state === KeeperState.Disconnected && this.state === "leader") {
        this.state = "suspended";
        this.endTerm();
        this.emit("suspended");
      } else if (e.state === KeeperState.Disconnected && this.state === "candidate") {
        return; // still a candidate; the predecessor watch survives the reconnect
      } else if (e.state === KeeperState.SyncConnected && this.state === "suspended") {
        this.state = "candidate";
        void this.check();
      } else if (isExpiredEvent(e)) {
        this.fail(new SessionLostError("election", "Expired"));
      }
      return;
    }
    if (e.type === EventType.NodeDeleted) this.fail(new SessionLostError("election", "our election node was deleted"));
  }

  private fail(err: unknown): void {
    if (!(err instanceof SessionLostError)) throw err;
    if (this.state === "closed") return;
    this.emit(this.state === "leader" || this.state === "suspended" ? "lost" : "withdrawn", { reason: err.code });
    this.state = "closed";
    this.endTerm();
    this.closedReason = err;
    this.rejectWaiters(err);
  }

  private endTerm(): void {
    this.term?.resolve();
    this.term = undefined;
  }

  private rejectWaiters(err: Error): void {
    const waiters = this.leaderWaiters;
    this.leaderWaiters = [];
    for (const d of waiters) d.reject(err);
  }

  private emit(event: string, extra: Pick<TraceAnnotations["recipe.election"], "reason"> = {}): void {
    this.host.annotate("recipe.election", { election: this.dir, client: this.host.id, session: this.zk.getSessionIdHex(), event, ...extra });
  }
}

/** What a `LeaderSelector`'s leadership callback is told. */
export interface Leadership {
  /** False as soon as leadership is in doubt (disconnected) or lost: stop acting then. */
  hasLeadership(): boolean;
  /** Resolves when leadership is in doubt or lost (never, while it holds). */
  readonly ended: Promise<void>;
}

/**
 * Curator's LeaderSelector shape on top of the latch: `lead(work)` stands, waits to be
 * elected, runs `work` as the leader, and resigns when it returns (or throws). A session lost
 * before election rejects with SessionLostError; losing leadership while `work` runs ends
 * `leadership.ended`, and `work` is expected to return soon after.
 */
export class LeaderSelector {
  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly dir: string,
    private readonly options: LatchOptions = {},
  ) {}

  async lead(work: (leadership: Leadership) => Promise<void>): Promise<void> {
    const latch = new LeaderLatch(this.zk, this.host, this.dir, this.options);
    await latch.start();
    try {
      await latch.await().catch((err: unknown) => {
        throw err instanceof SessionLostError ? err : new SessionLostError("election", String(err));
      });
      await work({ hasLeadership: () => latch.hasLeadership(), ended: latch.leadershipEnded() });
    } finally {
      await latch.close();
    }
  }
}
