/**
 * client-pipeline: one session with several requests in flight at once — the asynchronous use
 * of the client library (submit now, await later), which every other workload avoids by
 * awaiting each request before the next. ZooKeeper's FIFO client order (docs/zookeeper.md §6):
 * a session's requests are sent, applied and answered in the order the client submitted them,
 * reads included (a read waits for the session's earlier writes).
 *
 * The client writes a request as soon as it is submitted while it is connected, so requests
 * only pile up in its outgoing queue while it has no connection. The story pipelines a burst of
 * dependent operations on one path (create, set, read, create a child, set, list, read, delete,
 * exists, then a sequential create, a multi that fails, another sequential create) at the two
 * moments they pile up:
 *   1. on a fresh handle, before its first handshake completes;
 *   2. after its connection was lost (its server cut off from it past the read timeout), while
 *      it reconnects to another server of the ensemble.
 * Each burst's results must be those of the submission order. `client.session-order` judges the
 * completions generically (FIFO: answered in submission order); the expectations name the
 * values. The canary `lifo-send` (the client writes its queue newest first) is caught here.
 */
import type { ZooKeeper } from "../../zk/client/index.js";
import { createClient } from "../../zk/client/index.js";
import { Op } from "../../zk/client/op.js";
import { CreateMode, Ids } from "../../zk/proto/records.js";
import { CLIENT_PORT } from "../../zk/proto/wire.js";
import { text, type ScriptContext, type ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";

/** c1's session: its read timeout is 2/3 of it (4 s), so a cut link is noticed well within the session. */
const SESSION_TIMEOUT_MS = 6000;
/** How long the script waits for c1 to notice its cut link (its read timeout, and some). */
const NOTICE_MS = 6000;

/** What a settled operation of a burst came to: its value, or its error code. */
type Outcome = string;

const settled = (p: Promise<unknown>, show: (v: never) => string): Promise<Outcome> =>
  p.then(
    (v) => show(v as never),
    (e: { codeName?: string }) => `error ${e.codeName ?? String(e)}`,
  );

/** Submits the burst on `dir` without awaiting anything, in this order; resolves to every outcome. */
function burst(zk: ZooKeeper, dir: string): Promise<Outcome[]> {
  const open = Ids.OPEN_ACL_UNSAFE;
  const ops = [
    settled(zk.create(dir, "v0", open, CreateMode.PERSISTENT), (p: string) => `created ${p}`),
    settled(zk.setData(dir, "v1", 0), (st: { version: number }) => `set version ${st.version}`),
    settled(zk.getData(dir), (r: { data: Uint8Array | null }) => `data ${text(r.data)}`),
    settled(zk.create(`${dir}/a`, "", open, CreateMode.PERSISTENT), (p: string) => `created ${p}`),
    settled(zk.setData(dir, "v2", 1), (st: { version: number }) => `set version ${st.version}`),
    settled(zk.getChildren(dir), (c: string[]) => `children ${[...c].sort().join(",")}`),
    settled(zk.getData(dir), (r: { data: Uint8Array | null }) => `data ${text(r.data)}`),
    settled(zk.delete(`${dir}/a`, 0), () => "deleted"),
    settled(zk.exists(`${dir}/a`), (st: unknown) => (st === null ? "absent" : "present")),
    // A failed multi in the middle of the sequence: it undoes only its own pending changes, so
    // the sequential creates on either side of it number on from the parent's pending cversion.
    settled(zk.create(`${dir}/s-`, "", open, CreateMode.PERSISTENT_SEQUENTIAL), (p: string) => `created ${p}`),
    settled(zk.multi([Op.create(`${dir}/m`, "", open, CreateMode.PERSISTENT), Op.create(`${dir}/none/m`, "", open, CreateMode.PERSISTENT)]), () => "multi applied"),
    settled(zk.create(`${dir}/s-`, "", open, CreateMode.PERSISTENT_SEQUENTIAL), (p: string) => `created ${p}`),
  ];
  return Promise.all(ops);
}

const expectedBurst = (dir: string): Outcome[] => [
  `created ${dir}`,
  "set version 1",
  "data v1",
  `created ${dir}/a`,
  "set version 2",
  "children a",
  "data v2",
  "deleted",
  "absent",
  `created ${dir}/s-0000000001`,
  "error NONODE",
  `created ${dir}/s-0000000002`,
];

/** A handle on `node` that is not waited for: its requests queue until the first handshake. */
function handle(s: ScriptContext, node: string): ZooKeeper {
  const ctx = s.sim.node(node).context;
  if (ctx === undefined) throw new Error(`client node ${node} is down`);
  const connectString = s.servers.map((h) => `${h}:${CLIENT_PORT}`).join(",");
  return createClient(ctx, { connectString, sessionTimeoutMs: SESSION_TIMEOUT_MS, ...s.clientDefaults });
}

export const clientPipeline: ScriptDef = {
  name: "client-pipeline",
  description: "one session pipelines dependent requests (several in flight, submitted before the handshake and during a reconnect); they are applied and answered in submission order",
  clientRange: [1, 8],
  async run(s) {
    // The first handshake must find a serving ensemble: a failed attempt fails what is queued.
    if (s.servers.length > 1) await new EnsembleView(s.sim, s).settled(60_000);
    const zk = handle(s, s.clients[0]!);
    s.note(`${s.clients[0]} submits twelve dependent requests on /pipe-1 before its first handshake completes`);
    s.expectEqual(await burst(zk, "/pipe-1"), expectedBurst("/pipe-1"), "a burst submitted before the handshake, in submission order");

    const server = zk.cnxn.currentAddress?.host;
    if (!s.expect(server !== undefined && zk.getState() === "CONNECTED", `${s.clients[0]} is connected after its first burst`) || server === undefined) return;
    s.fault({ kind: "cut", from: [s.clients[0]!], to: [server] });
    s.note(`${s.clients[0]}'s link to ${server} is cut until the next burst is answered: past its read timeout, it reconnects elsewhere`);
    await s.waitFor(() => zk.getState() !== "CONNECTED", NOTICE_MS, `${s.clients[0]} notices the dead connection`);
    s.note(`${s.clients[0]} submits the same burst on /pipe-2 while it reconnects`);
    const second = burst(zk, "/pipe-2");
    s.expectEqual(await second, expectedBurst("/pipe-2"), "a burst submitted while reconnecting, in submission order");
    s.fault({ kind: "heal", from: [s.clients[0]!], to: [server] });

    const reader = await s.connect(s.clients[1] ?? s.clients[0]!);
    for (const dir of ["/pipe-1", "/pipe-2"]) {
      const got = await reader.getData(dir);
      s.expectEqual([text(got.data), got.stat.version, got.stat.numChildren], ["v2", 2, 2], `${dir} as another session reads it`);
    }
    await zk.close();
    await reader.close();
    s.conclude("both bursts were applied and answered in the order they were submitted");
  },
};
