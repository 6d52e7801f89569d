import { describe, expect, it } from "vitest";
import { WatchTriggersChecker } from "../../../src/check/client/index.js";
import { ClientTrace, S1, S2, runChecker, z } from "./trace-builder.js";

/**
 * client.watch-triggers: the event a client receives is one the trigger table gives the txn it
 * came from. c2 watches; c1 writes through s1, which sends the notification and then applies
 * the txn (as a server fires watches while it applies).
 */
function notified(write: (t: ClientTrace) => string, type: string, path: string, c2Chroot?: string): ClientTrace {
  const t = new ClientTrace().standalone().connected("c1", S1).connected("c2", S2);
  if (c2Chroot !== undefined) t.call("c2", S2, "exists", "/", { chroot: c2Chroot, watch: true }, z(1), { stat: null });
  const zxid = write(t);
  const id = t.send("s1", "c2", "notification");
  t.event("zk.apply", "s1", { zxid, op: t.events.filter((e) => e.kind === "client.invoke").at(-1)!.fields!.op as string, session: S1, cxid: 1 });
  t.deliver("s1", "c2", id, "notification");
  return t.watch("c2", S2, type, path);
}

const create = (path: string, result = path) => (t: ClientTrace) => {
  t.call("c1", S1, "create", path, { mode: 0, data: "" }, z(5), { path: result });
  return z(5);
};
const setData = (path: string) => (t: ClientTrace) => {
  t.call("c1", S1, "setData", path, { version: -1, data: "x" }, z(5), { stat: {} });
  return z(5);
};

