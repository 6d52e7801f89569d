/**
 * The ZAB lessons, on the real ensemble (three servers; with seed 1, s3 is elected and both
 * clients are connected to it). Each goal is judged from the trace's `zab.*` annotations, so it
 * holds whatever path the learner takes to it.
 */
import { isOfKind, type TraceEvent } from "../../sim/trace.js";
import type { Frame } from "../../stepper/types.js";
import { goalWatch, type Lesson, type Prediction } from "./lesson.js";
import { fieldOf, isDown, listed, msAt, withRole } from "./frame-read.js";

const isServer = (node: string) => /^s\d+$/.test(node);
const servers = (f: Frame) => f.nodes.filter((n) => isServer(n.id)).map((n) => n.id);
const zxidOf = (s: string | undefined): bigint | undefined => (s !== undefined && /^0x[0-9a-f]+$/i.test(s) ? BigInt(s) : undefined);

/**
 * Asked when the leader proposes while `down` servers (counted by `count`) are down: will the
 * proposal be committed? The engine's answer: a zab.commit of that zxid within a second.
 */
function commitPrediction(id: string, count: (down: number, total: number) => boolean): Prediction {
  return {
    id,
    on: ["zab.propose"],
    aheadMs: 1_000,
    ask(e, f) {
      if (e.kind !== "zab.propose") return undefined;
      const down = servers(f).filter((s) => isDown(f, s));
      if (!count(down.length, servers(f).length)) return undefined;
      const zxid = String(e.fields?.zxid);
      return {
        text: `${e.node} (leader) proposed ${zxid} with ${down.length === 0 ? "every server up" : `${listed(down)} down`}. Will ${zxid} be committed within a second?`,
        choices: ["yes: the leader gets the ACKs it needs and commits it", "no: it stays proposed, uncommitted"],
      };
    },
    answer(q, events) {
      const zxid = /proposed (0x[0-9a-f]+)/.exec(q.text)![1]!;
      const acks = events.filter((e): e is TraceEvent<"zab.ack"> => e.kind === "zab.ack" && e.fields.zxid === zxid).map((e) => `s${e.fields.from}`);
      const commit = events.find((e) => e.kind === "zab.commit" && e.fields?.zxid === zxid);
      if (commit !== undefined) return { choice: 0, because: `${commit.node} committed ${zxid} at ${msAt(commit.atUs)} once ${listed([...new Set(acks)])} had logged it: a quorum` };
      return { choice: 1, because: `no COMMIT in a second: only ${listed([...new Set(acks)])} logged ${zxid}, not a quorum` };
    },
  };
}

interface Downs {
  down: string[];
}

/** Tracks which servers are down (crash … start/restart). */
function trackDown(s: Downs, e: TraceEvent): void {
  if (!isServer(e.node)) return;
  if (e.kind === "crash" && !s.down.includes(e.node)) s.down.push(e.node);
  if (e.kind === "start" || e.kind === "restart") s.down = s.down.filter((n) => n !== e.node);
}

const LIFECYCLE = ["crash", "start", "restart"] as const;

/** The zxid a txn event names ("" for an event of another kind). */
function txnZxid(e: TraceEvent): string {
  return e.kind === "zab.propose" || e.kind === "zab.commit" || e.kind === "zab.deliver" ? e.fields.zxid : "";
}

