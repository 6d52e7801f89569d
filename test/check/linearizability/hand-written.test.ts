import { describe, expect, it } from "vitest";
import { checkLinearizable, zkModel, type LinearizabilityResult } from "../../../src/check/linearizability/index.js";
import { HistoryBuilder } from "./ops.js";

const model = zkModel();

function violation(r: LinearizabilityResult) {
  if (r.ok) throw new Error("expected a violation");
  expect(r.inconclusive).toBe(false);
  return r;
}

describe("check: linearizability: single znode", () => {
  it("rejects a stale read after a write completed, and names the window", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/x", "a", [0, 10]);
    const w = h.set("c1", "/x", "b", [20, 30]);
    const r = h.get("c2", "/x", "a", [40, 50]);
    const v = violation(checkLinearizable(h.ops, model));
    expect(v.partition).toBe("/x");
    expect(v.failedAtUs).toBe(50);
    expect(v.minimalWindow.map((o) => o.id)).toEqual([w.id, r.id]);
    expect(v.explanation).toMatch(/getData \/x returned "a", but the node holds "b"/);
  });

  it("accepts the same read when the write is still running (concurrent)", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/x", "a", [0, 10]);
    h.set("c1", "/x", "b", [20, 60]);
    h.get("c2", "/x", "a", [40, 50]);
    expect(checkLinearizable(h.ops, model).ok).toBe(true);
  });

  it("accepts concurrent writes linearized in either order", () => {
    for (const seen of ["b", "c"]) {
      const h = new HistoryBuilder();
      h.create("c1", "/x", "a", [0, 10]);
      h.set("c1", "/x", "b", [20, 60]);
      h.set("c2", "/x", "c", [30, 70]);
      h.get("c3", "/x", seen, [80, 90]);
      expect(checkLinearizable(h.ops, model).ok).toBe(true);
    }
  });

  it("rejects a read of a value nobody wrote", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/x", "a", [0, 10]);
    h.set("c2", "/x", "b", [5, 50]);
    h.get("c3", "/x", "zzz", [20, 30]);
    const v = violation(checkLinearizable(h.ops, model));
    expect(v.explanation).toMatch(/"zzz"/);
  });

  it("reports a read of data nobody wrote alone, without searching the orders", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/x", "a", [0, 10]);
    for (let i = 0; i < 40; i++) h.set(`w${i}`, "/x", `v${i}`, [20 + i, undefined]); // 40 unknown writes: 2^40 subsets
    const r = h.get("c2", "/x", "zzz", [100, 110]);
    h.get("c2", "/y", "a", [120, 130]); // written at /x, never at /y
    const v = violation(checkLinearizable(h.ops, model));
    expect(v.steps).toBe(0);
    expect(v.minimalWindow.map((o) => o.id)).toEqual([r.id]);
    expect(v.failedAtUs).toBe(110);
    expect(v.explanation).toMatch(/#\d+ \(c2\) getData \/x returned "zzz", which no create or setData of the history wrote there, so no order of the operations on \/x explains it/);
  });

  it("counts data written by an unknown write, a multi or a sequential create as written", () => {
    const h = new HistoryBuilder();
    h.op("c1", "create", "/q", [0, 10], { args: { data: "", mode: "PERSISTENT" } });
    h.op("c1", "create", "/q/item-", [20, 30], { args: { data: "first", mode: "PERSISTENT_SEQUENTIAL" }, result: { path: "/q/item-0000000000" } });
    h.get("c2", "/q/item-0000000000", "first", [40, 50]);
    h.create("c1", "/x", "a", [60, 70]);
    h.set("c3", "/x", "maybe", [80, undefined]);
    h.get("c2", "/x", "maybe", [90, 100]);
    h.op("c1", "multi", "/x", [110, 120], { args: { ops: [{ op: "setData", path: "/x", args: { data: "m", version: -1 } }] } });
    h.get("c2", "/x", "m", [130, 140]);
    expect(checkLinearizable(h.ops, model).ok).toBe(true);
  });

  it("rejects a read that goes back to an older value (both writes completed)", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/x", "a", [0, 10]);
    h.set("c1", "/x", "b", [20, 30]);
    h.get("c2", "/x", "b", [40, 50]);
    h.get("c3", "/x", "a", [60, 70]);
    expect(checkLinearizable(h.ops, model).ok).toBe(false);
  });
});

