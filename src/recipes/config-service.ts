/**
 * Configuration service (ZooKeeper recipes, "out of the box applications"; "Building
 * applications on ZooKeeper", ActiveKeyValueStore / ConfigWatcher): the configuration is one
 * znode's data. The updater's write is an unconditional setData (create if missing), which
 * is idempotent, so it is simply retried after CONNECTIONLOSS. A watcher reads with a data
 * watch and reads again (setting the watch again) at every NodeDataChanged: it never misses
 * the latest value, though it may skip intermediate ones (watches are one-shot).
 *
 * Values carry a version the updater chooses (`v<n>`), so that a checker can tell order.
 *
 * Trace: `recipe.config {config, client, session, event, value}`: `write` (done), `seen`, and
 * `stopped` when a watch loop is stopped (`value`: the last value it had seen, or null).
 */
import type { ZooKeeper } from "../zk/client/index.js";
import { Code } from "../zk/proto/error-code.js";
import { CreateMode, Ids } from "../zk/proto/records.js";
import { SessionLostError, decodeText, ensurePath, hasCode, isExpiredEvent, retrying, watchOnce, type RecipeHost } from "./recipe-support.js";

export class ConfigUpdater {
  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly path: string,
  ) {}

  async write(value: string): Promise<void> {
    // A write whose session dies in flight may or may not have landed: say it began.
    this.host.annotate("recipe.config", { config: this.path, client: this.host.id, session: this.zk.getSessionIdHex(), event: "write-begin", value });
    await retrying(this.host, "config", async () => {
      try {
        await this.zk.setData(this.path, value, -1);
      } catch (err) {
        if (!hasCode(err, Code.NONODE)) throw err;
        const parent = this.path.slice(0, this.path.lastIndexOf("/"));
        if (parent !== "") await ensurePath(this.zk, this.host, "config", parent);
        try {
          await this.zk.create(this.path, value, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (e) {
          if (!hasCode(e, Code.NODEEXISTS)) throw e;
          await this.zk.setData(this.path, value, -1);
        }
      }
    });
    this.host.annotate("recipe.config", { config: this.path, client: this.host.id, session: this.zk.getSessionIdHex(), event: "write", value });
  }
}

export class ConfigWatcher {
  private stopped = false;
  private wake: (() => void) | undefined;
  value: string | undefined;

  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly path: string,
  ) {}

  /** The watch loop; returns after `stop()`. */
  async run(): Promise<void> {
    while (!this.stopped) {
      const w = watchOnce(this.host);
      const stat = await retrying(this.host, "config", () => this.zk.exists(this.path, w.watcher));
      if (stat !== null) {
        try {
          const { data } = await retrying(this.host, "config", () => this.zk.getData(this.path, w.watcher));
          this.seen(decodeText(data));
        } catch (err) {
          if (!hasCode(err, Code.NONODE)) throw err;
        }
      }
      const d = this.host.deferred<void>();
      this.wake = () => d.resolve();
      // stop() during the reads above woke nothing: look again before waiting for the watch.
      if (this.stopped) break;
      const e = await Promise.race([w.fired, d.promise.then(() => undefined)]);
      if (e !== undefined && isExpiredEvent(e)) throw new SessionLostError("config", "Expired");
    }
  }

  /** A fresh read (sync first), for a final comparison. */
  async readFresh(): Promise<string | undefined> {
    await retrying(this.host, "config", () => this.zk.sync(this.path));
    const { data } = await retrying(this.host, "config", () => this.zk.getData(this.path));
    this.seen(decodeText(data), true);
    return this.value;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.host.annotate("recipe.config", { config: this.path, client: this.host.id, session: this.zk.getSessionIdHex(), event: "stopped", value: this.value ?? null });
    this.wake?.();
  }

  private seen(value: string, fresh = false): void {
    this.value = value;
    this.host.annotate("recipe.config", { config: this.path, client: this.host.id, session: this.zk.getSessionIdHex(), event: "seen", value, fresh });
  }
}
