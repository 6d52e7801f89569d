/**
 * One whole-API actor: a session handle on a client node that draws, one after the other, calls
 * from everything the client offers, weighed by the seed's plan (api-swarm-shape.ts) — creates in
 * every mode, deletes / setData with right, wrong and −1 versions, every read with and without
 * watches, multi and multiRead with failing parts, sync, ACLs and credentials of every scheme,
 * whoAmI, getEphemerals, getAllChildrenNumber, persistent and recursive watches and their
 * removal, special paths, pipelined calls, closing and re-attaching sessions (a stale one, a wrong
 * password, a live one of another node), idling past the session timeout; a call goes through the
 * promise API or Java's callback API (`zk.async`). A handle may be chrooted to a subtree. Several actors share a client node: several sessions per process.
 *
 * What comes back is not judged here (any ZooKeeper error is an expected outcome): the checkers
 * read the trace. The actor only remembers what it learned (names it saw, versions) to draw
 * right and wrong versions and existing names.
 *
 * A client node may crash under an actor: an op in flight then never completes, so every op is
 * raced with the node's crash (`crashes.of`), and the actor waits for the node to come back and
 * opens a new handle. A paused node issues nothing until it resumes.
 */
import { CreateMode, Ids, WatcherType, AddWatchMode, type ACL, type Stat } from "../../zk/proto/records.js";
import { createClient, isAlive, KeeperException, Op, type OpResult, type ZooKeeper } from "../../zk/client/index.js";
import type { Watcher } from "../../zk/client/index.js";
import { CLIENT_PORT } from "../../zk/proto/wire.js";
import type { Rng } from "../../sim/rng.js";
import { API_OPS, CREATE_MODES, pickWeighted, type ApiOp, type ApiPlan } from "../workloads/api-swarm-shape.js";
import { ApiDraws, API_ROOT, subtreePath } from "./api-draws.js";
import { CRASHED, type CrashWatch, type SessionBook } from "./api-world.js";
import { CallbackCalls, type ActorCalls } from "./api-callbacks.js";
import type { ScriptContext } from "./script.js";

/** The share of calls spelled through the callback API. */
const CALLBACK_SHARE = 0.25;

export class ApiActor {
  private zk: ZooKeeper | undefined;
  private incarnation = -1;
  /** The handle's chroot (a subtree's server path), if it has one. */
  private chroot: string | undefined;
  private stopped = false;
  private readonly draws: ApiDraws;
  /** Its own stream for the connect strings' spelling, so the calls drawn are those of the actor's stream alone. */
  private readonly hostRng: Rng;
  /**
   * Its own stream for the aimed draws (removals and some deletes aimed at watched paths, bursts
   * of credentials, getEphemerals prefixes cut from the session's own ephemerals), so the draws
   * of the actor's stream stay what they were.
   */
  private readonly aimRng: Rng;
  /**
   * Its own stream for the spelling of each call: the promise API, or (one call in four) Java's
   * callback API through `zk.async` (api-callbacks.ts). The calls drawn are the same either way.
   */
  private readonly spellingRng: Rng;
  /** Server paths this handle has set a watch on (a watched read or addWatch), whatever came back. */
  private watched: string[] = [];
  /** Server paths of the ephemerals this handle's session created (the last 16), whatever became of them since. */
  private ephemerals: string[] = [];
  /** Server paths this actor has seen exist, and the last version / aversion it saw of each. */
  private readonly seen: string[] = [];
  private readonly versions = new Map<string, number>();
  private readonly aversions = new Map<string, number>();
  private readonly watcher: Watcher = () => undefined;
  readonly done: Promise<void>;

  constructor(
    private readonly s: ScriptContext,
    readonly node: string,
    readonly name: string,
    private readonly rng: Rng,
    private readonly plan: ApiPlan,
    private readonly book: SessionBook,
    private readonly crashes: CrashWatch,
    addresses: readonly string[],
  ) {
    this.draws = new ApiDraws(rng, plan, addresses);
    this.hostRng = rng.fork("hosts");
    this.aimRng = rng.fork("aim");
    this.spellingRng = rng.fork("callbacks");
    this.done = this.loop();
  }

