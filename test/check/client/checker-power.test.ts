import { describe, expect, it } from "vitest";
import { asEvent, type LooseEvent } from "../../helpers/loose-events.js";
import { loadScenario } from "../../../src/cli/scenario-files.js";
import { runScenario } from "../../../src/scenario/run.js";
import { runCheckers, type Checker } from "../../../src/check/checker.js";
import type { Canary } from "../../../src/scenario/types.js";
import { ClientLivenessChecker, ServerWatchesChecker, SessionFailoverChecker, SessionsChecker, TimelinessChecker } from "../../../src/check/client/index.js";
import { zkWorkload } from "../../../src/scenario/workloads/zk.js";

/**
 * The four client-facing invariants of issue 20 (sessions across failover, liveness without
 * faults, one-shot watches at the server, timeliness): each canary is caught by its new checker
 * and by no other checker of the run (the scenario's own expectations aside), and the scenarios
 * stay clean without it.
 */
const CASES: readonly { canary: Canary; scenario: string; checker: string }[] = [
  { canary: "stale-session-deadlines", scenario: "ensemble-session-expiry", checker: "client.session-failover" },
  { canary: "rare-pings", scenario: "watch-semantics", checker: "client.liveness" },
  { canary: "standard-watch-kept", scenario: "watch-semantics", checker: "client.server-watches" },
  { canary: "leader-ignores-quorum-loss", scenario: "zab-isolated-leader", checker: "client.timeliness" },
];

/** The checkers (not the scenario's expectations or script) that reported something. */
const generic = (checkers: readonly string[]) => [...new Set(checkers.filter((c) => !c.startsWith("scenario.")))].sort();

describe("check: client: the invariants of issue 20, each caught only by its checker", () => {
  for (const c of CASES) {
    it(`canary ${c.canary}: ${c.scenario} fails ${c.checker} and no other checker; passes without the canary`, async () => {
      const scenario = loadScenario(c.scenario);
      expect(scenario.checkers).toContain(c.checker);
      for (const seed of [1, 2]) {
        const broken = await runScenario(scenario, { seed, canary: c.canary });
        expect(generic(broken.violations.map((v) => v.checker)), `seed ${seed}`).toEqual([c.checker]);
        const clean = await runScenario(scenario, { seed });
        expect(clean.violations, `seed ${seed}`).toEqual([]);
      }
    }, 60_000);
  }
});

/** Feeds hand-written events to one checker. */
function judge(checker: Checker, events: Partial<LooseEvent>[]): string[] {
  const full = events.map((e, index) => asEvent({ index, atUs: 0, kind: "", node: "", ...e }));
  return runCheckers([checker], full).map((v) => v.message);
}

