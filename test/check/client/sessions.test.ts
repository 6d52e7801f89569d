import { describe, expect, it } from "vitest";
import { SessionsChecker } from "../../../src/check/client/index.js";
import { ClientTrace, S1, S2, runChecker, stat, z } from "./trace-builder.js";

/** c1 (S1) creates the ephemeral /w/e1; c2 (S2) watches from another server; S1 then expires. */
function expiredOwner(): ClientTrace {
  const t = new ClientTrace().connected("c1", S1, "s1").connected("c2", S2, "s2");
  t.call("c1", S1, "create", "/w/e1", { mode: 1, data: "" }, z(3), { path: "/w/e1" });
  return t.expire("s1", S1).apply("s1", z(4), "closeSession", S1);
}

/** c2 re-attaches S1 at s1 (standalone or leader), which touches S1 with `timeoutMs` as it takes the ConnectRequest: returns that instant. */
function reattachAtS1(t: ClientTrace, timeoutMs: number): number {
  t.event("client.connect", "c2", { client: "c2", server: "s1", session: S1, conn: 7 });
  t.event("deliver", "s1", undefined, { peer: "c2", id: 90, detail: "connect", conn: 7 });
  const at = t.events[t.events.length - 1]!.atUs;
  t.event("zk.session.established", "s1", { client: "c2", session: S1, timeoutMs }, { atUs: at });
  return at;
}

