import { describe, expect, it } from "vitest";
import { WatchRemovalChecker } from "../../../src/check/client/index.js";
import { ClientTrace, S1, runChecker, stat, z } from "./trace-builder.js";

const CHILDREN = 1;
const DATA = 2;
const ANY = 3;

/** c1 (S1) holds a data watch (getData) and a child watch (getChildren) on /x. */
function watching(): ClientTrace {
  const t = new ClientTrace().connected("c1", S1);
  t.call("c1", S1, "getData", "/x", { watch: true }, z(5), { data: "a", stat: stat({ czxid: z(5) }) });
  return t.call("c1", S1, "getChildren", "/x", { watch: true }, z(5), { children: [] });
}

/** A removal of `op` on /x; `told` are the removal events the client annotates before it completes. */
function remove(t: ClientTrace, op: "removeWatches" | "removeAllWatches", type: number, local: boolean, outcome: string, told: { type: string; state?: string }[], err?: string): ClientTrace {
  const id = t.invoke("c1", S1, op, "/x", { type, local });
  for (const e of told) t.event("client.watch", "c1", { client: "c1", session: S1, type: e.type, path: "/x", watchers: 1, state: e.state ?? "SyncConnected" });
  return t.complete("c1", S1, id, outcome, err === undefined ? {} : { err });
}

const messages = (t: ClientTrace) => runChecker(new WatchRemovalChecker(), t.events).map((v) => v.message);

describe("check: client.watch-removal", () => {
  it("a removal that succeeds tells its watchers, with the kinds its type asks for", () => {
    expect(messages(remove(watching(), "removeAllWatches", ANY, false, "ok", [{ type: "ChildWatchRemoved" }, { type: "DataWatchRemoved" }]))).toEqual([]);
    expect(messages(remove(watching(), "removeWatches", DATA, false, "ok", [{ type: "DataWatchRemoved" }]))).toEqual([]);
    // Local, with the server unreachable: the events say Disconnected.
    expect(messages(remove(watching(), "removeAllWatches", CHILDREN, true, "ok", [{ type: "ChildWatchRemoved", state: "Disconnected" }]))).toEqual([]);
  });

  it("ok without an event, an event of another kind, a Disconnected event after the server's OK: violations", () => {
    expect(messages(remove(watching(), "removeAllWatches", ANY, false, "ok", []))).toEqual([
      `c1's removeAllWatches(/x, Any) (session ${S1}) completed ok, but handed its watchers no removal event: a removal that succeeds tells each kind of watcher it took`,
    ]);
    expect(messages(remove(watching(), "removeAllWatches", DATA, false, "ok", [{ type: "DataWatchRemoved" }, { type: "ChildWatchRemoved" }]))).toEqual([
      `c1's removeAllWatches(/x, Data) (session ${S1}) handed its watchers ChildWatchRemoved: a Data removal takes only DataWatchRemoved watchers`,
    ]);
    expect(messages(remove(watching(), "removeWatches", CHILDREN, false, "ok", [{ type: "ChildWatchRemoved", state: "Disconnected" }]))).toEqual([
      `c1's removeWatches(/x, Children) (session ${S1}) completed ok (the server's OK), but its ChildWatchRemoved event carries state Disconnected, not SyncConnected`,
    ]);
    expect(messages(remove(watching(), "removeWatches", CHILDREN, false, "fail", [{ type: "ChildWatchRemoved" }], "NOWATCHER"))).toEqual([
      `c1's removeWatches(/x, Children) (session ${S1}) failed (NOWATCHER), but handed its watchers ChildWatchRemoved: a removal that fails removes nothing`,
    ]);
  });

  it("a removeAllWatches that finds no watch the session holds is a violation; one already fired or removed is not", () => {
    expect(messages(remove(watching(), "removeAllWatches", CHILDREN, false, "fail", [], "NOWATCHER"))).toEqual([
      `c1's removeAllWatches(/x, Children) (session ${S1}) failed with NOWATCHER, but the session holds a child watch on /x that has not fired (set by a watched read that completed ok, not taken by any notification or removal since): the server and the client both hold it`,
    ]);
    const fired = watching().watch("c1", S1, "NodeDeleted", "/x");
    expect(messages(remove(fired, "removeAllWatches", ANY, false, "fail", [], "NOWATCHER"))).toEqual([]);
    const removed = remove(watching(), "removeAllWatches", ANY, false, "ok", [{ type: "ChildWatchRemoved" }, { type: "DataWatchRemoved" }]);
    expect(messages(remove(removed, "removeAllWatches", DATA, false, "fail", [], "NOWATCHER"))).toEqual([]);
    // A data event leaves the child watch: a Children removal must still find it.
    const dataFired = watching().watch("c1", S1, "NodeDataChanged", "/x");
    expect(messages(remove(dataFired, "removeAllWatches", CHILDREN, false, "fail", [], "NOWATCHER"))).toHaveLength(1);
  });

  it("not judged: after a removal of one watcher, a local one, an unknown outcome, or a persistent watch on the path", () => {
    const one = remove(watching(), "removeWatches", DATA, false, "ok", [{ type: "DataWatchRemoved" }]);
    expect(messages(remove(one, "removeAllWatches", DATA, false, "fail", [], "NOWATCHER"))).toEqual([]);
    const unknown = remove(watching(), "removeAllWatches", ANY, false, "unknown", [], "CONNECTIONLOSS");
    expect(messages(remove(unknown, "removeAllWatches", ANY, false, "fail", [], "NOWATCHER"))).toEqual([]);
    const persistent = watching().call("c1", S1, "addWatch", "/x", { mode: 0 }, z(5));
    expect(messages(remove(persistent, "removeAllWatches", CHILDREN, false, "fail", [], "NOWATCHER"))).toEqual([]);
  });

  it("a closed handle or a crashed node takes its session's state with it", () => {
    const t = watching().event("client.state", "c1", { client: "c1", state: "CLOSED", session: S1, cause: "closed" });
    const c = new WatchRemovalChecker();
    for (const e of t.events) c.onEvent(e as never);
    expect(c.retained()).toBe(0);
  });
});