describe("check: linearizability: indeterminate operations", () => {
  it("accepts an unknown create that later appears in a read", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/y", "d", [0]);
    h.get("c2", "/y", "d", [50, 60]);
    expect(checkLinearizable(h.ops, model).ok).toBe(true);
  });

  it("accepts the same unknown create that never appears", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/y", "d", [0]);
    h.op("c2", "getData", "/y", [50, 60], { err: "NONODE" });
    h.op("c2", "exists", "/y", [70, 80], { result: { stat: null } });
    expect(checkLinearizable(h.ops, model).ok).toBe(true);
  });

  it("accepts an unknown create that takes effect between two reads", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/y", "d", [0]);
    h.op("c2", "exists", "/y", [50, 60], { result: { stat: null } });
    h.get("c2", "/y", "d", [70, 80]);
    expect(checkLinearizable(h.ops, model).ok).toBe(true);
  });

  it("rejects a node that appears then vanishes with no delete", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/y", "d", [0]);
    h.get("c2", "/y", "d", [50, 60]);
    h.op("c2", "exists", "/y", [70, 80], { result: { stat: null } });
    expect(checkLinearizable(h.ops, model).ok).toBe(false);
  });

  it("treats CONNECTIONLOSS as unknown, never as a failure", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/y", "d", [0, 10], { outcome: "fail", err: "CONNECTIONLOSS" });
    h.get("c2", "/y", "d", [50, 60]);
    expect(checkLinearizable(h.ops, model).ok).toBe(true);
  });

  it("cannot place an unknown write before its invocation", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/y", "a", [0, 5]);
    h.get("c2", "/y", "b", [10, 20]);
    h.set("c1", "/y", "b", [30]);
    expect(checkLinearizable(h.ops, model).ok).toBe(false);
  });
});

describe("check: linearizability: a session's requests run in submission order", () => {
  /** c1 writes "lost?" and loses the connection, then writes "next"; c2 later reads `seen`. */
  function reconnect(seen: string, secondSession: string) {
    const h = new HistoryBuilder();
    h.create("c1", "/x", "a", [0, 10]);
    const lost = h.op("c1", "setData", "/x", [20, 30], { args: { data: "lost?", version: -1 }, err: "CONNECTIONLOSS", outcome: "unknown" });
    const next = h.set("c1", "/x", "next", [40, 50], { session: secondSession });
    const read = h.get("c2", "/x", seen, [60, 70]);
    return { h, lost, next, read };
  }

  it("rejects an unknown write that lands after a later write of its session", () => {
    const { h, lost, read } = reconnect("lost?", "s-c1");
    const v = violation(checkLinearizable(h.ops, model));
    expect(v.minimalWindow.map((o) => o.id)).toContain(read.id);
    expect(v.explanation).toMatch(/unknown outcome \(1\) may take effect at any time after their invocation, but before any later request of their session that took effect/);
    expect(v.explanation).toMatch(new RegExp(`getData /x returned "lost\\?", but the node holds "next"`));
    expect(lost.outcome).toBe("unknown");
  });

  it("accepts it landing before the later write, or never, and in any order across sessions", () => {
    expect(checkLinearizable(reconnect("next", "s-c1").h.ops, model).ok).toBe(true);
    expect(checkLinearizable(reconnect("lost?", "another session").h.ops, model).ok).toBe(true);
  });

  it("orders a session's overlapping requests by submission (pipelined async calls)", () => {
    /** Two overlapping writes, "second" submitted after "first"; afterwards "first" is read. */
    const overlapping = (secondBy: string) => {
      const h = new HistoryBuilder();
      h.create("c1", "/x", "a", [0, 10]);
      h.set("c1", "/x", "first", [20, 80]);
      h.set(secondBy, "/x", "second", [30, 70]);
      h.get("c2", "/x", "first", [90, 100]);
      return checkLinearizable(h.ops, model).ok;
    };
    expect(overlapping("c1")).toBe(false);
    expect(overlapping("c3")).toBe(true);
  });
});