describe("check: client: the new checkers on hand-written traces", () => {
  it("client.session-failover: an expiry a full timeout after establishment passes; one sooner fails; a fast clock counts", () => {
    const est = { kind: "zab.leader.established", node: "s1", atUs: 1_000_000, fields: { sid: 1, epoch: 2, lastZxid: "0x0" } };
    const expireAt = (atUs: number) => ({ kind: "zk.session.expire", node: "s1", atUs, fields: { session: "0x1", timeoutMs: 4000 } });
    expect(judge(new SessionFailoverChecker(), [est, expireAt(5_000_001)])).toEqual([]);
    expect(judge(new SessionFailoverChecker(), [est, expireAt(4_000_000)])).toHaveLength(1);
    // s1's clock runs twice as fast from 1 s: 2.5 s of true time are 5 s on its clock.
    expect(judge(new SessionFailoverChecker(), [est, { kind: "clock", node: "s1", atUs: 1_000_000, fields: { rate: 2 } }, expireAt(3_500_000)])).toEqual([]);
  });

  it("client.session-failover: a re-attachment that negotiated a shorter timeout may expire the session sooner than its recorded timeout (api-swarm-standalone seed 10007)", () => {
    // 3.8 touches a re-attached session with the connection's new timeout (revalidateSession →
    // touchSession) and keeps the recorded one, which the expiry reports.
    const start = { kind: "zk.server.start", node: "s1", atUs: 0, fields: { serverId: 1, lastZxid: "0x0", replayed: 0, sessions: 0 } };
    const established = (atUs: number, timeoutMs: number) => ({ kind: "zk.session.established", node: "s1", atUs, fields: { client: "c3", session: "0x6", timeoutMs } });
    const expire = { kind: "zk.session.expire", node: "s1", atUs: 14_000_000, fields: { session: "0x6", timeoutMs: 21_580 } };
    expect(judge(new SessionFailoverChecker(), [start, established(33_326, 21_580), established(9_307_643, 4000), expire])).toEqual([]);
    // Without the shorter re-attachment, 14 s of a 21.58 s timeout is too soon.
    expect(judge(new SessionFailoverChecker(), [start, established(33_326, 21_580), expire])).toHaveLength(1);
    // The shortest negotiated timeout is the bound: sooner than 4 s after the start still fails.
    expect(judge(new SessionFailoverChecker(), [start, established(1000, 4000), { ...expire, atUs: 3_999_000 }])).toHaveLength(1);
  });

  it("client.server-watches: a second notification of one registration fails; a new registration in between passes; persistent watches fire at will", () => {
    const read = (opId: number, atUs: number) => [
      { kind: "client.invoke", node: "c1", atUs, fields: { client: "c1", session: "0x1", opId, op: "getData", path: "/a", watch: true } },
      { kind: "client.complete", node: "c1", atUs, fields: { client: "c1", session: "0x1", opId, outcome: "ok", zxid: "0x2" } },
    ];
    const changed = { kind: "client.watch", node: "c1", fields: { client: "c1", session: "0x1", type: "NodeDataChanged", path: "/a", watchers: 0 } };
    expect(judge(new ServerWatchesChecker(), [...read(1, 0), changed, changed])).toHaveLength(1);
    expect(judge(new ServerWatchesChecker(), [...read(1, 0), changed, ...read(2, 1), changed])).toEqual([]);
    const addWatch = [
      { kind: "client.invoke", node: "c1", fields: { client: "c1", session: "0x1", opId: 3, op: "addWatch", path: "/", mode: 1 } },
      { kind: "client.complete", node: "c1", fields: { client: "c1", session: "0x1", opId: 3, outcome: "ok" } },
    ];
    expect(judge(new ServerWatchesChecker(), [...addWatch, changed, changed])).toEqual([]);
  });

  it("client.server-watches: SetWatches answers a data and a child watch on a node gone while disconnected with one NodeDeleted each; live, one for both (api-swarm-standalone seed 11929)", () => {
    const watched = (opId: number, op: string) => [
      { kind: "client.invoke", node: "c1", fields: { client: "c1", session: "0x1", opId, op, path: "/a", watch: true } },
      { kind: "client.complete", node: "c1", fields: { client: "c1", session: "0x1", opId, outcome: "ok", zxid: "0x2" } },
    ];
    const both = [...watched(1, "exists"), ...watched(2, "getChildren")];
    const reconnected = { kind: "client.state", node: "c1", fields: { client: "c1", state: "CONNECTED", session: "0x1", conn: 2 } };
    const deleted = (watchers: number) => ({ kind: "client.watch", node: "c1", fields: { client: "c1", session: "0x1", type: "NodeDeleted", path: "/a", watchers } });
    const reply = [
      { kind: "client.invoke", node: "c1", fields: { client: "c1", session: "0x1", opId: 3, op: "sync", path: "/" } },
      { kind: "client.complete", node: "c1", fields: { client: "c1", session: "0x1", opId: 3, outcome: "ok", zxid: "0x3" } },
    ];
    // DataTree.setWatches: the data list's NodeDeleted, then the child list's.
    expect(judge(new ServerWatchesChecker(), [...both, reconnected, deleted(1), deleted(0)])).toEqual([]);
    // A third is one too many.
    expect(judge(new ServerWatchesChecker(), [...both, reconnected, deleted(1), deleted(0), deleted(0)])).toHaveLength(1);
    // Live (no reconnect), or once SetWatches is answered (a later reply): the server suppresses the second table's.
    expect(judge(new ServerWatchesChecker(), [...both, deleted(1), deleted(0)])).toHaveLength(1);
    expect(judge(new ServerWatchesChecker(), [...both, reconnected, ...reply, deleted(1), deleted(0)])).toHaveLength(1);
  });

  it("client.timeliness: a leader cut from its followers past syncLimit + 2 ticks that still answers fails; a paused stretch does not count", () => {
    const ms = 1000;
    const state = (node: string, sid: number, state: string, atUs = 0) => ({ kind: "zab.state", node, atUs, fields: { sid, state } });
    const elected = (node: string, sid: number) => ({ kind: "fle.elected", node, fields: { sid, leader: 1, zxid: "0x0", state: "FOLLOWING", electionEpoch: 1 } });
    const tick = (atUs: number) => ({ kind: "timer", node: "s1", atUs, detail: "leader-tick" });
    const setup = [state("s1", 1, "LOOKING"), state("s2", 2, "LOOKING"), state("s3", 3, "LOOKING"), elected("s2", 2), elected("s3", 3), state("s1", 1, "LEADING"), state("s2", 2, "FOLLOWING"), state("s3", 3, "FOLLOWING"), tick(1000 * ms), tick(2000 * ms)];
    const cut = { kind: "partition", atUs: 3000 * ms, fields: { links: ["s1>s2", "s2>s1", "s1>s3", "s3>s1"] } };
    const reply = (atUs: number) => ({ kind: "send", node: "s1", peer: "c1", atUs, detail: "reply:getData" });
    // tick 2 s (the leader's half-tick timer fires 1 s apart), syncLimit 5: the bound is 14 s after the cut.
    expect(judge(new TimelinessChecker(), [...setup, cut, reply(16_000 * ms)])).toEqual([]);
    expect(judge(new TimelinessChecker(), [...setup, cut, reply(17_001 * ms)])).toHaveLength(1);
    const pause = [{ kind: "pause", node: "s1", atUs: 4000 * ms }, { kind: "resume", node: "s1", atUs: 9000 * ms }];
    expect(judge(new TimelinessChecker(), [...setup, cut, ...pause, reply(21_000 * ms)])).toEqual([]);
    // A clock rate change between two firings: that gap measures nothing (the timer kept its real delay).
    const slowed = [...setup.slice(0, -1), { kind: "clock", node: "s1", atUs: 1500 * ms, fields: { rate: 0.1 } }, tick(2000 * ms), tick(12_000 * ms)];
    // 10 s of its slowed clock after the cut: inside (5 + 2) × 2 s; a 0.55 s "half tick" read across the change would flag it.
    expect(judge(new TimelinessChecker(), [...slowed, cut, reply(103_000 * ms)])).toEqual([]);
  });

  it("client.timeliness: a leader that can no longer reach its followers but still hears them loses its quorum only after their last packet arrives (api-swarm-ensemble seed 10316)", () => {
    const ms = 1000;
    const state = (node: string, sid: number, state: string) => ({ kind: "zab.state", node, fields: { sid, state } });
    const elected = (node: string, sid: number) => ({ kind: "fle.elected", node, fields: { sid, leader: 1, zxid: "0x0", state: "FOLLOWING", electionEpoch: 1 } });
    const tick = (atUs: number) => ({ kind: "timer", node: "s1", atUs, detail: "leader-tick" });
    const setup = [state("s1", 1, "LOOKING"), state("s2", 2, "LOOKING"), state("s3", 3, "LOOKING"), elected("s2", 2), elected("s3", 3), state("s1", 1, "LEADING"), state("s2", 2, "FOLLOWING"), state("s3", 3, "FOLLOWING"), tick(1000 * ms), tick(2000 * ms)];
    // Only the leader's own links are cut: its followers still reach it.
    const outgoing = { kind: "partition", atUs: 3000 * ms, fields: { links: ["s1>s2", "s1>s3"] } };
    const reply = (atUs: number) => ({ kind: "send", node: "s1", peer: "c1", atUs, detail: "reply:getData" });
    // A REQUEST s2 forwarded reaches the leader at 8 s (3.8's LearnerHandler renews s2's ack deadline): the bound runs from there.
    const forwarded = { kind: "deliver", node: "s1", peer: "s2", atUs: 8000 * ms, detail: "REQUEST" };
    expect(judge(new TimelinessChecker(), [...setup, outgoing, forwarded, reply(21_000 * ms)])).toEqual([]);
    expect(judge(new TimelinessChecker(), [...setup, outgoing, forwarded, reply(22_001 * ms)])).toHaveLength(1);
    // Without it, the loss starts at the cut; an election notification renews nothing.
    expect(judge(new TimelinessChecker(), [...setup, outgoing, reply(17_001 * ms)])).toHaveLength(1);
    expect(judge(new TimelinessChecker(), [...setup, outgoing, { ...forwarded, detail: "fle.notification" }, reply(17_001 * ms)])).toHaveLength(1);
    // A packet from a follower cut both ways cannot arrive; one from a follower the leader still reaches changes nothing.
    const both = { kind: "partition", atUs: 3000 * ms, fields: { links: ["s1>s2", "s2>s1", "s1>s3", "s3>s1"] } };
    expect(judge(new TimelinessChecker(), [...setup, both, forwarded, reply(17_001 * ms)])).toHaveLength(1);
  });

  it("client.sessions, client.session-failover: a re-attachment a server took but never answered touched the session with a timeout the trace does not show (api-swarm-ensemble seed 10424)", () => {
    const ms = 1000;
    const est = { kind: "zab.leader.established", node: "s2", atUs: 3000 * ms, fields: { sid: 2, epoch: 3, lastZxid: "0x0" } };
    const established = { kind: "zk.session.established", node: "s2", atUs: 100 * ms, fields: { client: "c2", session: "0x5", timeoutMs: 35_000 } };
    const connect = { kind: "client.connect", node: "c2", atUs: 6000 * ms, fields: { client: "c2", server: "s1", session: "0x5", conn: 60 } };
    const delivered = { kind: "deliver", node: "s1", peer: "c2", atUs: 6001 * ms, detail: "connect", conn: 60 };
    const expire = { kind: "zk.session.expire", node: "s2", atUs: 18_000 * ms, fields: { session: "0x5", timeoutMs: 35_000 } };
    // 15 s after s2 started serving, of a 35 s session: too soon, unless a re-attachment asked for less.
    expect(judge(new SessionFailoverChecker(), [established, est, expire])).toHaveLength(1);
    expect(judge(new SessionFailoverChecker(), [established, est, connect, delivered, expire])).toEqual([]);
    // Answered, its timeout is known again: 35 s negotiated still makes 15 s too soon; a wrong password touched nothing.
    const answered = { kind: "zk.session.established", node: "s1", atUs: 6002 * ms, fields: { client: "c2", session: "0x5", timeoutMs: 35_000 } };
    expect(judge(new SessionFailoverChecker(), [established, est, connect, delivered, answered, expire])).toHaveLength(1);
    const invalid = { kind: "zk.session.invalid", node: "s1", atUs: 6002 * ms, fields: { client: "c2", session: "0x5" } };
    expect(judge(new SessionFailoverChecker(), [established, est, connect, delivered, invalid, expire])).toHaveLength(1);
    // A connect that never reached a server touched nothing either.
    expect(judge(new SessionFailoverChecker(), [established, est, connect, expire])).toHaveLength(1);
    // client.sessions: a packet of the connected client touched the session at s2 at 2 s; the unanswered re-attachment lifts the bound.
    const connected = { kind: "client.state", node: "c2", atUs: 1000 * ms, fields: { client: "c2", state: "CONNECTED", session: "0x5", conn: 20 } };
    const serverConnected = { kind: "client.connect", node: "c2", atUs: 900 * ms, fields: { client: "c2", server: "s2", session: "0x0", conn: 20 } };
    const sent = { kind: "send", node: "c2", peer: "s2", id: 7, atUs: 2000 * ms, detail: "getData", conn: 20 };
    const got = { kind: "deliver", node: "s2", peer: "c2", id: 7, atUs: 2001 * ms, detail: "getData", conn: 20 };
    const touched = [serverConnected, established, connected, sent, got];
    expect(judge(new SessionsChecker(), [...touched, expire])).toHaveLength(1);
    expect(judge(new SessionsChecker(), [...touched, connect, delivered, expire])).toEqual([]);
  });

  it("client.timeliness: a leader's quorum is of its own config(s): the committed one, and a pending one while a reconfig is proposed (reconfig-swarm seed 11379)", () => {
    const ms = 1000;
    const servers = [1, 2, 3, 4, 5];
    const state = (sid: number, state: string) => ({ kind: "zab.state", node: `s${sid}`, fields: { sid, state } });
    const elected = (sid: number) => ({ kind: "fle.elected", node: `s${sid}`, fields: { sid, leader: 1, zxid: "0x0", state: "FOLLOWING", electionEpoch: 1 } });
    const config = (kind: string, version: number, voters: number[]) => ({
      kind, node: "s1", fields: { sid: 1, version: `0x${version.toString(16)}`, config: [...servers.map((n) => `server.${n}=s${n}:2888:3888:${voters.includes(n) ? "participant" : "observer"}`), `version=${version.toString(16)}`].join("\n") },
    });
    const tick = (atUs: number) => ({ kind: "timer", node: "s1", atUs, detail: "leader-tick" });
    // Five servers all seen voting, then a reconfig leaves voters 1, 2, 3 (4 and 5 observe).
    const setup = [...servers.map((n) => state(n, "LOOKING")), ...servers.slice(1).map(elected), state(1, "LEADING"), ...servers.slice(1).map((n) => state(n, "FOLLOWING")), config("zab.config.activated", 0x100000003, [1, 2, 3]), tick(1000 * ms), tick(2000 * ms)];
    const cut = (...sids: number[]) => ({ kind: "partition", atUs: 3000 * ms, fields: { links: sids.flatMap((n) => [`s1>s${n}`, `s${n}>s1`]) } });
    const reply = { kind: "send", node: "s1", peer: "c1", atUs: 20_000 * ms, detail: "reply:getData" };
    // 1 and 2 are still a quorum of the committed config: serving is right, though only 2 of the 5 once seen voting.
    expect(judge(new TimelinessChecker(), [...setup, cut(3, 4, 5), reply])).toEqual([]);
    expect(judge(new TimelinessChecker(), [...setup, cut(2, 3), reply])).toHaveLength(1);
    // A proposed config (voters 1, 4, 5) must keep a quorum too while it is pending; once activated, it alone counts.
    const proposed = config("zab.config.next", 0x100000005, [1, 4, 5]);
    expect(judge(new TimelinessChecker(), [...setup, proposed, cut(4, 5), reply])).toHaveLength(1);
    expect(judge(new TimelinessChecker(), [...setup, proposed, config("zab.config.activated", 0x100000005, [1, 4, 5]), cut(2, 3), reply])).toEqual([]);
  });

  it("client.liveness: a read timeout with no fault fails; one after a recent fault, or of a connection never CONNECTED, passes", () => {
    const connected = { kind: "client.state", node: "c1", atUs: 0, fields: { client: "c1", state: "CONNECTED", session: "0x1", conn: 7 } };
    const lost = (atUs: number, conn = 7) => ({ kind: "client.disconnect", node: "c1", atUs, fields: { client: "c1", session: "0x1", reason: "read timeout", conn } });
    expect(judge(new ClientLivenessChecker(), [connected, lost(50_000_000)])).toHaveLength(1);
    expect(judge(new ClientLivenessChecker(), [connected, lost(50_000_000, 8)])).toEqual([]);
    const fault = { kind: "crash", node: "s9", atUs: 40_000_000 };
    const back = { kind: "restart", node: "s9", atUs: 41_000_000 };
    expect(judge(new ClientLivenessChecker(), [connected, fault, back, lost(50_000_000)])).toEqual([]);
    expect(judge(new ClientLivenessChecker(), [connected, fault, back, lost(80_000_000)])).toHaveLength(1);
  });
});

