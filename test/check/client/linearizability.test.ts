import { describe, expect, it } from "vitest";
import { ClientLinearizabilityChecker } from "../../../src/check/client/index.js";
import type { Violation } from "../../../src/check/checker.js";
import { ClientTrace, S1, S2, runChecker, stat, z } from "./trace-builder.js";

/** c1 writes /k twice; c2 then reads /k and sees `seen`. */
function writesThenRead(seen: string, setup: (t: ClientTrace) => void): ClientTrace {
  const t = new ClientTrace();
  setup(t);
  t.connected("c1", S1).connected("c2", S2);
  t.call("c1", S1, "create", "/k", { mode: 0, data: "v1" }, z(3), { path: "/k" });
  t.call("c1", S1, "setData", "/k", { version: -1, data: "v2" }, z(4), { stat: stat({ czxid: z(3), mzxid: z(4), version: 1 }) });
  t.call("c2", S2, "getData", "/k", { watch: false }, z(4), { data: seen, stat: stat({ czxid: z(3), mzxid: z(4), version: seen === "v2" ? 1 : 0 }) });
  return t;
}

describe("check: client: linearizability", () => {
  it("a single server's history where a read follows the acknowledged write passes", () => {
    const c = new ClientLinearizabilityChecker();
    expect(runChecker(c, writesThenRead("v2", (t) => t.standalone()).events)).toEqual([]);
    expect(c.summary).toMatchObject({ checkedReads: true, outcome: "linearizable" });
  });

  it("single server: a stale read after an acknowledged write is a violation, anchored at the window's first op", () => {
    const t = writesThenRead("v1", (t) => t.standalone());
    const v = runChecker(new ClientLinearizabilityChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.checker).toBe("client.linearizability");
    expect(v[0]!.message).toMatch(/not linearizable \(writes and reads\)/);
    expect(v[0]!.message.length).toBeLessThanOrEqual(600);
    expect(t.events[v[0]!.eventIndex]!.kind).toBe("client.invoke");
  });

  it("ensemble: the same stale read is allowed (followers may lag), writes are still checked", () => {
    const c = new ClientLinearizabilityChecker();
    expect(runChecker(c, writesThenRead("v1", (t) => t.ensemble("s1", "s2", "s3")).events)).toEqual([]);
    expect(c.summary?.checkedReads).toBe(false);
    const t = new ClientTrace().ensemble("s1", "s2", "s3").connected("c1", S1).connected("c2", S2);
    t.call("c1", S1, "create", "/k", { mode: 0, data: "" }, z(3), { path: "/k" });
    t.call("c2", S2, "create", "/k", { mode: 0, data: "" }, z(4), { path: "/k" });
    const v = runChecker(new ClientLinearizabilityChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/not linearizable \(writes, and reads ordered by sync\)/);
  });

  it("a session two handles share: a non-read reply once both used it is read as unknown (3.8 matches commits by session and cxid alone; zab-shared-session seed 10075); one handle's session is judged as before", () => {
    // c3 (the zombie) creates /z-a, its outcome unknown; c1 re-attached the same session and is
    // answered for its create of /z-b with /z-a — the zombie's commit taken for c1's pending write.
    const shared = (session: string) => {
      const t = new ClientTrace().ensemble("s1", "s2", "s3").connected("c3", S1, "s2").connected("c1", session, "s1");
      t.invoke("c3", S1, "create", "/z-a", { mode: 1, data: "" });
      t.call("c1", session, "create", "/z-b", { mode: 1, data: "c1" }, z(5), { path: "/z-a" });
      return t;
    };
    expect(runChecker(new ClientLinearizabilityChecker(), shared(S1).events)).toEqual([]);
    const own = runChecker(new ClientLinearizabilityChecker(), shared(S2).events);
    expect(own).toHaveLength(1);
    expect(own[0]!.message).toMatch(/not linearizable/);
  });

  /** c1 writes /k twice; c2 syncs (reply zxid `syncZxid`), then reads /k and sees `seen`. */
  function syncThenRead(seen: string, syncZxid: string, setup: (t: ClientTrace) => void = () => undefined): ClientTrace {
    const t = new ClientTrace().ensemble("s1", "s2", "s3");
    setup(t);
    t.connected("c1", S1).connected("c2", S2);
    t.call("c1", S1, "create", "/k", { mode: 0, data: "v1" }, z(3), { path: "/k" });
    t.call("c1", S1, "setData", "/k", { version: -1, data: "v2" }, z(4), { stat: stat({ czxid: z(3), mzxid: z(4), version: 1 }) });
    t.call("c2", S2, "sync", "/k", {}, syncZxid, { path: "/k" });
    t.call("c2", S2, "getData", "/k", { watch: false }, syncZxid, { data: seen, stat: stat({ czxid: z(3), mzxid: seen === "v2" ? z(4) : z(3), version: seen === "v2" ? 1 : 0 }) });
    return t;
  }

  it("ensemble: a read its session's sync orders is checked: stale after the sync is a violation", () => {
    expect(runChecker(new ClientLinearizabilityChecker(), syncThenRead("v2", z(4)).events)).toEqual([]);
    const v = runChecker(new ClientLinearizabilityChecker(), syncThenRead("v1", z(4)).events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/not linearizable \(writes, and reads ordered by sync\).*getData \/k returned "v1"/s);
  });

  it("ensemble: a sync answered from an epoch older than one already established orders nothing", () => {
    // A leader that lost its quorum but has not noticed still answers syncs: not a linearizable read.
    const deposed = syncThenRead("v1", z(3), (t) => t.event("zab.leader.established", "s3", { sid: 3, epoch: 1, lastZxid: z(4) }));
    expect(runChecker(new ClientLinearizabilityChecker(), deposed.events)).toEqual([]);
  });

  it("an expired session's ephemeral may not be read after its closeSession is applied", () => {
    const t = new ClientTrace().standalone().connected("c1", S1).connected("c2", S2);
    t.call("c1", S1, "create", "/e", { mode: 1, data: "" }, z(3), { path: "/e" });
    t.expire("s1", S1).apply("s1", z(4), "closeSession", S1);
    t.call("c2", S2, "exists", "/e", { watch: false }, z(4), { stat: stat({ czxid: z(3), owner: S1 }) });
    expect(runChecker(new ClientLinearizabilityChecker(), t.events)).toHaveLength(1);
    // Before the txn is applied, the ephemeral may still be there.
    const ok = new ClientTrace().standalone().connected("c1", S1).connected("c2", S2);
    ok.call("c1", S1, "create", "/e", { mode: 1, data: "" }, z(3), { path: "/e" });
    ok.expire("s1", S1);
    ok.call("c2", S2, "exists", "/e", { watch: false }, z(3), { stat: stat({ czxid: z(3), owner: S1 }) });
    ok.apply("s1", z(4), "closeSession", S1);
    ok.call("c2", S2, "exists", "/e", { watch: false }, z(4), { stat: null });
    expect(runChecker(new ClientLinearizabilityChecker(), ok.events)).toEqual([]);
  });

  it("an expiry is not completed by an older closeSession txn applied late elsewhere (zab-random-faults seed 547)", () => {
    // s1 expires S1 and commits its closeSession z(4); /e is then free for c2. s3, a deposed
    // leader waking from a pause, expires S1 again (its txn never commits); s2, catching up,
    // applies z(4) only now. That apply took effect before s3's expiry was invoked: it is not
    // s3's, whose op stays pending.
    const t = new ClientTrace().ensemble("s1", "s2", "s3").connected("c1", S1).connected("c2", S2);
    t.call("c1", S1, "create", "/e", { mode: 1, data: "" }, z(3), { path: "/e" });
    t.expire("s1", S1).apply("s1", z(4), "closeSession", S1);
    t.call("c2", S2, "create", "/e", { mode: 1, data: "" }, z(5), { path: "/e" });
    t.expire("s3", S1).apply("s2", z(4), "closeSession", S1);
    expect(runChecker(new ClientLinearizabilityChecker(), t.events)).toEqual([]);
  });

  describe("an expiry whose closeSession never commits (soak-1h's expiries at 212 s)", () => {
    /**
     * s1, leader of epoch 1, expires S1 after c1 created /e; its close is not applied. s2 leads
     * epoch `epoch` next, and c1 writes /f on S1 there: `applyAs` is that txn's zxid and op.
     */
    function expiredThenWrites(epoch: number, applyAs: { zxid: string; op: string }, expirerEstablished = true): ClientLinearizabilityChecker {
      const t = new ClientTrace().ensemble("s1", "s2", "s3");
      if (expirerEstablished) t.event("zab.leader.established", "s1", { sid: 1, epoch: 1, lastZxid: z(0, 1) });
      t.connected("c1", S1);
      t.call("c1", S1, "create", "/e", { mode: 1, data: "" }, z(1, 1), { path: "/e" });
      t.apply("s1", z(1, 1), "create", S1, 1);
      t.expire("s1", S1);
      t.event("zab.role.ended", "s1", { sid: 1, state: "LEADING", reason: "lost quorum" });
      t.event("zab.leader.established", "s2", { sid: 2, epoch, lastZxid: z(1, 1) });
      t.call("c1", S1, "create", "/f", { mode: 0, data: "" }, applyAs.zxid, { path: "/f" });
      t.apply("s2", applyAs.zxid, applyAs.op, S1, 2);
      const c = new ClientLinearizabilityChecker();
      expect(runChecker(c, t.events)).toEqual([]);
      return c;
    }
    const closes = (c: ClientLinearizabilityChecker) => c.history().filter((op) => op.op === "closeSession").length;

    it("leaves the history once a txn of its session of a later epoch is applied without error", () => {
      expect(closes(expiredThenWrites(2, { zxid: z(1, 2), op: "create" }))).toBe(0);
    });

    it("stays pending after a txn of the same epoch, an error txn, or when the expirer's epoch is not known", () => {
      expect(closes(expiredThenWrites(1, { zxid: z(2, 1), op: "create" }))).toBe(1);
      expect(closes(expiredThenWrites(2, { zxid: z(1, 2), op: "error" }))).toBe(1);
      expect(closes(expiredThenWrites(2, { zxid: z(1, 2), op: "create" }, false))).toBe(1);
    });

    it("canary: an expiry whose close did commit still deletes the ephemeral (a later read of it is refuted)", () => {
      const t = new ClientTrace().ensemble("s1", "s2", "s3");
      t.event("zab.leader.established", "s1", { sid: 1, epoch: 1, lastZxid: z(0, 1) });
      t.connected("c1", S1).connected("c2", S2);
      t.call("c1", S1, "create", "/e", { mode: 1, data: "" }, z(1, 1), { path: "/e" });
      t.expire("s1", S1).apply("s1", z(2, 1), "closeSession", S1);
      t.event("zab.leader.established", "s2", { sid: 2, epoch: 2, lastZxid: z(2, 1) });
      const sync = t.invoke("c2", S2, "sync", "/");
      t.complete("c2", S2, sync, "ok", { zxid: z(0, 2) });
      t.call("c2", S2, "exists", "/e", { watch: false }, z(0, 2), { stat: stat({ czxid: z(1, 1), owner: S1 }) });
      expect(runChecker(new ClientLinearizabilityChecker(), t.events)).toHaveLength(1);
    });
  });

  it("ops invoked before the handshake (session 0x0) belong to the session they complete in", () => {
    const t = new ClientTrace().standalone();
    const id = t.invoke("c1", "0x0", "create", "/e", { mode: "EPHEMERAL", data: "" });
    t.connected("c1", S1).complete("c1", S1, id, "ok", { zxid: z(2), result: { path: "/e" } });
    t.event("client.invoke", "c1", { client: "c1", session: S1, opId: 99, op: "closeSession", path: "" });
    t.apply("s1", z(3), "closeSession", S1).event("client.complete", "c1", { client: "c1", session: S1, opId: 99, outcome: "ok", zxid: z(3) });
    t.connected("c2", S2).call("c2", S2, "exists", "/e", { watch: false }, z(3), { stat: stat({ czxid: z(2), owner: S1 }) });
    const v = runChecker(new ClientLinearizabilityChecker(), t.events);
    expect(v).toHaveLength(1);
  });

  it("setACL is judged, the watch calls are left out; an exhausted budget is counted, not reported", () => {
    const t = writesThenRead("v2", (t) => t.standalone());
    t.call("c1", S1, "setACL", "/k", { aversion: -1 }, z(5), { stat: stat({ czxid: z(3), mzxid: z(4), version: 1, aversion: 1 }) });
    t.call("c1", S1, "addWatch", "/k", { mode: 0 }, z(5));
    expect(runChecker(new ClientLinearizabilityChecker(), t.events)).toEqual([]);
    const wrong = writesThenRead("v2", (t) => t.standalone());
    wrong.call("c1", S1, "setACL", "/k", { aversion: -1 }, z(5), { stat: stat({ czxid: z(3), mzxid: z(4), version: 1, aversion: 0 }) });
    expect(runChecker(new ClientLinearizabilityChecker(), wrong.events)[0]?.message).toMatch(/setACL \/k: Stat.aversion was 0/);
    const c = new ClientLinearizabilityChecker({ maxSteps: 1 });
    expect(runChecker(c, writesThenRead("v2", (t) => t.standalone()).events)).toEqual([]);
    expect(c.summary?.outcome).toBe("inconclusive");
    const loud = new ClientLinearizabilityChecker({ maxSteps: 1, inconclusiveIsViolation: true });
    const v = runChecker(loud, writesThenRead("v2", (t) => t.standalone()).events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/^inconclusive/);
  });

  it("long data recorded as a digest is compared by content, and its length checked", () => {
    const t = new ClientTrace().standalone().connected("c1", S1);
    t.call("c1", S1, "create", "/k", { mode: 0, data: "" }, z(2), { path: "/k" });
    const long = (n: number) => ({ ...stat({ czxid: z(2), mzxid: z(3), version: 1 }), dataLength: n });
    const digest = "\u000180:1a2b3c4d";
    t.call("c1", S1, "setData", "/k", { version: 0, data: digest, dataBytes: 80 }, z(3), { stat: long(80) });
    t.call("c1", S1, "getData", "/k", {}, z(3), { data: digest, dataBytes: 80, stat: long(80) });
    expect(runChecker(new ClientLinearizabilityChecker(), t.events)).toEqual([]);
    t.call("c1", S1, "getData", "/k", {}, z(3), { data: "\u000180:ffffffff", dataBytes: 80, stat: long(80) });
    expect(runChecker(new ClientLinearizabilityChecker(), t.events)).toHaveLength(1);
  });

  it("a malformed history (a completion without its invocation) is reported, not thrown", () => {
    const t = new ClientTrace().standalone().complete("c1", S1, 7, "ok", { zxid: z(1) });
    const v = runChecker(new ClientLinearizabilityChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/malformed/);
  });

  describe("unknown writes settled from the servers' trace (HistoryBuilder.settle)", () => {
    /**
     * c1's create of /k ends unknown (`end`: its completion's fields, or none); then `between`
     * happens; then c2 reads /k, which `seen` says exists (the create took effect) or not.
     */
    function lostCreate(server: (t: ClientTrace) => void, end: Record<string, unknown> | undefined, between: (t: ClientTrace) => void, seen: boolean): Violation[] {
      const t = new ClientTrace();
      server(t);
      t.connected("c1", S1).connected("c2", S2);
      const id = t.invoke("c1", S1, "create", "/k", { mode: 0, data: "v" });
      if (end !== undefined) t.complete("c1", S1, id, "unknown", { err: "CONNECTIONLOSS", ...end });
      between(t);
      if (seen) t.call("c2", S2, "getData", "/k", { watch: false }, z(9), { data: "v", stat: stat({ czxid: z(5) }) });
      else {
        const r = t.invoke("c2", S2, "getData", "/k", { watch: false });
        t.complete("c2", S2, r, "fail", { err: "NONODE", zxid: z(9) });
      }
      return runChecker(new ClientLinearizabilityChecker(), t.events);
    }
    const standalone = (t: ClientTrace) => t.standalone();
    const nothing = () => undefined;

    it("a write the client never sent (sent: false) never took effect: a read that shows it is refuted", () => {
      expect(lostCreate(standalone, { sent: false }, nothing, true)).toHaveLength(1);
      expect(lostCreate(standalone, { sent: false }, nothing, false)).toEqual([]);
      // Sent, its fate open without the servers' word (no apply is no proof on its own: see below).
      expect(lostCreate(standalone, undefined, nothing, true)).toEqual([]);
    });

    it("standalone: a sent write no server applied by the end never took effect, unless a logged txn no server applied could be it (a restart replays it unannounced)", () => {
      expect(lostCreate(standalone, { sent: true, xid: 7 }, nothing, true)).toHaveLength(1);
      const logged = (t: ClientTrace) => t.event("disk.append", "s1", { record: z(5) });
      expect(lostCreate(standalone, { sent: true, xid: 7 }, logged, true)).toEqual([]);
      // Logged and applied: accounted for (it was another request).
      const loggedApplied = (t: ClientTrace) => logged(t).apply("s1", z(5), "create", S2, 3);
      expect(lostCreate(standalone, { sent: true, xid: 7 }, loggedApplied, true)).toHaveLength(1);
    });

    it("standalone: a sent write the server applied took effect by then: a later read that misses it is refuted, unless another unanswered write of the session could have been that request", () => {
      const applied = (t: ClientTrace) => t.apply("s1", z(5), "create", S1, 7);
      expect(lostCreate(standalone, { sent: true, xid: 7 }, applied, false)).toHaveLength(1);
      expect(lostCreate(standalone, { sent: true, xid: 7 }, applied, true)).toEqual([]);
      // Applied as an error txn: it failed there with that code, which the tree must explain (no
      // /k: NODEEXISTS cannot be), and changed nothing (an error the model does not judge, such as
      // SESSIONEXPIRED: a read that shows /k is refuted).
      const failed = (err: string) => (t: ClientTrace) => t.event("zk.apply", "s1", { zxid: z(5), op: "error", session: S1, cxid: 7, err });
      expect(lostCreate(standalone, { sent: true, xid: 7 }, failed("NODEEXISTS"), false)).toHaveLength(1);
      expect(lostCreate(standalone, { sent: true, xid: 7 }, failed("SESSIONEXPIRED"), true)).toHaveLength(1);
      expect(lostCreate(standalone, { sent: true, xid: 7 }, failed("SESSIONEXPIRED"), false)).toEqual([]);
      // c1 also has a write it never heard back about (no xid known): the apply may be that one's.
      const rival = (t: ClientTrace) => {
        t.invoke("c1", S1, "setData", "/other", { version: -1, data: "x" });
        applied(t);
      };
      expect(lostCreate(standalone, { sent: true, xid: 7 }, rival, false)).toEqual([]);
      // An apply of another cxid is no news of this request.
      const other = (t: ClientTrace) => t.apply("s1", z(5), "create", S1, 8);
      expect(lostCreate(standalone, { sent: true, xid: 7 }, other, false)).toEqual([]);
    });

    it("ensemble: a request no leader proposed never took effect; one applied by the leader of its epoch did; one applied only by a learner (a sync a later leader may truncate) stays open", () => {
      const ensemble = (t: ClientTrace) => {
        t.ensemble("s1", "s2", "s3");
        t.event("zab.leader.established", "s1", { sid: 1, epoch: 1, lastZxid: z(0, 1) });
      };
      /** c1's create of /k is lost; c2's create of /k then fails NODEEXISTS (it exists) or succeeds. */
      const createRace = (between: (t: ClientTrace) => void, exists: boolean): Violation[] => {
        const t = new ClientTrace();
        ensemble(t);
        t.connected("c1", S1).connected("c2", S2);
        const id = t.invoke("c1", S1, "create", "/k", { mode: 0, data: "v" });
        t.complete("c1", S1, id, "unknown", { err: "CONNECTIONLOSS", sent: true, xid: 7 });
        between(t);
        const r = t.invoke("c2", S2, "create", "/k", { mode: 0, data: "w" });
        if (exists) t.complete("c2", S2, r, "fail", { err: "NODEEXISTS", zxid: z(9, 1) });
        else t.complete("c2", S2, r, "ok", { zxid: z(9, 1), result: { path: "/k" } });
        return runChecker(new ClientLinearizabilityChecker(), t.events);
      };
      const digest = `5f3e:${S1.slice(2)}:7`;
      expect(createRace(nothing, true)).toHaveLength(1);
      expect(createRace((t) => t.event("zab.propose", "s1", { sid: 1, epoch: 1, zxid: z(5, 1), txn: digest }), true)).toEqual([]);
      const byLeader = (t: ClientTrace) => {
        t.event("zab.propose", "s1", { sid: 1, epoch: 1, zxid: z(5, 1), txn: digest });
        t.apply("s1", z(5, 1), "create", S1, 7);
      };
      expect(createRace(byLeader, false)).toHaveLength(1);
      expect(createRace(byLeader, true)).toEqual([]);
      const byLearner = (t: ClientTrace) => {
        t.event("zab.propose", "s1", { sid: 1, epoch: 1, zxid: z(5, 1), txn: digest });
        t.apply("s2", z(5, 1), "create", S1, 7);
      };
      expect(createRace(byLearner, false)).toEqual([]);
    });
  });

  it("a definite write of a session after the session's end is refuted at once, without a search (ZOOKEEPER-1208): invoked after the close completed, or with a higher zxid", () => {
    /** s1 expires S1 (its closeSession applied as zxid 4); c1's ephemeral create of /k (its session's end matters to /k), invoked `early` or after, is answered ok with zxid `zxid`. */
    const createAfterClose = (early: boolean, zxid: string): ClientLinearizabilityChecker => {
      const t = new ClientTrace().standalone().connected("c1", S1);
      const id = early ? t.invoke("c1", S1, "create", "/k", { mode: 1, data: "" }) : undefined;
      t.expire("s1", S1).apply("s1", z(4), "closeSession", S1);
      const late = id ?? t.invoke("c1", S1, "create", "/k", { mode: 1, data: "" });
      t.complete("c1", S1, late, "ok", { zxid, result: { path: "/k" } });
      const c = new ClientLinearizabilityChecker();
      const v = runChecker(c, t.events);
      expect(v, `early ${early}, zxid ${zxid}`).toHaveLength(1);
      expect(v[0]!.message).toMatch(/ZOOKEEPER-1208/);
      return c;
    };
    expect(createAfterClose(false, z(5)).summary?.steps).toBe(0);
    expect(createAfterClose(true, z(5)).summary?.steps).toBe(0);
    // Invoked before the close and ordered before it by its zxid: a linearization exists.
    const t = new ClientTrace().standalone().connected("c1", S1);
    const id = t.invoke("c1", S1, "create", "/k", { mode: 1, data: "" });
    t.expire("s1", S1).apply("s1", z(4), "closeSession", S1);
    t.complete("c1", S1, id, "ok", { zxid: z(3), result: { path: "/k" } });
    expect(runChecker(new ClientLinearizabilityChecker(), t.events)).toEqual([]);
  });
});