describe("check: client: sessions", () => {
  it("an expired session whose late reads come from a lagging server, then nothing, passes", () => {
    const t = expiredOwner();
    // s2 has not applied 0x4 yet: it may still show the ephemeral, and answer S1.
    t.call("c2", S2, "exists", "/w/e1", {}, z(3), { stat: stat({ czxid: z(3), owner: S1 }) });
    t.call("c2", S2, "getChildren", "/w", {}, z(3), { children: ["e1"] });
    t.call("c1", S1, "getData", "/w", {}, z(3), { data: "", stat: stat({}) });
    t.apply("s2", z(4), "closeSession", S1);
    t.call("c2", S2, "getChildren", "/w", {}, z(4), { children: [] });
    const id = t.invoke("c1", S1, "getData", "/w");
    t.complete("c1", S1, id, "fail", { err: "SESSIONEXPIRED", sent: false });
    expect(runChecker(new SessionsChecker(), t.events)).toEqual([]);
  });

  it("an ok completion after the session's closeSession was applied is a violation", () => {
    const t = expiredOwner();
    t.call("c1", S1, "setData", "/w", { version: -1 }, z(5), { stat: stat({ mzxid: z(5) }) });
    const v = runChecker(new SessionsChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/ended with closeSession txn 0x4, yet setData \/w .* completed ok with reply zxid 0x5/);
  });

  it("a closeSession applied by a learner still syncing ends nothing (zab-random-faults seed 2840); applied in BROADCAST it does", () => {
    // A paused old leader expired S1 and DIFF-synced s1 with that never-committed closeSession;
    // s1 applied it before NEWLEADER, the sync failed, and the new epoch kept S1 alive.
    const run = (phase: string) => {
      const t = new ClientTrace().connected("c1", S1, "s2");
      t.event("zab.phase", "s1", { sid: 1, phase, epoch: 1 });
      t.apply("s1", z(4), "closeSession", S1);
      return runChecker(new SessionsChecker(), t.call("c1", S1, "setData", "/w", { version: -1 }, z(5), { stat: stat({ mzxid: z(5) }) }).events);
    };
    expect(run("SYNCHRONIZATION")).toEqual([]);
    expect(run("BROADCAST")).toHaveLength(1);
  });

  it("reads showing the ephemeral of an ended session from an up-to-date server are violations", () => {
    const t = expiredOwner();
    t.call("c2", S2, "exists", "/w/e1", {}, z(4), { stat: stat({ czxid: z(3), owner: S1 }) });
    t.call("c2", S2, "getChildren", "/w", {}, z(5), { children: ["e1", "other"] });
    const v = runChecker(new SessionsChecker(), t.events);
    expect(v.map((x) => x.message.split(" at zxid")[0])).toEqual(["exists /w/e1 (op 1 of c2)", "getChildren /w (op 2 of c2)"]);
  });

  it("a top-level ephemeral of an ended session listed by getChildren / is a violation too", () => {
    const t = new ClientTrace().connected("c1", S1, "s1").connected("c2", S2, "s2");
    t.call("c1", S1, "create", "/e1", { mode: 1, data: "" }, z(3), { path: "/e1" });
    t.expire("s1", S1).apply("s1", z(4), "closeSession", S1);
    t.call("c2", S2, "getChildren", "/", {}, z(3), { children: ["e1", "w"] });
    t.call("c2", S2, "getChildren", "/", {}, z(4), { children: ["w", "e1"] });
    const v = runChecker(new SessionsChecker(), t.events);
    expect(v.map((x) => x.message.split(" at zxid")[0])).toEqual(["getChildren / (op 2 of c2)"]);
    expect(v[0]!.message).toMatch(/lists e1, an ephemeral of session/);
  });

  it("a child name some other create may have produced is not judged", () => {
    const t = expiredOwner();
    const id = t.invoke("c2", S2, "create", "/w/e1", { mode: 0, data: "" });
    t.complete("c2", S2, id, "unknown", { err: "CONNECTIONLOSS" });
    t.call("c2", S2, "getChildren", "/w", {}, z(5), { children: ["e1"] });
    expect(runChecker(new SessionsChecker(), t.events)).toEqual([]);
  });

  it("expiring a session whose connected client heartbeats to the leader is a violation", () => {
    const t = new ClientTrace().connected("c1", S1, "s1");
    t.wait(2000).message("c1", "s1", "ping");
    t.wait(1000).expire("s1", S1, 4000);
    const v = runChecker(new SessionsChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/^s1 expired session 0x100000000000001 \(timeout 4000 ms\) only 1001 ms after/);
  });

  it("a session re-attached with a shorter timeout expires by that one (api-swarm-ensemble seed 36)", () => {
    // Created with 4000 ms; another client re-attached it negotiating 2000 ms: the touches of
    // that connection set the expiry by 2000 ms (Java's touchSession(id, timeout)), while the
    // expiry reports the 4000 ms the session was created with.
    const reattached = (lastPingBeforeExpiryMs: number) => {
      const t = new ClientTrace().connected("c1", S1, "s1");
      t.event("zk.session.established", "s1", { client: "c1", session: S1, timeoutMs: 2000 });
      t.message("c1", "s1", "ping").wait(lastPingBeforeExpiryMs).expire("s1", S1, 4000);
      return runChecker(new SessionsChecker(), t.events);
    };
    expect(reattached(2500)).toEqual([]);
    expect(reattached(1500)[0]?.message).toMatch(/\(timeout 2000 ms\) only 1501 ms after/);
  });

  it("a heartbeat relayed by a follower's PING reply counts; a leader's own PING does not relay", () => {
    const t = new ClientTrace().connected("c1", S1, "s2");
    t.event("zab.state", "s1", { sid: 1, state: "LEADING" });
    t.wait(1000).message("c1", "s2", "ping");
    t.message("s2", "s1", "PING");
    t.wait(1000).expire("s1", S1, 4000);
    expect(runChecker(new SessionsChecker(), t.events)).toHaveLength(1);
    // The touch reached s2 but s2 sent no PING reply afterwards: the leader may not know.
    const quiet = new ClientTrace().connected("c1", S1, "s2");
    quiet.event("zab.state", "s1", { sid: 1, state: "LEADING" });
    quiet.message("s2", "s1", "PING").wait(1000).message("c1", "s2", "ping");
    quiet.message("s1", "s2", "PING");
    quiet.wait(1000).expire("s1", S1, 4000);
    expect(runChecker(new SessionsChecker(), quiet.events)).toEqual([]);
  });

  it("touches that reach the leader once the session's close was asked for do not count (it is closing there; seed 10275); earlier ones do", () => {
    // c1 pings its follower s2, then asks to close; s2 relays the ping after that, and the
    // leader s1's expirer fires while the close waits for its quorum.
    const closing = new ClientTrace().connected("c1", S1, "s2");
    closing.event("zab.state", "s1", { sid: 1, state: "LEADING" });
    closing.wait(3500).message("c1", "s2", "ping");
    closing.invoke("c1", S1, "closeSession", "");
    closing.message("c1", "s2", "closeSession").message("s2", "s1", "PING");
    closing.wait(500).expire("s1", S1, 4000);
    expect(runChecker(new SessionsChecker(), closing.events)).toEqual([]);
    // A touch that reached the leader before the close was asked for still counts.
    const early = new ClientTrace().connected("c1", S1, "s2");
    early.event("zab.state", "s1", { sid: 1, state: "LEADING" });
    early.wait(1000).message("c1", "s2", "ping").message("s2", "s1", "PING");
    early.invoke("c1", S1, "closeSession", "");
    early.wait(1000).expire("s1", S1, 4000);
    expect(runChecker(new SessionsChecker(), early.events)).toHaveLength(1);
  });

  it("an answered re-attachment through a learner touches the session at the leader with its timeout when the REVALIDATE arrives (api-swarm-ensemble seed 11155)", () => {
    // S1 was created with 9000 ms; c1 last pinged the leader s1 at the start. c2 re-attaches S1 at
    // the follower s2 asking 3000 ms: s2 sends REVALIDATE to s1 at once, s1 touches S1 with 3000 ms
    // (Leader.revalidateSession → touchSession(id, 3000)) and answers; s2 then tells c2. A close
    // asked for afterwards makes the leader ignore later touches, so the REVALIDATE's touch is
    // the last: S1 may expire 3000 ms after it, long before 9000 ms after c1's ping.
    const run = (expireAfterRevalidateMs: number) => {
      const t = new ClientTrace().connected("c1", S1, "s1");
      t.event("zab.state", "s1", { sid: 1, state: "LEADING" });
      t.message("c1", "s1", "ping");
      t.event("client.disconnect", "c1", { client: "c1", session: S1, reason: "x" });
      t.wait(2000).event("client.connect", "c2", { client: "c2", server: "s2", session: S1, conn: 7 });
      t.event("send", "c2", undefined, { peer: "s2", id: 90, detail: "connect", conn: 7 });
      t.event("deliver", "s2", undefined, { peer: "c2", id: 90, detail: "connect", conn: 7 });
      const at = t.events[t.events.length - 1]!.atUs;
      t.event("send", "s2", undefined, { peer: "s1", id: 91, detail: "REVALIDATE", atUs: at });
      t.event("deliver", "s1", undefined, { peer: "s2", id: 91, detail: "REVALIDATE" });
      const touchedUs = t.events[t.events.length - 1]!.atUs;
      t.event("send", "s1", undefined, { peer: "s2", id: 92, detail: "REVALIDATE" });
      t.wait(500).event("deliver", "s2", undefined, { peer: "s1", id: 92, detail: "REVALIDATE" });
      t.event("zk.session.established", "s2", { client: "c2", session: S1, timeoutMs: 3000 });
      t.invoke("c2", S1, "closeSession", "");
      t.nextAt(touchedUs + expireAfterRevalidateMs * 1000).expire("s1", S1, 9000);
      return runChecker(new SessionsChecker(), t.events);
    };
    expect(run(3000)).toEqual([]);
    expect(run(2999)[0]?.message).toMatch(/^s1 expired session 0x100000000000001 \(timeout 3000 ms\) only 2999 ms after it was last touched there by a re-attachment/);
  });

  it("a re-attachment the leader or a standalone server takes itself touches the session there at once", () => {
    const run = (expireAfterMs: number) => {
      const t = new ClientTrace().connected("c1", S1, "s1");
      t.message("c1", "s1", "ping");
      t.event("client.disconnect", "c1", { client: "c1", session: S1, reason: "x" });
      // c2 asks 2000 ms, and s1 touches S1 with it as it takes the ConnectRequest, 2 ms after c1's ping.
      const at = reattachAtS1(t, 2000);
      t.nextAt(at + expireAfterMs * 1000).expire("s1", S1, 4000);
      return runChecker(new SessionsChecker(), t.events);
    };
    expect(run(2000)).toEqual([]);
    expect(run(1500)).toHaveLength(1);
  });

  it("once a close was asked for, a later touch may still be the leader's last: the one allowing the soonest expiry bounds it", () => {
    // c1 pings the leader s1, then asks to close; before the leader marks S1 closing (not in the
    // trace), c2 re-attaches S1 there asking 1000 ms. Either touch may be the last s1 honoured.
    const run = (expireAfterReattachMs: number) => {
      const t = new ClientTrace().connected("c1", S1, "s1");
      t.message("c1", "s1", "ping");
      t.invoke("c1", S1, "closeSession", "");
      const at = reattachAtS1(t, 1000);
      t.nextAt(at + expireAfterReattachMs * 1000).expire("s1", S1, 4000);
      return runChecker(new SessionsChecker(), t.events);
    };
    expect(run(1000)).toEqual([]);
    expect(run(900)[0]?.message).toMatch(/\(timeout 1000 ms\) only 900 ms after it was last touched there by a re-attachment/);
  });

  it("silent, paused, disconnected or skewed-clock cases are not judged", () => {
    const late = new ClientTrace().connected("c1", S1, "s1");
    late.message("c1", "s1", "ping").wait(4500).expire("s1", S1, 4000);
    expect(runChecker(new SessionsChecker(), late.events)).toEqual([]);

    const paused = new ClientTrace().connected("c1", S1, "s1").event("pause", "c1");
    paused.message("c1", "s1", "ping").wait(100).expire("s1", S1, 4000);
    expect(runChecker(new SessionsChecker(), paused.events)).toEqual([]);

    const handshake = new ClientTrace().connected("c1", S1, "s1").event("client.disconnect", "c1", { client: "c1", session: S1, reason: "x" });
    handshake.event("client.connect", "c1", { client: "c1", server: "s1", session: S1 });
    handshake.message("c1", "s1", "connect").message("c1", "s1", "auth").wait(100).expire("s1", S1, 4000);
    expect(runChecker(new SessionsChecker(), handshake.events)).toEqual([]);

    const skewed = new ClientTrace().event("clock", "s1", { rate: 2 }).connected("c1", S1, "s1");
    skewed.message("c1", "s1", "ping").wait(100).expire("s1", S1, 4000);
    expect(runChecker(new SessionsChecker(), skewed.events)).toEqual([]);
  });
});
