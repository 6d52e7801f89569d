/**
 * The ZAB lessons, on the real ensemble (three servers; with seed 1, s3 is elected and both
 * clients are connected to it). Each goal is judged from the trace's `zab.*` annotations, so it
 * holds whatever path the learner takes to it.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { goalWatch, type Lesson } from "./lesson.js";

const isServer = (node: string) => /^s\d+$/.test(node);

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
};

const isolatedLeader: Lesson = {
  protocol: "zab",
  name: "isolated-leader",
  title: "An isolated leader steps down",
  idea: "A leader that cannot hear a quorum for syncLimit ticks gives up leadership, and the majority side elects a new leader in a higher epoch.",
  intro: [
    "Cut the leader off from both followers (cut s3 s1,s2) and run on (run 15s).",
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
  solution: "cut s3 s1,s2; run 15s",
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
};

export const ZAB_LESSONS: readonly Lesson[] = [quorumCommit, leaderCrash, laggingFollower, isolatedLeader, sessionExpiry];