describe("check: client: the new checkers report a malformed event", () => {
  const cases: [string, () => Checker, Partial<LooseEvent>, RegExp][] = [
    ["client.session-failover", () => new SessionFailoverChecker(), { kind: "zk.session.expire", node: "s1", fields: { session: "0x1" } }, /field "timeoutMs" is missing/],
    ["client.timeliness", () => new TimelinessChecker(), { kind: "zab.state", node: "s1", fields: { sid: 1 } }, /field "state" is missing/],
    ["client.liveness", () => new ClientLivenessChecker(), { kind: "zk.session.established", node: "s1", fields: { client: "c1", session: "0x1" } }, /field "timeoutMs" is missing/],
    ["client.server-watches", () => new ServerWatchesChecker(), { kind: "client.watch", node: "c1", fields: { client: "c1", session: "0x1", path: "/a", watchers: 1 } }, /malformed client\.watch event #0 on c1: field "type" is missing/],
  ];
  for (const [name, make, event, message] of cases) {
    it(name, () => expect(judge(make(), [event])).toEqual([expect.stringMatching(message)]));
  }
});

describe("check: client: the new checkers forget what is over", () => {
  it("client.liveness and client.server-watches drop a crashed client node's sessions; a closed handle's too", () => {
    const events = [
      { kind: "client.state", node: "c1", fields: { client: "c1", state: "CONNECTED", session: "0x1", conn: 7 } },
      { kind: "client.invoke", node: "c1", fields: { client: "c1", session: "0x1", opId: 1, op: "getData", path: "/a", watch: true } },
      { kind: "client.complete", node: "c1", fields: { client: "c1", session: "0x1", opId: 1, outcome: "ok", zxid: "0x2" } },
      { kind: "client.state", node: "c2", fields: { client: "c2", state: "CONNECTED", session: "0x2", conn: 8 } },
    ];
    const live = new ClientLivenessChecker();
    const watches = new ServerWatchesChecker();
    judge(live, events);
    judge(watches, events);
    expect([live.retained(), watches.retained()]).toEqual([6, 1]);
    const gone = [...events, { kind: "crash", node: "c1" }, { kind: "client.state", node: "c2", fields: { client: "c2", state: "CLOSED", session: "0x2", conn: 8 } }];
    const live2 = new ClientLivenessChecker();
    const watches2 = new ServerWatchesChecker();
    judge(live2, gone);
    judge(watches2, gone);
    expect([live2.retained(), watches2.retained()]).toEqual([0, 0]);
  });
});

describe("check: client: the zk workload's default checkers", () => {
  it("run the four new checkers; client.timeliness only with the syncLimit it assumes", () => {
    const names = zkWorkload.defaultCheckers({ script: "zab-isolated-leader", servers: 3 });
    for (const n of ["client.session-failover", "client.liveness", "client.server-watches", "client.timeliness"]) expect(names).toContain(n);
    expect(zkWorkload.defaultCheckers({ script: "zab-isolated-leader", servers: 3, syncLimitTicks: 5 })).toContain("client.timeliness");
    expect(zkWorkload.defaultCheckers({ script: "zab-isolated-leader", servers: 3, syncLimitTicks: 10 })).not.toContain("client.timeliness");
  });
});
