/**
 * soak-tree: many sessions build a large tree (the long-run scenario of docs/long-runs.md that
 * is about state size rather than time). Each client node runs `sessionsPerClient` sessions one
 * after the other; each session creates `nodesPerSession` persistent znodes under
 * `/tree/<client>/s<n>`, `batch` at a time in one multi, then closes. With 50 clients, 20
 * sessions each and 100 nodes a session: 1,000 sessions and a 100,000-znode tree.
 *
 * Parameters: `{"kind": "zk", "script": "soak-tree", "servers": 5, "clients": 50,
 * "tree": {"sessionsPerClient": 20, "nodesPerSession": 100, "batch": 10}}`.
 *
 * Meant to run without faults (its scenario has none): any ZooKeeper error fails the run. The
 * script judges that every node was created; safety is the checkers' job.
 */
import { UserInputError } from "../../sim/errors.js";
import { CreateMode, Ids } from "../../zk/proto/records.js";
import { KeeperException, Op, type ZooKeeper } from "../../zk/client/index.js";
import type { ScriptContext, ScriptDef } from "./script.js";

const TREE_ROOT = "/tree";
const OPEN = Ids.OPEN_ACL_UNSAFE;

interface TreeParams {
  sessionsPerClient: number;
  nodesPerSession: number;
  batch: number;
}

function parseTree(raw: unknown): TreeParams {
  const at = "workload.tree";
  if (raw === undefined) raw = {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserInputError(`${at}: expected an object like {"sessionsPerClient": 20, "nodesPerSession": 100, "batch": 10}`);
  const doc = raw as Record<string, unknown>;
  for (const k of Object.keys(doc)) if (!["sessionsPerClient", "nodesPerSession", "batch"].includes(k)) throw new UserInputError(`${at}: unknown field "${k}" (allowed: sessionsPerClient, nodesPerSession, batch)`);
  const int = (field: string, dflt: number, max: number) => {
    const v = doc[field] ?? dflt;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > max) throw new UserInputError(`${at}.${field}: expected an integer in [1, ${max}], got ${JSON.stringify(v)}`);
    return v;
  };
  return { sessionsPerClient: int("sessionsPerClient", 20, 1000), nodesPerSession: int("nodesPerSession", 100, 10_000), batch: int("batch", 10, 100) };
}

/** Creates `path` unless it exists (another client, or an earlier attempt, made it). */
async function ensure(zk: ZooKeeper, path: string): Promise<void> {
  try {
    await zk.create(path, "", OPEN, CreateMode.PERSISTENT);
  } catch (err) {
    if (!(err instanceof KeeperException) || err.codeName !== "NODEEXISTS") throw err;
  }
}

/** One session: its parent node, then its nodes in multis of `batch`. Returns how many were created. */
async function oneSession(s: ScriptContext, node: string, n: number, p: TreeParams): Promise<number> {
  const zk = await s.connect(node);
  let created = 0;
  try {
    const parent = `${TREE_ROOT}/${node}/s${n}`;
    await ensure(zk, parent);
    for (let i = 0; i < p.nodesPerSession; i += p.batch) {
      const count = Math.min(p.batch, p.nodesPerSession - i);
      const ops = Array.from({ length: count }, (_, k) => Op.create(`${parent}/n${i + k}`, `${node}:${n}:${i + k}`, OPEN, CreateMode.PERSISTENT));
      await zk.multi(ops);
      created += count;
    }
  } finally {
    await zk.close();
  }
  return created;
}

export const soakTree: ScriptDef = {
  name: "soak-tree",
  description: "many sessions, one after another on every client, build a large tree of persistent znodes",
  paramKeys: ["tree"],
  checkParams: (params) => void parseTree(params.tree),
  async run(s) {
    const p = parseTree(s.params.tree);
    const first = await s.connect(s.clients[0]!);
    await ensure(first, TREE_ROOT);
    for (const c of s.clients) await ensure(first, `${TREE_ROOT}/${c}`);
    await first.close();
    let sessions = 0;
    let nodes = 0;
    await Promise.all(
      s.clients.map(async (node) => {
        for (let n = 0; n < p.sessionsPerClient; n++) {
          // Read `nodes` after the await: clients run concurrently.
          const created = await oneSession(s, node, n, p);
          nodes += created;
          sessions++;
        }
      }),
    );
    s.note(`${(s.sim.nowUs / 1e6).toFixed(0)} s: ${sessions} sessions created ${nodes} znodes`);
    s.expectEqual(nodes, s.clients.length * p.sessionsPerClient * p.nodesPerSession, "znodes created");
  },
};
