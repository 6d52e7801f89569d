/**
 * Naming service (ZooKeeper recipes, "out of the box applications"; "use cases: naming"):
 * unique names from PERSISTENT_SEQUENTIAL children of a directory: `<dir>/<prefix>-<tag>-`
 * plus ZooKeeper's 10-digit sequence. The tag (session id and a local counter) makes a create
 * whose reply was lost recognisable, so a CONNECTIONLOSS never hands out two names for one
 * request (nor leaks an unclaimed one): the look-up syncs first (`childrenAfterLoss`), so it
 * sees a lost create that the leader had proposed but not yet committed.
 *
 * The naive variant `blind-retry` creates again after CONNECTIONLOSS without looking: when the
 * lost create had landed, the request holds two names and one of them leaks.
 *
 * Trace: `recipe.naming {dir, client, session, event, …}`: `assigned` (`name`, `tag`), and
 * `listed` (`names`: the directory after a sync, for the checker's end-of-run comparison).
 */
import type { ZooKeeper } from "../zk/client/index.js";
import { CreateMode, Ids } from "../zk/proto/records.js";
import { SessionLostError, childrenAfterLoss, ensurePath, isRecoverable, isSessionFatal, keeperCode, retrying, type RecipeHost } from "./recipe-support.js";

/** After CONNECTIONLOSS on a create: look for the request's node first (the recipe), or create again (naive). */
export type NamingVariant = "look-up" | "blind-retry";

export class NamingService {
  private requests = 0;

  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly dir: string,
    readonly variant: NamingVariant = "look-up",
  ) {}

  /** A new unique name (the created node's name) for `prefix` ([A-Za-z0-9_]). */
  async assign(prefix: string): Promise<string> {
    await ensurePath(this.zk, this.host, "naming", this.dir);
    const tag = `${prefix}-${this.zk.getSessionIdHex()}.${++this.requests}-`;
    for (;;) {
      try {
        const path = await this.zk.create(`${this.dir}/${tag}`, "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL);
        return this.assigned(path.slice(this.dir.length + 1), tag);
      } catch (err) {
        if (isSessionFatal(err)) throw new SessionLostError("naming", keeperCode(err));
        if (!isRecoverable(err)) throw err;
      }
      if (this.variant === "blind-retry") continue;
      const children = await childrenAfterLoss(this.host, "naming", this.zk, this.dir);
      const mine = children.find((c) => c.startsWith(tag));
      if (mine !== undefined) return this.assigned(mine, tag);
    }
  }

  /** Every name in the directory (a read after sync; nothing is assigned), annotated for the checker. */
  async list(): Promise<string[]> {
    await retrying(this.host, "naming", () => this.zk.sync(this.dir));
    const names = [...(await retrying(this.host, "naming", () => this.zk.getChildren(this.dir)))].sort();
    this.host.annotate("recipe.naming", { dir: this.dir, client: this.host.id, session: this.zk.getSessionIdHex(), event: "listed", names });
    return names;
  }

  private assigned(name: string, tag: string): string {
    this.host.annotate("recipe.naming", { dir: this.dir, client: this.host.id, session: this.zk.getSessionIdHex(), event: "assigned", name, tag });
    return name;
  }
}
