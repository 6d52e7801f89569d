// @ts-check
/**
 * A user's leader election on ZooKeeper, the classic recipe: every candidate creates an
 * EPHEMERAL_SEQUENTIAL node under /election, named after its session so that a create lost to
 * CONNECTIONLOSS can be found again; the candidate with the lowest sequence number leads; each
 * other candidate watches only the node just before its own (no herd effect). Resigning is
 * closing the session.
 */
import { Code, CreateMode, Ids } from "zksim";
import { hasCode, retrying } from "./zk-errors.js";

export const ELECTION_PATH = "/election";

/** @param {string} name */
const sequenceOf = (name) => Number(name.slice(-10));

export class Election {
  /**
   * @param {import("zksim").ZooKeeper} zk
   * @param {import("zksim").ClientNode} node
   */
  constructor(zk, node) {
    this.zk = zk;
    this.node = node;
  }

  /** Resolves once this session leads; throws SESSIONEXPIRED if the session dies. */
  async campaign() {
    await this.ensureParent();
    const mine = await this.createCandidate();
    const prefix = mine.slice(0, -10);
    for (;;) {
      const all = (await retrying(this.node, () => this.zk.getChildren(ELECTION_PATH))).sort((a, b) => sequenceOf(a) - sequenceOf(b));
      // An orphan: a create of ours lost to CONNECTIONLOSS that landed after we looked. Nobody else deletes it.
      const orphans = all.filter((c) => c !== mine && c.startsWith(prefix));
      for (const o of orphans) await this.deleteOwn(`${ELECTION_PATH}/${o}`);
      const children = all.filter((c) => !orphans.includes(c));
      const at = children.indexOf(mine);
      if (at < 0) throw new Error(`${this.node.id}: my candidate node ${mine} is gone while my session lives`);
      if (at === 0) return;
      /** @type {(value?: unknown) => void} */
      let wake = () => {};
      const woken = new Promise((resolve) => (wake = resolve));
      const stat = await retrying(this.node, () => this.zk.exists(`${ELECTION_PATH}/${children[at - 1]}`, () => wake()));
      if (stat !== null) await woken;
    }
  }

  /** Creates our candidate node; after CONNECTIONLOSS, looks for it by our session's prefix first. */
  async createCandidate() {
    const prefix = `${this.zk.getSessionIdHex()}-n_`;
    for (;;) {
      try {
        const path = await this.zk.create(`${ELECTION_PATH}/${prefix}`, this.node.id, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
        return path.slice(ELECTION_PATH.length + 1);
      } catch (err) {
        if (!hasCode(err, Code.CONNECTIONLOSS)) throw err;
      }
      await retrying(this.node, () => this.zk.sync(ELECTION_PATH));
      const children = await retrying(this.node, () => this.zk.getChildren(ELECTION_PATH));
      const found = children.find((c) => c.startsWith(prefix));
      if (found !== undefined) return found;
    }
  }

  /** @param {string} path */
  async deleteOwn(path) {
    await retrying(this.node, async () => {
      try {
        await this.zk.delete(path, -1);
      } catch (err) {
        if (!hasCode(err, Code.NONODE)) throw err;
      }
    });
  }

  async ensureParent() {
    await retrying(this.node, async () => {
      try {
        await this.zk.create(ELECTION_PATH, "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      } catch (err) {
        if (!hasCode(err, Code.NODEEXISTS)) throw err;
      }
    });
  }
}