  stop(): void {
    this.stopped = true;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const node = this.s.sim.node(this.node);
      if (node.status === "up") {
        if (this.zk === undefined || this.incarnation !== node.incarnation || !isAlive(this.zk.getState())) this.open();
        const op = pickWeighted(this.rng, this.plan.weights, API_OPS);
        if (op !== undefined) await this.guarded(() => this.run(op));
      }
      await this.s.sleepMs(this.rng.int(1, this.plan.opGapMsMax));
    }
    if (this.zk !== undefined && this.s.sim.node(this.node).incarnation === this.incarnation) await this.guarded(() => this.zk!.close());
  }

  /** A new handle on this node: the session timeout drawn, a chroot for some. */
  private open(): void {
    if (this.zk !== undefined && this.incarnation === this.s.sim.node(this.node).incarnation) this.book.ended(this.zk);
    const ctx = this.s.sim.node(this.node).context!;
    this.incarnation = this.s.sim.node(this.node).incarnation;
    this.chroot = this.rng.chance(this.plan.chrootShare) ? subtreePath(this.rng.int(0, this.plan.subtrees - 1)) : undefined;
    const hosts = this.connectHosts();
    const [lo, hi] = this.plan.sessionTimeoutMs;
    this.watched = [];
    this.ephemerals = [];
    // Without a chroot, a fifth of the handles end the connect string with a bare "/" (no chroot).
    const tail = this.chroot ?? (this.hostRng.chance(0.2) ? "/" : "");
    this.zk = createClient(ctx, { connectString: hosts + tail, sessionTimeoutMs: this.rng.int(lo, hi), watcher: this.watcher, ...this.s.clientDefaults });
    this.book.opened(this.zk, this.node);
  }

  /** Every server of the deployment, each `host:port` or (the plan's share of them) `host` alone: the client's default port. */
  private connectHosts(): string {
    return this.s.servers.map((id) => (this.hostRng.chance(this.plan.hostOnlyShare) ? id : `${id}:${CLIENT_PORT}`)).join(",");
  }

  /**
   * Runs `call`, swallowing ZooKeeper errors (expected outcomes) and giving up when the node
   * crashes under it (the promise would never settle).
   */
  private async guarded<T>(call: () => Promise<T> | undefined): Promise<T | typeof CRASHED | undefined> {
    try {
      const p = call();
      if (p === undefined) return undefined;
      return await Promise.race([p, this.crashes.of(this.node)]);
    } catch (err) {
      if (err instanceof KeeperException) return undefined;
      throw err;
    }
  }

  /** `zk`, or undefined when the actor has no live handle right now. */
  private handle(): ZooKeeper | undefined {
    return this.zk !== undefined && isAlive(this.zk.getState()) ? this.zk : undefined;
  }

  // ---- paths, as this handle names them --------------------------------------------------

  /** A server path this handle can name: inside its chroot, if it has one. */
  private serverPath(): string {
    const r = this.rng;
    const subtree = this.chroot === undefined ? undefined : Number(this.chroot.slice(`${API_ROOT}/t`.length));
    const known = this.seen.filter((p) => this.chroot === undefined || p === this.chroot || p.startsWith(`${this.chroot}/`));
    if (known.length > 0 && r.chance(0.35)) return r.pick(known);
    return this.draws.nodePath(subtree);
  }

  private seqPrefix(): string {
    return this.draws.sequentialPrefix(this.chroot === undefined ? undefined : Number(this.chroot.slice(`${API_ROOT}/t`.length)));
  }

  /** The client path of a server path for this handle (its chroot stripped). */
  private client(serverPath: string): string {
    const c = this.chroot;
    if (c === undefined) return serverPath;
    return serverPath === c ? "/" : serverPath.slice(c.length);
  }

  /** The server path of a client path of this handle. */
  private server(clientPath: string): string {
    const c = this.chroot;
    if (c === undefined) return clientPath;
    return clientPath === "/" ? c : c + clientPath;
  }

  private learn(serverPath: string, stat: Stat | null | undefined): void {
    if (stat === undefined || stat === null) return;
    if (!this.seen.includes(serverPath)) this.seen.push(serverPath);
    if (this.seen.length > 64) this.seen.shift();
    this.versions.set(serverPath, stat.version);
    this.aversions.set(serverPath, stat.aversion);
  }

  private watching(serverPath: string): void {
    if (!this.watched.includes(serverPath)) this.watched.push(serverPath);
    if (this.watched.length > 32) this.watched.shift();
  }

  private saw(serverPath: string): void {
    if (!this.seen.includes(serverPath)) this.seen.push(serverPath);
    if (this.seen.length > 64) this.seen.shift();
  }

  // ---- the calls ---------------------------------------------------------------------------

  private async run(op: ApiOp): Promise<void> {
    const handle = this.handle();
    if (handle === undefined) return;
    const zk: ActorCalls = this.spellingRng.chance(CALLBACK_SHARE) ? new CallbackCalls(this.s, handle) : handle;
    switch (op) {
      case "create":
      case "create2":
        return this.create(zk, op === "create2");
      case "delete": {
        // Sometimes a node this handle watches: its watches (persistent ones too) see it go.
        const drawn = this.serverPath();
        const p = this.watched.length > 0 && this.aimRng.chance(0.3) ? this.aimRng.pick(this.watched) : drawn;
        await zk.delete(this.client(p), this.draws.version(this.versions.get(p)));
        return;
      }
      case "setData": {
        const p = this.serverPath();
        this.learn(p, await zk.setData(this.client(p), this.draws.data(), this.draws.version(this.versions.get(p))));
        return;
      }
      case "getData":
      case "exists":
      case "getChildren":
      case "getChildren2":
        return this.read(zk, op, false);
      case "watch":
        return this.read(zk, this.rng.pick(["getData", "exists", "getChildren", "getChildren2"] as const), true);
      case "multi":
        return this.multi(zk);
      case "multiRead": {
        const ops = Array.from({ length: this.rng.int(1, 3) }, () => (this.rng.chance(0.5) ? Op.getData(this.client(this.serverPath())) : Op.getChildren(this.client(this.serverPath()))));
        await handle.multiRead(ops);
        return;
      }
      case "sync":
        await zk.sync(this.client(this.serverPath()));
        return;
      case "getACL": {
        const p = this.serverPath();
        this.learn(p, (await zk.getACL(this.client(p))).stat);
        return;
      }
      case "setACL": {
        const p = this.serverPath();
        this.learn(p, await zk.setACL(this.client(p), this.draws.acl(), this.draws.version(this.aversions.get(p))));
        return;
      }
      case "addAuth": {
        // Only on a connected handle: credentials added before the handshake name no session.
        const c = this.draws.credential();
        if (handle.getState() !== "CONNECTED") return;
        handle.addAuthInfo(c.scheme, c.auth);
        // Sometimes a burst of users nobody's ACL names: a connection past a dozen identities.
        if (this.aimRng.chance(0.2)) for (let i = this.aimRng.int(2, 14); i > 0; i--) handle.addAuthInfo("digest", `u${this.aimRng.int(0, 39)}:pw${this.aimRng.int(0, 2)}`);
        return;
      }
      case "whoAmI":
        await handle.whoAmI();
        return;
      case "getEphemerals": {
        const drawn = this.rng.pick(["/", this.client(this.serverPath()), this.serverPath()]);
        // Mostly aimed at the session's own ephemerals (a drawn prefix seldom meets one).
        await zk.getEphemerals(this.ephemerals.length > 0 && this.aimRng.chance(0.75) ? this.ephemeralPrefix() : drawn);
        return;
      }
      case "getAllChildrenNumber":
        await zk.getAllChildrenNumber(this.client(this.rng.chance(0.6) ? this.chroot ?? subtreePath(this.rng.int(0, this.plan.subtrees - 1)) : this.serverPath()));
        return;
      case "addWatch": {
        const p = this.serverPath();
        this.watching(p);
        await zk.addWatch(this.client(p), this.watcher, this.rng.chance(0.5) ? AddWatchMode.PERSISTENT : AddWatchMode.PERSISTENT_RECURSIVE);
        return;
      }
      case "removeWatches": {
        // Mostly aimed at a path this handle watches (a drawn path seldom holds a watch).
        const drawn = this.serverPath();
        const path = this.client(this.watched.length > 0 && this.aimRng.chance(0.75) ? this.aimRng.pick(this.watched) : drawn);
        const type = this.rng.pick([WatcherType.Children, WatcherType.Data, WatcherType.Any]);
        const local = this.rng.chance(0.3);
        await (this.rng.chance(0.5) ? zk.removeWatches(path, this.watcher, type, local) : zk.removeAllWatches(path, type, local));
        return;
      }
      case "special":
        return this.special(zk);
      case "pipeline":
        return this.pipeline(zk);
      case "close":
        this.book.ended(handle);
        await handle.close();
        return;
      case "reattach":
        return this.reattach();
      case "idle": {
        // Longer than the session timeout: a healthy idle handle keeps its session by pinging.
        const t = handle.getSessionTimeout() || this.plan.sessionTimeoutMs[1];
        await this.s.sleepMs(this.rng.int(t, 2 * t));
        return;
      }
    }
  }

  private modeAndTtl(): { mode: number; ttl?: number } {
    const name = pickWeighted(this.rng, this.plan.modes, CREATE_MODES) ?? "PERSISTENT";
    const mode = CreateMode[name];
    return name.includes("TTL") ? { mode, ttl: this.rng.int(1, this.plan.ttlMsMax) } : { mode };
  }

  private async create(zk: ActorCalls, two: boolean): Promise<void> {
    const { mode, ttl } = this.modeAndTtl();
    const sequential = mode === CreateMode.PERSISTENT_SEQUENTIAL || mode === CreateMode.EPHEMERAL_SEQUENTIAL || mode === CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
    const p = sequential ? this.seqPrefix() : this.serverPath();
    const acl = this.draws.acl();
    const created = two ? await zk.create2(this.client(p), this.draws.data(), acl, mode, ttl) : { path: await zk.create(this.client(p), this.draws.data(), acl, mode, ttl), stat: undefined };
    const path = this.server(created.path);
    if (created.stat !== undefined) this.learn(path, created.stat);
    else this.saw(path);
    if (mode !== CreateMode.EPHEMERAL && mode !== CreateMode.EPHEMERAL_SEQUENTIAL) return;
    this.ephemerals.push(path);
    if (this.ephemerals.length > 16) this.ephemerals.shift();
    // Sometimes the session lists its ephemerals at once, as a client that just registered does.
    if (this.aimRng.chance(0.25)) await zk.getEphemerals(this.ephemeralPrefix());
  }

  /**
   * A getEphemerals prefix cut from one of the session's own ephemerals — the node itself, its
   * parent, a part of its last name, or "/" — so that the filter keeps some of them and drops
   * others. Sent as given (3.8 applies no chroot to it), so a server path.
   */
  private ephemeralPrefix(): string {
    const r = this.aimRng;
    const e = r.pick(this.ephemerals);
    const parentEnd = e.lastIndexOf("/");
    switch (r.int(0, 3)) {
      case 0:
        return e;
      case 1:
        return parentEnd <= 0 ? "/" : e.slice(0, parentEnd);
      case 2:
        return e.slice(0, r.int(Math.min(parentEnd + 2, e.length), e.length));
      default:
        return "/";
    }
  }

  private async read(zk: ActorCalls, op: "getData" | "exists" | "getChildren" | "getChildren2", watch: boolean): Promise<void> {
    const p = this.serverPath();
    const w = watch ? (this.rng.chance(0.5) ? true : this.watcher) : false;
    const c = this.client(p);
    if (watch) this.watching(p);
    switch (op) {
      case "getData":
        this.learn(p, (await zk.getData(c, w)).stat);
        return;
      case "exists":
        this.learn(p, await zk.exists(c, w));
        return;
      case "getChildren":
      case "getChildren2": {
        const r = op === "getChildren" ? { children: await zk.getChildren(c, w), stat: undefined } : await zk.getChildren2(c, w);
        this.learn(p, r.stat);
        for (const child of r.children) this.saw(p === "/" ? `/${child}` : `${p}/${child}`);
        return;
      }
    }
  }

  /** 1–4 parts from check, create, delete and setData, with drawn versions: some multis fail. */
  private async multi(zk: ActorCalls): Promise<void> {
    const r = this.rng;
    const ops = Array.from({ length: r.int(1, 4) }, () => {
      const p = this.serverPath();
      switch (r.int(0, 3)) {
        case 0:
          return Op.check(this.client(p), this.draws.version(this.versions.get(p)));
        case 1: {
          const { mode, ttl } = this.modeAndTtl();
          const sequential = mode === CreateMode.PERSISTENT_SEQUENTIAL || mode === CreateMode.EPHEMERAL_SEQUENTIAL || mode === CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
          return Op.create(this.client(sequential ? this.seqPrefix() : p), this.draws.data(), this.draws.acl(), mode, ttl);
        }
        case 2:
          return Op.delete(this.client(p), this.draws.version(this.versions.get(p)));
        default:
          return Op.setData(this.client(p), this.draws.data(), this.draws.version(this.versions.get(p)));
      }
    });
    const results: OpResult[] = await zk.multi(ops);
    for (const res of results) if (res.kind === "create") this.saw(this.server(res.path));
  }

  /** Calls on paths the server treats specially, and one the client refuses before sending. */
  private async special(zk: ActorCalls): Promise<void> {
    switch (this.rng.int(0, 5)) {
      case 0:
        await zk.delete(this.rng.pick(["/zookeeper", "/zookeeper/quota", "/zookeeper/config"]), -1);
        return;
      case 1:
        // "/" itself: Java's client sends it as is, chroot or not.
        await zk.delete("/", -1);
        return;
      case 2:
        await zk.getChildren(this.rng.pick(["/zookeeper", "/"]));
        return;
      case 3:
        await zk.exists(this.rng.pick(["/zookeeper/config", "/zookeeper/quota"]));
        return;
      case 4:
        await zk.create("/", "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        return;
      default:
        // An invalid path: refused by the client, never sent.
        await zk.getData(`${this.client(this.serverPath())}/`, false);
    }
  }

  /** 2–4 calls submitted without waiting for the earlier ones (a session's requests run in order). */
  private async pipeline(zk: ActorCalls): Promise<void> {
    const calls: Promise<unknown>[] = [];
    for (let i = this.rng.int(2, 4); i > 0; i--) {
      const p = this.serverPath();
      const c = this.client(p);
      const acl: ACL[] = this.draws.acl();
      switch (this.rng.int(0, 4)) {
        case 0:
          calls.push(zk.create(c, this.draws.data(), acl, CreateMode.PERSISTENT));
          break;
        case 1:
          calls.push(zk.setData(c, this.draws.data(), -1));
          break;
        case 2:
          calls.push(zk.delete(c, -1));
          break;
        case 3:
          calls.push(zk.getData(c));
          break;
        default:
          calls.push(zk.exists(c));
      }
    }
    await Promise.all(calls.map((p) => p.catch((err: unknown) => {
      if (!(err instanceof KeeperException)) throw err;
    })));
  }

  /**
   * A handle on a session of the book (api-world.ts): a stale one (closed or expired: refused;
   * orphaned by its holder's crash: resumed while it lives) with its password or a wrong one, or
   * a live one another node holds with a wrong password (refused). It makes a call or two, then
   * closes.
   */
  private async reattach(): Promise<void> {
    const r = this.rng;
    const pick = this.book.pick(r, this.node);
    if (pick === undefined) return;
    const ctx = this.s.sim.node(this.node).context!;
    const passwd = pick.wrongPassword ? pick.passwd.map((b, i) => (i === 0 ? b ^ 0xff : b)) : pick.passwd;
    const hosts = this.connectHosts();
    const zk = createClient(ctx, { connectString: hosts, sessionTimeoutMs: this.plan.sessionTimeoutMs[0], sessionId: pick.sessionId, sessionPasswd: passwd, ...this.s.clientDefaults });
    this.book.borrow(pick.sessionId);
    try {
      for (let i = r.int(1, 2); i > 0; i--) {
        const p = r.chance(0.5) ? `${subtreePath(r.int(0, this.plan.subtrees - 1))}/r-${this.name}` : this.draws.nodePath();
        const done = await this.guarded<unknown>(() => (r.chance(0.5) ? zk.create(p, "", Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL) : zk.getData(p)));
        if (done === CRASHED) return;
      }
      await this.guarded(() => zk.close());
    } finally {
      this.book.giveBack(pick.sessionId);
    }
  }
}
