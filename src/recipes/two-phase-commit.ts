/**
 * Two-phase commit on ZooKeeper (ZooKeeper recipes, "Two-phased Commit"): the coordinator
 * creates a transaction node `<root>/<tx>` with one child per site (`<tx>/<site>`, empty: no
 * vote yet) — atomically, with one multi. Each site writes its vote ("commit" / "abort") into
 * its child with a versioned setData (version 0: a site votes once; after CONNECTIONLOSS a
 * BADVERSION with our own vote in the node means the vote landed).
 *
 * The decision is a node written once: `<tx>/decision`, created by whoever decides first —
 * the coordinator once it has all votes (commit only if all voted commit, abort at the first
 * abort), or a site that timed out waiting (it proposes abort). Creation is atomic, so the
 * first decision wins and everyone else reads it: a failed or paused coordinator cannot leave
 * the sites disagreeing, only waiting until their timeout.
 *
 * Trace: `recipe.2pc {tx, client, session, event, ...}`: `begin {sites}` (coordinator),
 * `vote {site, vote}`, `proposed {decision}` (we wrote the decision node), `decided
 * {decision}` (we learned the decision).
 */
import type { ZooKeeper } from "../zk/client/index.js";
import { Op } from "../zk/client/index.js";
import { Code } from "../zk/proto/error-code.js";
import { CreateMode, Ids } from "../zk/proto/records.js";
import { SessionLostError, decodeText, ensurePath, hasCode, isExpiredEvent, isRecoverable, isSessionFatal, keeperCode, retrying, watchOnce, type RecipeHost } from "./recipe-support.js";
import type { TraceAnnotations } from "../sim/trace-schema.js";

export type Vote = "commit" | "abort";

export class TwoPhaseCommit {
  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly root: string,
  ) {}

  async init(): Promise<void> {
    await ensurePath(this.zk, this.host, "2pc", this.root);
  }

  /** Coordinator: the transaction node and one empty vote node per site, in one multi. */
  async begin(tx: string, sites: readonly string[]): Promise<void> {
    const txPath = `${this.root}/${tx}`;
    const open = Ids.OPEN_ACL_UNSAFE;
    const ops = [Op.create(txPath, sites.join(","), open, CreateMode.PERSISTENT), ...sites.map((s) => Op.create(`${txPath}/${s}`, "", open, CreateMode.PERSISTENT))];
    for (;;) {
      try {
        await this.zk.multi(ops);
        break;
      } catch (err) {
        if (isSessionFatal(err)) throw new SessionLostError("2pc", keeperCode(err));
        if (hasCode(err, Code.NODEEXISTS)) break; // our earlier attempt landed (all or nothing)
        if (!isRecoverable(err)) throw err;
      }
      if ((await retrying(this.host, "2pc", () => this.zk.exists(txPath))) !== null) break;
    }
    this.emit(tx, { event: "begin", sites: [...sites] });
  }

  /** The sites of a transaction (the coordinator wrote them into the tx node). */
  async sitesOf(tx: string): Promise<string[]> {
    const { data } = await retrying(this.host, "2pc", () => this.zk.getData(`${this.root}/${tx}`));
    return decodeText(data).split(",").filter((s) => s !== "");
  }

  /** Site: writes its vote once. */
  async vote(tx: string, site: string, vote: Vote): Promise<void> {
    const path = `${this.root}/${tx}/${site}`;
    for (;;) {
      try {
        await this.zk.setData(path, vote, 0);
        break;
      } catch (err) {
        if (isSessionFatal(err)) throw new SessionLostError("2pc", keeperCode(err));
        if (hasCode(err, Code.BADVERSION)) {
          const { data } = await retrying(this.host, "2pc", () => this.zk.getData(path));
          if (decodeText(data) === vote) break;
          throw new Error(`2pc ${tx}: ${site} already voted ${decodeText(data)}`);
        }
        if (!isRecoverable(err)) throw err;
      }
    }
    this.emit(tx, { event: "vote", site, vote });
  }

  /** The votes so far (site → vote; sites that have not voted are absent). */
  async votes(tx: string, sites: readonly string[]): Promise<Map<string, Vote>> {
    const out = new Map<string, Vote>();
    for (const site of sites) {
      const { data } = await retrying(this.host, "2pc", () => this.zk.getData(`${this.root}/${tx}/${site}`));
      const v = decodeText(data);
      if (v === "commit" || v === "abort") out.set(site, v);
    }
    return out;
  }

  /**
   * Coordinator: waits for the votes up to `timeoutMs` (node-local), decides, and writes the
   * decision once. Resolves with the decision that stands (maybe a site's earlier abort).
   */
  async coordinate(tx: string, sites: readonly string[], timeoutMs: number): Promise<Vote> {
    const deadlineMs = this.host.nowMs() + timeoutMs;
    for (;;) {
      const votes = await this.votes(tx, sites);
      const abort = [...votes.values()].includes("abort");
      if (abort || votes.size === sites.length) return this.propose(tx, abort ? "abort" : "commit");
      if (this.host.nowMs() >= deadlineMs) return this.propose(tx, "abort");
      const existing = await this.decision(tx);
      if (existing !== undefined) return this.learned(tx, existing);
      await this.host.sleepMs(100);
    }
  }

  /** Site: waits for the decision up to `timeoutMs`; then proposes abort (first writer wins). */
  async awaitDecision(tx: string, timeoutMs: number): Promise<Vote> {
    const path = `${this.root}/${tx}/decision`;
    const w = watchOnce(this.host);
    const stat = await retrying(this.host, "2pc", () => this.zk.exists(path, w.watcher));
    if (stat === null) {
      const e = await Promise.race([w.fired, this.host.sleepMs(timeoutMs).then(() => undefined)]);
      if (e !== undefined && isExpiredEvent(e)) throw new SessionLostError("2pc", "Expired");
    }
    const decided = await this.decision(tx);
    return decided !== undefined ? this.learned(tx, decided) : this.propose(tx, "abort");
  }

  /** Writes the decision if none exists; resolves with the one that stands. */
  async propose(tx: string, decision: Vote): Promise<Vote> {
    const path = `${this.root}/${tx}/decision`;
    for (;;) {
      try {
        await this.zk.create(path, decision, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        this.emit(tx, { event: "proposed", decision });
        return this.learned(tx, decision);
      } catch (err) {
        if (isSessionFatal(err)) throw new SessionLostError("2pc", keeperCode(err));
        if (!hasCode(err, Code.NODEEXISTS) && !isRecoverable(err)) throw err;
      }
      const standing = await this.decision(tx); // NODEEXISTS, or a lost reply: read what stands
      if (standing !== undefined) return this.learned(tx, standing);
    }
  }

  private async decision(tx: string): Promise<Vote | undefined> {
    try {
      const { data } = await retrying(this.host, "2pc", () => this.zk.getData(`${this.root}/${tx}/decision`));
      return decodeText(data) as Vote;
    } catch (err) {
      if (hasCode(err, Code.NONODE)) return undefined;
      throw err;
    }
  }

  private learned(tx: string, decision: Vote): Vote {
    this.emit(tx, { event: "decided", decision });
    return decision;
  }

  private emit(tx: string, fields: Omit<TraceAnnotations["recipe.2pc"], "tx" | "client" | "session">): void {
    this.host.annotate("recipe.2pc", { tx: `${this.root}/${tx}`, client: this.host.id, session: this.zk.getSessionIdHex(), ...fields });
  }
}