const quorumCommit: Lesson = {
  protocol: "zab",
  name: "quorum-commit",
  title: "A commit needs a quorum's ACKs",
  idea: "The leader commits a proposal once a quorum (2 of 3) has logged it: one follower down is fine, two are not.",
  intro: [
    "s3 leads; s1 and s2 follow; c1 and c2 have sessions.",
    "Crash one follower and write from c1 (write c1 /a 1): watch the ACKs — the leader's own and one follower's make a quorum.",
    "Then crash the other follower and write again: the PROPOSE finds no quorum, and no COMMIT comes.",
  ],
  seed: 1,
  setup: [],
  goal: goalWatch(
    [...LIFECYCLE, "zab.propose", "zab.commit", "timer"],
    { down: [] as string[], committedWithOneDown: "", stuck: {} as Record<string, number>, stuckDone: "" },
    (s, e) => {
      trackDown(s, e);
      const zxid = txnZxid(e);
      if (e.kind === "zab.commit" && s.down.length === 1 && s.committedWithOneDown === "") s.committedWithOneDown = zxid;
      if (e.kind === "zab.propose" && s.down.length >= 2) s.stuck[zxid] = e.atUs;
      if (e.kind === "zab.commit") delete s.stuck[zxid];
      for (const [z, atUs] of Object.entries(s.stuck)) if (e.atUs - atUs >= 1_000_000 && s.stuckDone === "") s.stuckDone = z;
    },
    (s) => {
      if (s.committedWithOneDown === "") return { reached: false, text: "commit a write while exactly one follower is down" };
      if (s.stuckDone === "") return { reached: false, text: `✓ ${s.committedWithOneDown} committed with one follower down (2 of 3 ACKs); now make a proposal wait 1 s without a quorum` };
      return { reached: true, text: `${s.committedWithOneDown} committed with 2 of 3 servers; ${s.stuckDone} was proposed with only the leader up and stayed uncommitted — a COMMIT needs a quorum's ACKs` };
    },
  ),
  solution: "crash s1; write c1 /a 1; run 1s; crash s2; write c1 /b 2; run 2s",
  why: "A write acknowledged by a quorum survives any minority of crashes, because every later quorum contains a server that logged it; a leader that committed on fewer ACKs could lose a write it already confirmed to a client.",
  book: "From Paxos to ZooKeeper, 4.2 (ZAB: message broadcast)",
  invariants: ["zab.committed-durability", "zab.durable-ack"],
  keyFields: ["proposals", "last", "commit"],
  predictions: [commitPrediction("one-down", (down) => down === 1), commitPrediction("quorum-down", (down, total) => down >= total - Math.floor(total / 2))],
};