describe("check: client.watch-triggers", () => {
  it("accepts the events a create and a setData fire", () => {
    expect(runChecker(new WatchTriggersChecker(), notified(create("/a/b"), "NodeCreated", "/a/b").events)).toEqual([]);
    expect(runChecker(new WatchTriggersChecker(), notified(create("/a/b"), "NodeChildrenChanged", "/a").events)).toEqual([]);
    expect(runChecker(new WatchTriggersChecker(), notified(setData("/a"), "NodeDataChanged", "/a").events)).toEqual([]);
  });

  it("reads a chrooted handle's event path as the server's", () => {
    expect(runChecker(new WatchTriggersChecker(), notified(create("/app/b"), "NodeCreated", "/b", "/app").events)).toEqual([]);
    expect(runChecker(new WatchTriggersChecker(), notified(create("/app/b"), "NodeChildrenChanged", "/", "/app").events)).toEqual([]);
  });

  it("refuses an event of the wrong type, or about another node", () => {
    const wrongType = runChecker(new WatchTriggersChecker(), notified(create("/a/b"), "NodeDataChanged", "/a/b").events);
    expect(wrongType).toHaveLength(1);
    expect(wrongType[0]!.message).toMatch(/received NodeDataChanged \/a\/b from txn 0x5 on s1 \(create \/a\/b by c1\), but that txn fires NodeCreated \/a\/b, NodeChildrenChanged \/a/);
    expect(runChecker(new WatchTriggersChecker(), notified(setData("/a"), "NodeDataChanged", "/b").events)).toHaveLength(1);
  });

  it("a txn that changed nothing (a failed write) fires nothing", () => {
    const failed = (t: ClientTrace) => {
      const id = t.invoke("c1", S1, "setData", "/a", { version: 3, data: "x" });
      t.complete("c1", S1, id, "fail", { err: "BADVERSION", zxid: z(5) });
      return z(5);
    };
    const t = new ClientTrace().standalone().connected("c1", S1).connected("c2", S2);
    const zxid = failed(t);
    const id = t.send("s1", "c2", "notification");
    t.event("zk.apply", "s1", { zxid, op: "error", session: S1, cxid: 1, err: "BADVERSION" });
    t.deliver("s1", "c2", id, "notification").watch("c2", S2, "NodeDataChanged", "/a");
    expect(runChecker(new WatchTriggersChecker(), t.events)[0]?.message).toMatch(/a failed error \(BADVERSION\)\), but that txn fires nothing/);
  });

  it("a session's end fires NodeDeleted for the ephemerals it may have created, and nothing else", () => {
    const end = (path: string) => {
      const t = new ClientTrace().standalone().connected("c1", S1).connected("c2", S2);
      t.call("c1", S1, "create", "/e", { mode: 1, data: "" }, z(3), { path: "/e" });
      const id = t.send("s1", "c2", "notification");
      t.event("zk.apply", "s1", { zxid: z(6), op: "closeSession", session: S1, cxid: 2 });
      t.deliver("s1", "c2", id, "notification").watch("c2", S2, "NodeDeleted", path);
      return runChecker(new WatchTriggersChecker(), t.events);
    };
    expect(end("/e")).toEqual([]);
    expect(end("/f")).toHaveLength(1);
  });

  it("leaves out a notification no txn explains (SetWatches' catch-up) and a txn the history cannot name", () => {
    const t = new ClientTrace().standalone().connected("c2", S2);
    const id = t.send("s1", "c2", "notification");
    t.event("send", "s1", undefined, { peer: "c2", id: 99, detail: "reply:setWatches" });
    t.deliver("s1", "c2", id, "notification").watch("c2", S2, "NodeDataChanged", "/x");
    const unknown = new ClientTrace().standalone().connected("c2", S2);
    const id2 = unknown.send("s1", "c2", "notification");
    unknown.event("zk.apply", "s1", { zxid: z(9), op: "setData", session: S1, cxid: 4 });
    unknown.deliver("s1", "c2", id2, "notification").watch("c2", S2, "NodeCreated", "/x");
    expect(runChecker(new WatchTriggersChecker(), t.events)).toEqual([]);
    expect(runChecker(new WatchTriggersChecker(), unknown.events)).toEqual([]);
  });
  it("a reap choice a server dropped when its role changed names no later reap (api-swarm-ensemble seed 84)", () => {
    const run = (stepDown: boolean) => {
      const t = new ClientTrace().standalone().connected("c2", S2);
      t.event("zk.container.reap", "s1", { path: "/a/n1", nowMs: 1 });
      if (stepDown) t.event("zab.state", "s1", { sid: 1, state: "LOOKING" });
      t.event("zk.container.reap", "s1", { path: "/a/n4", nowMs: 2 });
      const id = t.send("s1", "c2", "notification");
      t.event("zk.apply", "s1", { zxid: z(9), op: "deleteContainer", session: "0x0", cxid: 0 });
      t.deliver("s1", "c2", id, "notification").watch("c2", S2, "NodeDeleted", "/a/n4");
      return runChecker(new WatchTriggersChecker(), t.events);
    };
    expect(run(true)).toEqual([]);
    // Without the role change the first choice is the one applied: /a/n4 is not its node.
    expect(run(false)[0]?.message).toMatch(/from txn 0x9 on s1 \(the reap of \/a\/n1\)/);
  });

  describe("bounded state: txns below the durable floor are forgotten", () => {
    /** `n` setData txns of c1 through s1, each applied, logged and delivered (the floor follows them). */
    function writes(t: ClientTrace, from: number, n: number): void {
      for (let i = from; i < from + n; i++) {
        t.call("c1", S1, "setData", "/a", { version: -1, data: "x" }, z(i), { stat: {} });
        t.apply("s1", z(i), "setData", S1, i);
        t.event("zab.log", "s1", { sid: 1, zxid: z(i), txn: `t${i}` });
        t.event("zab.deliver", "s1", { sid: 1, zxid: z(i), txn: `t${i}` });
      }
    }

    it("holds a few entries after thousands of txns, not one per txn", () => {
      const t = new ClientTrace().standalone().connected("c1", S1);
      writes(t, 1, 5000);
      const checker = new WatchTriggersChecker();
      expect(runChecker(checker, t.events)).toEqual([]);
      expect(checker.retained()).toBeLessThan(2 * 1000);
    });

    it("keeps a txn whose notification is still in flight when the floor passes it, and judges that notification", () => {
      const late = (type: string) => {
        const t = new ClientTrace().standalone().connected("c1", S1).connected("c2", S2);
        t.call("c1", S1, "create", "/a/b", { mode: 0, data: "" }, z(1), { path: "/a/b" });
        const id = t.send("s1", "c2", "notification");
        t.apply("s1", z(1), "create", S1, 1);
        writes(t, 2, 5000); // the floor passes 0x1 and the checker prunes while the notification travels
        t.deliver("s1", "c2", id, "notification").watch("c2", S2, type, "/a/b");
        return runChecker(new WatchTriggersChecker(), t.events);
      };
      expect(late("NodeCreated")).toEqual([]);
      expect(late("NodeDataChanged")[0]?.message).toMatch(/received NodeDataChanged \/a\/b from txn 0x1 on s1 \(create \/a\/b by c1\)/);
    });
  });
});
