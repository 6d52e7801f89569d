/**
 * Group membership (ZooKeeper recipes, "out of the box applications"; "ZooKeeper: The
 * Definitive Guide", groups and members): a group is a znode; a member is an EPHEMERAL child
 * named after the member, so ZooKeeper removes a member whose session dies. Watchers keep a
 * view with a getChildren watch that they set again at every notification.
 *
 * A join whose create met CONNECTIONLOSS is retried: NODEEXISTS then means our earlier create
 * landed if the node's ephemeralOwner is our session. Another owner is most often our own
 * former session: a server may answer SESSIONEXPIRED while the quorum still keeps the session
 * (a leader cut off from its quorum expires the sessions nobody reports, until it steps down;
 * the next leader gives every session a fresh timeout), so its node outlives what we were
 * told. It goes when that session expires for the quorum: the join waits for it to go.
 *
 * Trace: `recipe.group {group, client, session, event, member?, members?}` with event
 * `joined`, `left` (before the delete), `view` (a watcher's current member list).
 */
import type { WatchedEvent, ZooKeeper } from "../zk/client/index.js";
import { Code } from "../zk/proto/error-code.js";
import { CreateMode, EventType, Ids } from "../zk/proto/records.js";
import { SessionLostError, ensurePath, hasCode, isExpiredEvent, isRecoverable, isSessionFatal, keeperCode, retrying, watchOnce, type RecipeHost } from "./recipe-support.js";
import type { TraceAnnotations } from "../sim/trace-schema.js";

export class GroupMember {
  private lostSignal: { promise: Promise<void>; resolve(): void } | undefined;

  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly group: string,
    readonly member: string,
  ) {}

  private get path(): string {
    return `${this.group}/${this.member}`;
  }

  async join(data = ""): Promise<void> {
    await ensurePath(this.zk, this.host, "group", this.group);
    for (;;) {
      try {
        await this.zk.create(this.path, data, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        break;
      } catch (err) {
        if (isSessionFatal(err)) throw new SessionLostError("group", keeperCode(err));
        if (hasCode(err, Code.NODEEXISTS)) {
          const stat = await retrying(this.host, "group", () => this.zk.exists(this.path));
          if (stat !== null && stat.ephemeralOwner === this.zk.getSessionId()) break; // our earlier create landed
          if (stat !== null) await this.untilGone();
          continue;
        }
        if (!isRecoverable(err)) throw err;
      }
      await this.host.sleepMs(50);
    }
    emit(this.host, this.zk, this.group, { event: "joined", member: this.member });
    const d = this.host.deferred<void>();
    this.lostSignal = { promise: d.promise, resolve: () => d.resolve() };
    // Membership ends silently with the session: watch our node to notice.
    const watcher = (e: WatchedEvent): void => {
      if (e.type === EventType.NodeDeleted || isExpiredEvent(e)) d.resolve();
    };
    const stat = await retrying(this.host, "group", () => this.zk.exists(this.path, watcher));
    if (stat === null) d.resolve();
  }

  /** Waits until our member node, held by another session, is gone. */
  private async untilGone(): Promise<void> {
    const { watcher, fired } = watchOnce(this.host);
    const stat = await retrying(this.host, "group", () => this.zk.exists(this.path, watcher));
    if (stat === null) return;
    if (isExpiredEvent(await fired)) throw new SessionLostError("group", "session ended while the member name was taken");
  }

  /** Resolves when our membership ends without `leave` (session expired, node deleted). */
  get lost(): Promise<void> {
    if (this.lostSignal === undefined) throw new Error(`group ${this.group}: not joined`);
    return this.lostSignal.promise;
  }

  async leave(): Promise<void> {
    emit(this.host, this.zk, this.group, { event: "left", member: this.member });
    try {
      await retrying(this.host, "group", async () => {
        try {
          await this.zk.delete(this.path, -1);
        } catch (err) {
          if (!hasCode(err, Code.NONODE)) throw err;
        }
      });
    } catch (err) {
      if (!(err instanceof SessionLostError)) throw err;
    }
  }
}

/** Keeps a view of the group: `run` loops until `stop()`, calling `onView` with each new list. */
export class GroupWatcher {
  private stopped = false;
  private wake: (() => void) | undefined;
  members: string[] = [];

  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly group: string,
  ) {}

  /** Reads the current members (with sync: a fresh view, not a lagging server's). */
  async refresh(): Promise<string[]> {
    await retrying(this.host, "group", () => this.zk.sync(this.group));
    this.members = [...(await retrying(this.host, "group", () => this.zk.getChildren(this.group)))].sort();
    emit(this.host, this.zk, this.group, { event: "view", members: this.members, fresh: true });
    return this.members;
  }

  async run(): Promise<void> {
    await ensurePath(this.zk, this.host, "group", this.group);
    while (!this.stopped) {
      const w = watchOnce(this.host);
      this.members = [...(await retrying(this.host, "group", () => this.zk.getChildren(this.group, w.watcher)))].sort();
      emit(this.host, this.zk, this.group, { event: "view", members: this.members });
      const d = this.host.deferred<void>();
      this.wake = () => d.resolve();
      // stop() during the reads above woke nothing: look again before waiting for the watch.
      if (this.stopped) break;
      const e = await Promise.race([w.fired, d.promise.then(() => undefined)]);
      if (e !== undefined && isExpiredEvent(e)) throw new SessionLostError("group", "Expired");
    }
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }
}

function emit(host: RecipeHost, zk: ZooKeeper, group: string, fields: Omit<TraceAnnotations["recipe.group"], "group" | "client" | "session">): void {
  host.annotate("recipe.group", { group, client: host.id, session: zk.getSessionIdHex(), ...fields });
}