describe("check: linearizability: no write of a session after its end", () => {
  /** Session 0x21 (c1) writes "lost?" and loses the connection; the session expires at [30, 40]; c2 reads twice. */
  function expired(first: string, second: string, closedSession = "0x21") {
    const h = new HistoryBuilder();
    h.create("c1", "/x", "a", [0, 10], { session: "0x21" });
    h.op("c1", "setData", "/x", [20], { args: { data: "lost?", version: -1 }, err: "CONNECTIONLOSS", outcome: "unknown", session: "0x21" });
    h.op("expiry@s1", "closeSession", "", [30, 40], { session: closedSession });
    h.get("c2", "/x", first, [50, 60]);
    h.get("c2", "/x", second, [70, 80]);
    return h.ops;
  }

  it("rejects an unknown write that lands after its session's closeSession", () => {
    const v = violation(checkLinearizable(expired("a", "lost?"), model));
    expect(v.explanation).toMatch(/getData \/x returned "lost\?", but the node holds "a"/);
  });

  it("accepts it landing before the close, or never, or after another session's close", () => {
    expect(checkLinearizable(expired("lost?", "lost?"), model).ok).toBe(true);
    expect(checkLinearizable(expired("a", "a"), model).ok).toBe(true);
    expect(checkLinearizable(expired("a", "lost?", "0x22"), model).ok).toBe(true);
  });

  it("places a session's end after every definite write of the session", () => {
    /** An ephemeral create of 0x21 overlaps its expiry; afterwards c2 looks for the node. */
    const race = (found: boolean) => {
      const h = new HistoryBuilder();
      h.op("c1", "create", "/e", [20, 50], { args: { data: "", mode: "EPHEMERAL" }, session: "0x21" });
      h.op("expiry@s1", "closeSession", "", [10, 40], { session: "0x21" });
      h.op("c2", "getData", "/e", [60, 70], found ? { result: { data: "" } } : { err: "NONODE" });
      return checkLinearizable(h.ops, model).ok;
    };
    expect(race(false)).toBe(true);
    expect(race(true)).toBe(false);
  });
});

describe("check: linearizability: errors as reads of the state", () => {
  it("explains BADVERSION only by a concurrent write", () => {
    const build = (writeAt: [number, number]) => {
      const h = new HistoryBuilder();
      h.create("c1", "/x", "a", [0, 10]);
      h.set("c2", "/x", "z", writeAt);
      h.set("c1", "/x", "b", [20, 40], { args: { version: 0 }, err: "BADVERSION" });
      return h.ops;
    };
    expect(checkLinearizable(build([25, 35]), model).ok).toBe(true);
    const v = violation(checkLinearizable(build([50, 60]), model));
    expect(v.explanation).toMatch(/BADVERSION/);
  });

  it("explains NONODE and NODEEXISTS by the state at the linearization point", () => {
    const h = new HistoryBuilder();
    h.op("c1", "delete", "/x", [0, 10], { err: "NONODE", args: { version: -1 } });
    h.create("c1", "/x", "a", [20, 30]);
    h.create("c2", "/x", "b", [40, 50], { err: "NODEEXISTS" });
    h.op("c2", "delete", "/x", [60, 70], { args: { version: 0 } });
    h.op("c3", "getData", "/x", [80, 90], { err: "NONODE" });
    expect(checkLinearizable(h.ops, model).ok).toBe(true);
    h.create("c3", "/x", "c", [100, 110], { err: "NODEEXISTS" });
    expect(checkLinearizable(h.ops, model).ok).toBe(false);
  });

  it("reports NOTEMPTY for a parent with children and NONODE for a missing parent", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/p/a", "", [0, 10], { err: "NONODE" });
    h.create("c1", "/p", "", [20, 30]);
    h.create("c1", "/p/a", "", [40, 50]);
    h.op("c2", "delete", "/p", [60, 70], { args: { version: -1 }, err: "NOTEMPTY" });
    h.op("c2", "getChildren", "/p", [80, 90], { result: { children: ["a"] } });
    expect(checkLinearizable(h.ops, model).ok).toBe(true);
    h.op("c2", "delete", "/p", [100, 110], { args: { version: -1 } });
    expect(checkLinearizable(h.ops, model).ok).toBe(false);
  });

  it("checks the Stat a read returns (version, numChildren, cversion)", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/p", "abc", [0, 10]);
    h.set("c1", "/p", "abcd", [20, 30]);
    h.create("c1", "/p/a", "", [40, 50]);
    h.op("c2", "exists", "/p", [60, 70], { result: { stat: { version: 1, numChildren: 1, cversion: 1, dataLength: 4 } } });
    expect(checkLinearizable(h.ops, model).ok).toBe(true);
    h.op("c2", "exists", "/p", [80, 90], { result: { stat: { version: 2 } } });
    expect(violation(checkLinearizable(h.ops, model)).explanation).toMatch(/Stat\.version was 2/);
  });
});

