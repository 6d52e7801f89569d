import { describe, expect, it } from "vitest";
import { WatchTriggersChecker, WatchesChecker } from "../../../src/check/client/index.js";
import { runCheckers } from "../../../src/check/checker.js";
import { ClientTrace, S1, S2, runChecker, stat, z } from "./trace-builder.js";

/** c2 (S2) reads /x with a watch at zxid 0x5. */
function watched(op = "getData"): ClientTrace {
  const t = new ClientTrace().connected("c1", S1).connected("c2", S2);
  const result = op === "getChildren" ? { children: [] } : { data: "a", stat: stat({ czxid: z(5) }) };
  return t.call("c2", S2, op, "/x", { watch: true }, z(5), result);
}

describe("check: client: watches", () => {
  it("register, fire once, read the new data, register again, fire again: passes", () => {
    const t = watched();
    t.watch("c2", S2, "NodeDataChanged", "/x");
    t.call("c2", S2, "getData", "/x", { watch: true }, z(6), { data: "b", stat: stat({ czxid: z(5), mzxid: z(6), version: 1 }) });
    t.watch("c2", S2, "NodeDeleted", "/x");
    t.call("c2", S2, "exists", "/x", { watch: true }, z(7), { stat: null });
    t.watch("c2", S2, "NodeCreated", "/x");
    t.call("c2", S2, "getChildren", "/x", { watch: true }, z(8), { children: [] });
    t.watch("c2", S2, "NodeChildrenChanged", "/x");
    // An event nobody waits for (a leftover server registration) is delivered to no one: fine.
    t.watch("c2", S2, "NodeChildrenChanged", "/x", 0);
    expect(runChecker(new WatchesChecker(), t.events)).toEqual([]);
  });

  it("a second firing of a one-shot watch is a violation", () => {
    const t = watched().watch("c2", S2, "NodeDataChanged", "/x").watch("c2", S2, "NodeDataChanged", "/x");
    const v = runChecker(new WatchesChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/NodeDataChanged \/x was handed to 1 watcher\(s\), but no watch was waiting/);
    expect(v[0]!.eventIndex).toBe(t.events.length - 1);
  });

  it("a watch fired with an event its read cannot cause is a violation", () => {
    const t = watched("getData").watch("c2", S2, "NodeCreated", "/x");
    const v = runChecker(new WatchesChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/set by getData \/x .* fired with NodeCreated/);
  });

  it("a read showing new data before the watch event is a violation", () => {
    const t = watched();
    t.call("c2", S2, "getData", "/x", {}, z(6), { data: "b", stat: stat({ czxid: z(5), mzxid: z(6), version: 1 }) });
    t.watch("c2", S2, "NodeDataChanged", "/x");
    const v = runChecker(new WatchesChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/getData \/x \(op 2\) at zxid 0x6 shows mzxid 0x6, after the getData watch set at zxid 0x5/);
  });

  it("before the event: a node gone, a node created, a child list changed are all changes", () => {
    const gone = watched();
    const id = gone.invoke("c2", S2, "getData", "/x");
    gone.complete("c2", S2, id, "fail", { err: "NONODE", zxid: z(6) });
    expect(runChecker(new WatchesChecker(), gone.events)).toHaveLength(1);

    const created = new ClientTrace().connected("c2", S2);
    created.call("c2", S2, "exists", "/x", { watch: true }, z(5), { stat: null });
    created.call("c2", S2, "exists", "/x", {}, z(6), { stat: stat({ czxid: z(6) }) });
    expect(runChecker(new WatchesChecker(), created.events)).toHaveLength(1);

    const children = watched("getChildren");
    children.call("c2", S2, "getChildren", "/x", {}, z(6), { children: ["a"] });
    expect(runChecker(new WatchesChecker(), children.events)).toHaveLength(1);
  });

  it("reads of the unchanged state, other paths, other sessions, or after removeWatches are not judged", () => {
    const t = watched();
    t.call("c2", S2, "getData", "/x", {}, z(9), { data: "a", stat: stat({ czxid: z(5) }) });
    t.call("c2", S2, "getData", "/y", {}, z(9), { data: "b", stat: stat({ czxid: z(9) }) });
    t.call("c1", S1, "getData", "/x", {}, z(9), { data: "b", stat: stat({ czxid: z(5), mzxid: z(9) }) });
    t.call("c2", S2, "removeWatches", "/x", { type: 3, local: false }, z(9));
    t.call("c2", S2, "getData", "/x", {}, z(9), { data: "b", stat: stat({ czxid: z(5), mzxid: z(9) }) });
    t.watch("c2", S2, "NodeDataChanged", "/x");
    expect(runChecker(new WatchesChecker(), t.events)).toEqual([]);
  });

  it("persistent watches fire on every change, but once per txn on one connection", () => {
    const t = new ClientTrace().connected("c2", S2);
    t.call("c2", S2, "addWatch", "/p", { mode: 0 }, z(3));
    const notify = (zxid: string, twice: boolean) => {
      const a = t.send("s1", "c2", "notification");
      const b = twice ? t.send("s1", "c2", "notification") : undefined;
      t.apply("s1", zxid, "setData", S1);
      t.deliver("s1", "c2", a, "notification").watch("c2", S2, "NodeDataChanged", "/p");
      if (b !== undefined) t.deliver("s1", "c2", b, "notification").watch("c2", S2, "NodeDataChanged", "/p");
    };
    notify(z(4), false);
    notify(z(5), false);
    expect(runChecker(new WatchesChecker(), t.events)).toEqual([]);
    notify(z(6), true);
    const v = runChecker(new WatchesChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/received NodeDataChanged \/p twice for txn 0x6 \(setData\)/);
  });

  it("a closeSession deletes each ephemeral once: a second NodeDeleted of one path is a violation, a repeated NodeChildrenChanged of the parent is not", () => {
    const closeSession = (zxid: string, events: [string, string][]) => {
      const t = new ClientTrace().connected("c2", S2);
      t.call("c2", S2, "addWatch", "/p", { mode: 0 }, z(3));
      t.call("c2", S2, "addWatch", "/p/e", { mode: 0 }, z(3));
      const sent = events.map(() => t.send("s1", "c2", "notification"));
      t.apply("s1", zxid, "closeSession", S1);
      events.forEach(([type, path], i) => t.deliver("s1", "c2", sent[i]!, "notification").watch("c2", S2, type, path));
      return runChecker(new WatchesChecker(), t.events);
    };
    // Two ephemerals of /p (/p/e and /p/f) go: /p's children change twice, /p/e is deleted once.
    expect(closeSession(z(4), [["NodeDeleted", "/p/e"], ["NodeChildrenChanged", "/p"], ["NodeChildrenChanged", "/p"]])).toEqual([]);
    const v = closeSession(z(4), [["NodeDeleted", "/p/e"], ["NodeDeleted", "/p/e"]]);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/received NodeDeleted \/p\/e twice for txn 0x4 \(closeSession\)/);
  });

  it("a multi may trigger one path twice; a notification sent outside a txn is not attributed", () => {
    const t = new ClientTrace().connected("c2", S2);
    t.call("c2", S2, "addWatch", "/p", { mode: 1 }, z(3));
    const a = t.send("s1", "c2", "notification");
    const b = t.send("s1", "c2", "notification");
    t.apply("s1", z(4), "multi", S1);
    t.deliver("s1", "c2", a, "notification").watch("c2", S2, "NodeDataChanged", "/p/q");
    t.deliver("s1", "c2", b, "notification").watch("c2", S2, "NodeDataChanged", "/p/q");
    const c = t.send("s1", "c2", "notification");
    t.send("s1", "c2", "reply:setWatches");
    t.apply("s1", z(5), "setData", S1);
    t.deliver("s1", "c2", c, "notification").watch("c2", S2, "NodeDataChanged", "/p/q");
    expect(runChecker(new WatchesChecker(), t.events)).toEqual([]);
  });

  it("in one run with client.watch-triggers, both read one attribution of notifications, fed once, with the verdicts each has alone", () => {
    // c2 holds a persistent watch on /p; s1 notifies it twice of one setData (rule 4), whose
    // writer c1 is answered: watch-triggers judges both events (NodeDataChanged /p: right), then
    // an event of the wrong type (NodeCreated /p from a setData: watch-triggers' violation).
    const t = new ClientTrace().connected("c1", S1).connected("c2", S2);
    t.call("c2", S2, "addWatch", "/p", { mode: 0 }, z(3));
    t.call("c1", S1, "setData", "/p", { version: -1, data: "x" }, z(6), { stat: {} });
    const a = t.send("s1", "c2", "notification");
    const b = t.send("s1", "c2", "notification");
    const c = t.send("s1", "c2", "notification");
    t.event("zk.apply", "s1", { zxid: z(6), op: "setData", session: S1, cxid: 1 });
    t.deliver("s1", "c2", a, "notification").watch("c2", S2, "NodeDataChanged", "/p");
    t.deliver("s1", "c2", b, "notification").watch("c2", S2, "NodeDataChanged", "/p");
    t.deliver("s1", "c2", c, "notification").watch("c2", S2, "NodeCreated", "/p");
    const watchesAlone = runChecker(new WatchesChecker(), t.events);
    const triggersAlone = runChecker(new WatchTriggersChecker(), t.events);
    expect(watchesAlone.map((v) => v.message)).toEqual([expect.stringMatching(/received NodeDataChanged \/p twice for txn 0x6 \(setData\)/)]);
    expect(triggersAlone.map((v) => v.message)).toEqual([expect.stringMatching(/received NodeCreated \/p from txn 0x6 on s1 \(setData \/p by c1\)/)]);
    for (const order of ["watches first", "triggers first"]) {
      const watches = new WatchesChecker();
      const triggers = new WatchTriggersChecker();
      const together = runCheckers(order === "watches first" ? [watches, triggers] : [triggers, watches], t.events);
      expect(together.filter((v) => v.checker === "client.watches")).toEqual(watchesAlone);
      expect(together.filter((v) => v.checker === "client.watch-triggers")).toEqual(triggersAlone);
      // client.watches no longer reads the messages and applies: client.watch-triggers reads them for both.
      expect(watches.attachedKinds()).not.toContain("send");
      expect(watches.attachedKinds()).not.toContain("zk.apply");
    }
    // Alone in a run, it reads them itself.
    const alone = new WatchesChecker();
    runCheckers([alone], t.events);
    expect(alone.attachedKinds()).toContain("deliver");
  });
});