const leaderCrash: Lesson = {
  protocol: "zab",
  name: "leader-crash-before-commit",
  title: "The leader crashes before COMMIT",
  idea: "A proposal that a quorum has logged survives the leader's crash, even though no COMMIT was ever sent: the next leader is the one with the longest history, and it commits it.",
  intro: [
    "Write from c1 (write c1 /p x) and step until the followers have the PROPOSE, but before the leader has a quorum of ACKs.",
    "Crash the leader (crash s3), then run a few seconds: watch the election and the new epoch.",
    "c1 only hears CONNECTIONLOSS — an unknown outcome — yet the txn is committed.",
  ],
  seed: 1,
  setup: [],
  goal: goalWatch(
    [...LIFECYCLE, "zab.propose", "zab.commit", "zab.deliver", "zab.leader.established"],
    { down: [] as string[], open: {} as Record<string, string>, orphaned: {} as Record<string, string>, survived: "", by: "" },
    (s, e) => {
      trackDown(s, e);
      const zxid = txnZxid(e);
      if (e.kind === "zab.propose") s.open[zxid] = e.node;
      if (e.kind === "zab.commit") delete s.open[zxid];
      if (e.kind === "crash") {
        for (const [z, leader] of Object.entries(s.open)) if (leader === e.node) s.orphaned[z] = leader;
      }
      if (s.survived !== "") return;
      if (e.kind === "zab.deliver" && s.orphaned[zxid] !== undefined && e.node !== s.orphaned[zxid]) {
        s.survived = zxid;
        s.by = `${e.node} delivered it`;
      }
      if (e.kind === "zab.leader.established") {
        // The new leader's initial history is committed as it is established: is the orphan in it?
        const last = BigInt(e.fields.lastZxid);
        const kept = Object.keys(s.orphaned).find((z) => BigInt(z) <= last && s.orphaned[z] !== e.node);
        if (kept !== undefined) {
          s.survived = kept;
          s.by = `${e.node} was established as leader of epoch ${e.fields.epoch} with it in its history, which commits it`;
        }
      }
    },
    (s) => {
      const orphans = Object.keys(s.orphaned);
      if (s.survived !== "") return { reached: true, text: `${s.survived} was proposed by ${s.orphaned[s.survived]}, which crashed before committing it; ${s.by} — a txn a quorum logged is never lost` };
      if (orphans.length > 0) return { reached: false, text: `the leader crashed with ${orphans.join(", ")} uncommitted: run on and see whether the new leader keeps it` };
      return { reached: false, text: "crash the leader while a proposal is logged by followers but not yet committed" };
    },
  ),
  solution: "write c1 /p x; step 3; crash s3; run 3s",
  why: "A client that heard CONNECTIONLOSS cannot tell whether its write happened; ZooKeeper promises that a txn a quorum logged is never lost, so the next leader — the one with the longest history — commits it, and the client must read before it retries.",
  book: "From Paxos to ZooKeeper, 4.2 (ZAB: crash recovery)",
  invariants: ["zab.committed-durability", "zab.election-most-recent"],
  keyFields: ["last", "commit", "proposals", "epoch"],
  predictions: [
    {
      id: "orphan",
      on: ["crash"],
      aheadMs: 3_000,
      ask(e, f) {
        if (e.kind !== "crash" || !isServer(e.node)) return undefined;
        // Its last proposal that no COMMIT followed (among the recent events the frame holds).
        const proposed = f.recent.map((r) => r.event).filter((p): p is TraceEvent<"zab.propose"> => p.kind === "zab.propose" && p.node === e.node).map((p) => p.fields.zxid);
        const committed = new Set(f.recent.map((r) => r.event).filter((c) => isOfKind(c, "zab.commit")).map((c) => c.fields.zxid));
        const zxid = proposed.filter((z) => !committed.has(z)).pop();
        if (zxid === undefined) return undefined;
        return {
          text: `${e.node}, the leader, crashed after proposing ${zxid} and before committing it: no COMMIT was sent. Once a new leader is up, will ${zxid} be committed?`,
          choices: ["yes: the new leader has it in its history and commits it", "no: without a COMMIT it is lost"],
        };
      },
      answer(q, events) {
        const zxid = /after proposing (0x[0-9a-f]+)/.exec(q.text)![1]!;
        const z = BigInt(zxid);
        const est = events.find((e): e is TraceEvent<"zab.leader.established"> => e.kind === "zab.leader.established" && BigInt(e.fields.lastZxid) >= z);
        if (est !== undefined) return { choice: 0, because: `${est.node} became leader of epoch ${String(est.fields?.epoch)} at ${msAt(est.atUs)} with ${zxid} in its history, which commits it` };
        const delivered = events.find((e) => e.kind === "zab.deliver" && e.fields?.zxid === zxid);
        if (delivered !== undefined) return { choice: 0, because: `${delivered.node} delivered ${zxid} at ${msAt(delivered.atUs)}` };
        return { choice: 1, because: `within 3 s no server committed ${zxid}` };
      },
    },
  ],
};