describe("check: linearizability: sequential names", () => {
  it("numbers sequential children from the parent's creation counter, in either order when concurrent", () => {
    for (const [first, second] of [["0000000001", "0000000002"], ["0000000002", "0000000001"]]) {
      const h = new HistoryBuilder();
      h.create("c0", "/q", "", [0, 10]);
      h.create("c0", "/q/plain", "", [20, 30]); // counts too: numbers are per creation, not per sequential create
      h.create("c1", "/q/n-", "", [40, 80], { args: { mode: "PERSISTENT_SEQUENTIAL" }, result: { path: `/q/n-${first}` } });
      h.create("c2", "/q/n-", "", [50, 90], { args: { mode: "PERSISTENT_SEQUENTIAL" }, result: { path: `/q/n-${second}` } });
      h.op("c3", "getChildren", "/q", [100, 110], { result: { children: [`n-${second}`, "plain", `n-${first}`] } });
      expect(checkLinearizable(h.ops, model).ok).toBe(true);
    }
  });

  it("rejects a sequence number the counter cannot produce", () => {
    const h = new HistoryBuilder();
    h.create("c0", "/q", "", [0, 10]);
    h.create("c1", "/q/n-", "", [40, 80], { args: { mode: "PERSISTENT_SEQUENTIAL" }, result: { path: "/q/n-0000000000" } });
    h.create("c2", "/q/n-", "", [90, 100], { args: { mode: "PERSISTENT_SEQUENTIAL" }, result: { path: "/q/n-0000000005" } });
    expect(violation(checkLinearizable(h.ops, model)).explanation).toMatch(/next name was \/q\/n-0000000001/);
  });

  it("never reuses a number after a delete, and counts an unknown create only if it happened", () => {
    const h = new HistoryBuilder();
    h.create("c0", "/q", "", [0, 10]);
    h.create("c1", "/q/n-", "", [20], { args: { mode: "PERSISTENT_SEQUENTIAL" } });
    h.create("c2", "/q/n-", "", [30, 40], { args: { mode: "PERSISTENT_SEQUENTIAL" }, result: { path: "/q/n-0000000001" } });
    h.op("c2", "delete", "/q/n-0000000001", [50, 60], { args: { version: -1 } });
    h.op("c3", "getChildren", "/q", [70, 80], { result: { children: ["n-0000000000"] } });
    h.create("c2", "/q/n-", "", [90, 100], { args: { mode: "PERSISTENT_SEQUENTIAL" }, result: { path: "/q/n-0000000002" } });
    expect(checkLinearizable(h.ops, model).ok).toBe(true);
  });
});

describe("check: linearizability: multi, ephemerals, partitions", () => {
  it("applies a multi all or nothing", () => {
    const h = new HistoryBuilder();
    h.op("c1", "multi", "/m", [0, 10], {
      args: { ops: [{ op: "create", path: "/m", args: { data: "" } }, { op: "create", path: "/m/a", args: { data: "" } }] },
    });
    h.op("c1", "multi", "/n", [20, 30], {
      args: { ops: [{ op: "create", path: "/n", args: { data: "" } }, { op: "delete", path: "/m", args: { version: -1 } }] },
      err: "NOTEMPTY",
      result: { results: [{ err: "OK" }, { err: "NOTEMPTY" }] },
    });
    h.op("c2", "exists", "/n", [40, 50], { result: { stat: null } });
    expect(checkLinearizable(h.ops, model).ok).toBe(true);
    h.op("c2", "exists", "/n", [60, 70], { result: { stat: { version: 0 } } });
    expect(checkLinearizable(h.ops, model).ok).toBe(false);
  });

  it("reports the failing partition only, with its paths", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/a", "1", [0, 10]);
    h.get("c2", "/a", "1", [20, 30]);
    h.create("c1", "/b", "1", [0, 10]);
    h.set("c1", "/b", "2", [20, 30]);
    h.get("c2", "/b", "1", [40, 50]);
    const v = violation(checkLinearizable(h.ops, model));
    expect(v.partition).toBe("/b");
  });

  it("lets an ephemeral vanish when its session may have ended, unless told sessions do not end", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/e", "", [0, 10], { args: { mode: "EPHEMERAL" }, session: "0x11" });
    h.get("c2", "/e", "", [20, 30]);
    h.op("c2", "exists", "/e", [40, 50], { result: { stat: null } });
    expect(checkLinearizable(h.ops, model).ok).toBe(true);
    expect(checkLinearizable(h.ops, zkModel({ sessionsMayEnd: false })).ok).toBe(false);
  });

  it("keys a parent created once as a preamble, keeping its children's partitions apart", () => {
    const h = new HistoryBuilder();
    h.create("setup", "/kv", "", [0, 10]);
    for (let k = 0; k < 3; k++) {
      h.create(`c${k}`, `/kv/k${k}`, "a", [20 + k, 40 + k]);
      h.set(`c${k}`, `/kv/k${k}`, "b", [50 + k, 60 + k]);
      h.get(`c${k}`, `/kv/k${k}`, "b", [70 + k, 80 + k]);
    }
    const r = checkLinearizable(h.ops, model);
    expect(r).toMatchObject({ ok: true, partitions: 4 });
  });

  it("uses the initial tree it is given", () => {
    const h = new HistoryBuilder();
    h.get("c1", "/cfg", "v1", [0, 10]);
    expect(checkLinearizable(h.ops, model).ok).toBe(false);
    expect(checkLinearizable(h.ops, zkModel({ initialTree: { "/cfg": "v1" } })).ok).toBe(true);
  });
});

describe("check: linearizability: zxids", () => {
  it("orders ok writes by zxid", () => {
    const build = (seen: string) => {
      const h = new HistoryBuilder();
      h.create("c1", "/x", "a", [0, 10], { zxid: 0x100000001n });
      h.set("c1", "/x", "b", [20, 60], { zxid: 0x100000003n });
      h.set("c2", "/x", "c", [30, 70], { zxid: 0x100000002n });
      h.get("c3", "/x", seen, [80, 90]);
      return h.ops;
    };
    expect(checkLinearizable(build("b"), model).ok).toBe(true);
    const v = violation(checkLinearizable(build("c"), model));
    expect(v.explanation).toMatch(/Ignoring zxids the partition would be linearizable/);
    expect(checkLinearizable(build("c"), model, { useZxid: false }).ok).toBe(true);
  });

  it("treats a read's zxid as a lower bound of what it saw", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/x", "a", [0, 10], { zxid: 0x100000001n });
    h.set("c1", "/x", "b", [20, 100], { zxid: 0x100000002n });
    h.get("c2", "/x", "a", [30, 40], { zxid: 0x100000002n });
    expect(checkLinearizable(h.ops, model).ok).toBe(false);
    expect(checkLinearizable(h.ops, model, { useZxid: false }).ok).toBe(true);
  });
});

describe("check: linearizability: options and reports", () => {
  it("ignores reads with checkReads: false (ZooKeeper reads may be stale)", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/x", "a", [0, 10]);
    h.set("c1", "/x", "b", [20, 30]);
    h.get("c2", "/x", "a", [40, 50]);
    expect(checkLinearizable(h.ops, model, { checkReads: false }).ok).toBe(true);
  });

  it("shrinks a long history to the few operations that matter", () => {
    const h = new HistoryBuilder();
    h.create("c0", "/x", "v0", [0, 10]);
    let t = 20;
    for (let i = 1; i <= 40; i++, t += 40) {
      h.set(`c${i % 3}`, "/x", `v${i}`, [t, t + 25]);
      h.get(`c${(i + 1) % 3}`, "/x", `v${i}`, [t + 30, t + 35]);
    }
    const stale = h.get("c9", "/x", "v39", [t + 10, t + 20]);
    const v = violation(checkLinearizable(h.ops, model));
    expect(v.minimalWindow.length).toBeLessThanOrEqual(3);
    expect(v.minimalWindow.at(-1)!.id).toBe(stale.id);
    expect(v.explanation).toMatch(/relaxed/);
  });

  it("returns an inconclusive failure, never a pass, when the budget runs out", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/x", "a", [0, 10]);
    for (let i = 0; i < 10; i++) h.set(`c${i}`, "/x", `v${i}`, [20, 100]);
    h.get("c1", "/x", "a", [110, 120]); // overwritten by every set: only a search of the orders shows it
    const r = checkLinearizable(h.ops, model, { maxSteps: 5 });
    expect(r).toMatchObject({ ok: false, inconclusive: true });
  });

  it("validates its options", () => {
    expect(() => checkLinearizable([], model, { maxSteps: 0 })).toThrow(/checkLinearizable: maxSteps/);
  });
});