const laggingFollower: Lesson = {
  protocol: "zab",
  name: "lagging-follower",
  title: "A lagging follower is synced by DIFF",
  idea: "A follower that missed committed txns catches up before it serves: the leader sends what it lacks (DIFF), cuts back what it should not have (TRUNC), or sends a snapshot (SNAP).",
  intro: [
    "Crash a follower (crash s1), make a few writes, then restart it (restart s1) and run on.",
    "Watch the leader choose how to synchronize it, and the missing txns arrive before NEWLEADER.",
  ],
  seed: 1,
  setup: [],
  goal: goalWatch(
    ["zab.sync"],
    { mode: "", learner: "", from: "", to: "" },
    (s, e) => {
      if (s.mode !== "" || e.fields.peerLastZxid === e.fields.zxid) return;
      s.mode = e.fields.mode;
      s.learner = `s${e.fields.learner}`;
      s.from = e.fields.peerLastZxid;
      s.to = e.fields.zxid;
    },
    (s) =>
      s.mode === ""
        ? { reached: false, text: "make a follower miss committed txns, then bring it back" }
        : { reached: true, text: `${s.learner} was at ${s.from}; the leader synced it by ${s.mode} up to ${s.to} before it could serve again` },
  ),
  solution: "crash s1; write c1 /a 1; write c1 /b 2; run 1s; restart s1; run 3s",
  why: "A server that rejoins must not serve reads or ACK proposals until its log is exactly the leader's committed prefix: a stale follower would answer clients with old data, and one holding txns nobody committed would spread them.",
  book: "From Paxos to ZooKeeper, 4.2 (ZAB: data synchronization)",
  invariants: ["zab.prefix-consistency", "zab.identical-trees"],
  keyFields: ["last", "commit", "sync", "phase"],
  predictions: [
    {
      id: "sync-mode",
      on: ["start", "restart"],
      aheadMs: 3_000,
      ask(e, f) {
        if ((e.kind !== "restart" && e.kind !== "start") || !isServer(e.node)) return undefined;
        const leader = withRole(f, "leader")[0];
        const mine = zxidOf(fieldOf(f, e.node, "last"));
        const theirs = leader === undefined ? undefined : zxidOf(fieldOf(f, leader, "last"));
        if (leader === undefined || mine === undefined || theirs === undefined || mine === theirs) return undefined;
        return {
          text: `${e.node} comes back with its log at 0x${mine.toString(16)}; the leader ${leader} is at 0x${theirs.toString(16)}. How will ${leader} synchronize ${e.node}?`,
          choices: ["DIFF: it sends the txns it lacks", "TRUNC: it cuts the follower's log back", "SNAP: it sends its whole tree as a snapshot"],
        };
      },
      answer(q, events) {
        const node = /^(s\d+) comes back/.exec(q.text)![1]!;
        const sync = events.find((e): e is TraceEvent<"zab.sync"> => e.kind === "zab.sync" && `s${e.fields.learner}` === node);
        if (sync === undefined) return { choice: -1, because: `within 3 s no leader synchronized ${node}` };
        const mode = String(sync.fields?.mode);
        return { choice: ["DIFF", "TRUNC", "SNAP"].indexOf(mode), because: `${sync.node} synchronized ${node} by ${mode} from ${String(sync.fields?.peerLastZxid)} to ${String(sync.fields?.zxid)}` };
      },
    },
  ],
};

const isolatedLeader: Lesson = {
  protocol: "zab",
  name: "isolated-leader",
  title: "An isolated leader steps down",
  idea: "A leader that cannot hear a quorum for syncLimit ticks gives up leadership, and the majority side elects a new leader in a higher epoch.",
  intro: [
    "Cut the leader off from both followers (cut s3 <-> s1,s2) and run on (run 15s).",
    "s3 is still up and still thinks it leads for a while; watch it give up, and s1 and s2 elect a new leader.",
  ],
  seed: 1,
  setup: [],
  goal: goalWatch(
    ["zab.role.ended", "zab.leader.established", "partition"],
    { cutAtUs: -1, oldLeaderQuit: "", newLeader: "", epoch: "" },
    (s, e) => {
      if (e.kind === "partition" && s.cutAtUs < 0) s.cutAtUs = e.atUs;
      if (s.cutAtUs < 0) return;
      if (e.kind === "zab.role.ended" && e.fields.state === "LEADING" && s.oldLeaderQuit === "") s.oldLeaderQuit = e.node;
      if (e.kind === "zab.leader.established" && s.newLeader === "") {
        s.newLeader = e.node;
        s.epoch = `${e.fields.epoch}`;
      }
    },
    (s) => {
      if (s.oldLeaderQuit !== "" && s.newLeader !== "" && s.newLeader !== s.oldLeaderQuit) {
        return { reached: true, text: `${s.oldLeaderQuit} lost its quorum and stepped down; ${s.newLeader} leads epoch ${s.epoch} on the majority side` };
      }
      return { reached: false, text: s.cutAtUs < 0 ? "isolate the leader from its followers" : "run on until the old leader steps down and the majority elects a new one" };
    },
  ),
  solution: "cut s3 <-> s1,s2; run 15s",
  why: "A leader cut off from its quorum can no longer commit; if it went on serving it would hand clients a past that the majority has moved beyond. ZooKeeper makes it step down after syncLimit ticks without a quorum, and a new epoch fences it off.",
  book: "From Paxos to ZooKeeper, 4.2 (ZAB: crash recovery); ch. 7 (leader election)",
  invariants: ["zab.leadership"],
  keyFields: ["epoch", "phase", "vote"],
  predictions: [
    {
      id: "who-leads",
      on: ["partition"],
      aheadMs: 15_000,
      ask(e, f) {
        if (e.kind !== "partition") return undefined;
        const leader = withRole(f, "leader")[0];
        const links = Array.isArray(e.fields?.links) ? e.fields.links.map(String) : [];
        const others = servers(f).filter((s) => s !== leader);
        if (leader === undefined || !others.every((o) => links.includes(`${leader}>${o}`))) return undefined;
        return { text: `${leader}, the leader, is cut off from ${listed(others)}. Who will be the established leader 15 s from now?`, choices: [...others.map((o) => `${o}, in a new epoch`), `${leader} still`] };
      },
      answer(q, events) {
        const est = events.filter((e) => e.kind === "zab.leader.established").pop();
        const names = q.choices.map((c) => c.split(/[ ,]/)[0]!);
        if (est === undefined) return { choice: names.length - 1, because: "no new leader was established within 15 s" };
        return { choice: names.indexOf(est.node), because: `${est.node} was established as leader of epoch ${String(est.fields?.epoch)} at ${msAt(est.atUs)}` };
      },
    },
  ],
};

const sessionExpiry: Lesson = {
  protocol: "zab",
  name: "session-expiry",
  title: "A session expires and its ephemerals go",
  idea: "An ephemeral node lives as long as its session; when the client stops heartbeating, the leader expires the session after its timeout and deletes its ephemerals, through ZAB like any write.",
  intro: [
    "Create an ephemeral node from c2 (ephemeral c2 /e here), then crash c2 and run on (run 10s).",
    "Watch the leader's session tracker expire the session, and the closeSession txn be proposed and committed.",
  ],
  seed: 1,
  setup: [],
  goal: goalWatch(
    ["zk.session.expire", "zk.apply"],
    { expired: "", closedAt: "" },
    (s, e) => {
      if (e.kind === "zk.session.expire" && s.expired === "") s.expired = e.fields.session;
      if (e.kind === "zk.apply" && e.fields.op === "closeSession" && e.fields.session === s.expired && s.closedAt === "") s.closedAt = e.fields.zxid;
    },
    (s) => {
      if (s.closedAt !== "") return { reached: true, text: `session ${s.expired} expired; its closeSession txn ${s.closedAt} was committed and took its ephemerals with it` };
      return { reached: false, text: s.expired === "" ? "let a session with an ephemeral node expire" : `session ${s.expired} expired: run on until its closeSession commits` };
    },
  ),
  solution: "ephemeral c2 /e here; run 1s; crash c2; run 10s",
  why: "Locks, leader election and group membership built on ZooKeeper rely on an ephemeral node vanishing exactly when its owner's session ends — not when a connection drops (the client may reconnect elsewhere), and not never.",
  book: "From Paxos to ZooKeeper, ch. 7 (sessions; ephemeral nodes)",
  invariants: ["client.session-order"],
  keyFields: ["session", "ops", "server"],
  predictions: [
    {
      id: "expiry",
      on: ["crash"],
      aheadMs: 10_000,
      ask(e, f) {
        if (e.kind !== "crash" || !/^c\d+$/.test(e.node)) return undefined;
        const session = fieldOf(f, e.node, "session") ?? "";
        if (!/^0x/.test(session)) return undefined;
        return {
          text: `${e.node} crashed with its session ${session.split(" ")[0]} open. When will the leader expire that session (and delete its ephemeral nodes)?`,
          choices: ["at once: its connection is gone", "after the session timeout, when the leader's tracker expires it", "never: nobody closed it"],
        };
      },
      answer(q, events) {
        const session = /session (0x[0-9a-f]+)/.exec(q.text)![1]!;
        const exp = events.find((e) => e.kind === "zk.session.expire" && e.fields?.session === session);
        if (exp === undefined) return { choice: 2, because: `within 10 s nobody expired ${session}` };
        const after = exp.atUs - q.atUs;
        return { choice: after < 1_000_000 ? 0 : 1, because: `${exp.node} expired ${session} at ${msAt(exp.atUs)}, ${(after / 1e6).toFixed(1)} s on` };
      },
    },
  ],
};

export const ZAB_LESSONS: readonly Lesson[] = [quorumCommit, leaderCrash, laggingFollower, isolatedLeader, sessionExpiry];
