/**
 * The Multi-Paxos lessons (book 3.1.5, Chubby's log), on three replicas r1…r3 and two clients
 * c1, c2 (`write c1 /k v` puts, `read c1 /k` gets). With seed 1, r3 leads with ballot 3 when
 * the lesson starts. Goals are judged from the trace's `multipaxos.*` annotations; "chosen"
 * is the checkers' definition: accepted by a majority of replicas at one ballot in one slot.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { goalWatch, type Lesson, type Prediction } from "./lesson.js";
import { fieldOf, msAt, withRole } from "./frame-read.js";

const BOOK_CHUBBY = "From Paxos to ZooKeeper, 3.1.5 (Chubby: Multi-Paxos)";

/** Asked when the leader crashes: which replica leads next? The engine's answer: the next multipaxos.leader. */
const nextLeader: Prediction = {
  id: "next-leader",
  on: ["crash"],
  aheadMs: 1_000,
  ask(e, f) {
    // After the master's crash no replica that is up leads.
    if (e.kind !== "crash" || !/^r\d$/.test(e.node) || withRole(f, "leader").some((r) => f.nodes.find((n) => n.id === r)?.status === "up")) return undefined;
    const others = f.nodes.filter((n) => /^r\d$/.test(n.id) && n.id !== e.node && n.status === "up").map((n) => n.id);
    if (others.length === 0) return undefined;
    return { text: `${e.node}, the master, crashed. Which replica will lead next?`, choices: [...others, "none within a second"] };
  },
  answer(q, events) {
    const lead = events.find((e) => e.kind === "multipaxos.leader");
    if (lead === undefined) return { choice: q.choices.length - 1, because: "no replica took over within a second" };
    return { choice: q.choices.indexOf(lead.node), because: `${lead.node}'s election timeout fired first: it ran phase 1 with ballot ${String(lead.fields?.ballot)} and leads since ${msAt(lead.atUs)}` };
  },
};

/** The commands chosen per slot, from the acceptances (a majority at one ballot). */
interface SlotTally {
  accepted: Record<string, { command: string; by: string[] }>;
  chosen: { slot: number; ballot: number; command: string }[];
}

function tallySlots(t: SlotTally, e: TraceEvent): void {
  if (e.kind !== "multipaxos.accepted") return;
  const key = `${e.fields.slot}@${e.fields.ballot}`;
  const entry = (t.accepted[key] ??= { command: String(e.fields.command), by: [] });
  if (entry.by.includes(e.node)) return;
  entry.by.push(e.node);
  if (entry.by.length === Math.floor(e.fields.acceptors / 2) + 1) t.chosen.push({ slot: e.fields.slot, ballot: e.fields.ballot, command: entry.command });
}

const phase2Only: Lesson = {
  protocol: "multipaxos",
  name: "phase-2-only",
  title: "A stable leader skips phase 1",
  idea: "The distinguished proposer (the master) ran phase 1 once, for every slot from the first open one on: while it stays leader, each new command costs only phase 2 — one accept/accepted round.",
  intro: [
    "r3 leads with ballot 3 (its phase 1 is done). Write from c1 (write c1 /k a), run 30ms.",
    "Write again from c2 (write c2 /k b), run 30ms: watch accept / accepted / chosen, and no prepare.",
  ],
  seed: 1,
  setup: [],
  goal: goalWatch(
    ["multipaxos.leader", "multipaxos.prepare", "multipaxos.apply"],
    { leader: "", ballot: "", commands: [] as string[] },
    (s, e) => {
      if (e.kind === "multipaxos.leader") Object.assign(s, { leader: e.node, ballot: String(e.fields.ballot), commands: [] });
      if (e.kind === "multipaxos.prepare") s.commands = [];
      if (e.kind === "multipaxos.apply" && e.node === s.leader && e.fields.command !== "noop") s.commands.push(`slot ${e.fields.slot} = ${e.fields.command}`);
    },
    (s) =>
      s.commands.length >= 2
        ? { reached: true, text: `${s.leader} chose ${s.commands.join(", ")} at ballot ${s.ballot} with phase 2 only: its one phase 1 covers every later slot` }
        : { reached: false, text: `get two client commands chosen under one leader (${s.commands.length} so far)` },
  ),
  solution: "write c1 /k a; run 30ms; write c2 /k b; run 30ms",
  why: "Phase 1 costs a round trip to a majority; Chubby and every Multi-Paxos system pay it once per leader, not once per command, which is what makes a consensus log fast enough to serve a lock service.",
  book: `${BOOK_CHUBBY}: a stable master skips phase 1`,
  invariants: ["multipaxos.slot-agreement"],
  keyFields: ["ballot", "log", "open"],
  predictions: [
    {
      id: "prepare-again",
      on: ["multipaxos.client.invoke"],
      aheadMs: 30,
      ask(e, f) {
        if (e.kind !== "multipaxos.client.invoke" || f.nodes.every((n) => n.role !== "leader")) return undefined;
        const leader = f.nodes.find((n) => n.role === "leader")!.id;
        return { text: `${e.node} sends a command; ${leader} leads. Will ${leader} run phase 1 (prepare) before this command is chosen?`, choices: ["no: one accept round (phase 2) is enough", "yes: every command needs both phases"] };
      },
      answer(_q, events) {
        const prepare = events.find((e) => e.kind === "multipaxos.prepare");
        const applied = events.find((e): e is TraceEvent<"multipaxos.apply"> => e.kind === "multipaxos.apply" && e.fields.command !== "noop");
        if (prepare !== undefined && (applied === undefined || prepare.index < applied.index)) return { choice: 1, because: `${prepare.node} ran phase 1 with ballot ${String(prepare.fields?.ballot)}` };
        return { choice: 0, because: applied !== undefined ? `slot ${String(applied.fields?.slot)} was chosen and applied at ${msAt(applied.atUs)} with no prepare: phase 2 only` : "no prepare was sent" };
      },
    },
  ],
};

const leaderFailover: Lesson = {
  protocol: "multipaxos",
  name: "leader-failover",
  title: "The leader crashes: a new one runs phase 1",
  idea: "When the master falls silent, another replica's election timeout fires: it runs phase 1 with a higher ballot over every open slot, then leads; clients retry through the change.",
  intro: ["Crash the leader (crash r3) and write from c1 (write c1 /k a).", "Run on (run 1s): c1's request times out, moves to the next replica, and is answered by the new leader."],
  seed: 1,
  setup: [],
  goal: goalWatch(
    ["crash", "multipaxos.leader", "multipaxos.client.complete"],
    { leader: "", crashed: "", next: "", ballot: "", answered: "" },
    (s, e) => {
      if (e.kind === "multipaxos.leader") {
        if (s.crashed !== "" && s.next === "") Object.assign(s, { next: e.node, ballot: String(e.fields?.ballot) });
        else if (s.crashed === "") s.leader = e.node;
      }
      if (e.kind === "crash" && e.node === s.leader && s.crashed === "") s.crashed = e.node;
      if (e.kind === "multipaxos.client.complete" && s.next !== "" && s.answered === "") s.answered = `${e.fields.client}'s request ${e.fields.reqId}`;
    },
    (s) => {
      if (s.crashed === "") return { reached: false, text: "crash the leader" };
      if (s.next === "" || s.answered === "") return { reached: false, text: `✓ ${s.crashed} crashed; run on until a new leader answers a client` };
      return { reached: true, text: `${s.crashed} crashed; ${s.next} ran phase 1 with ballot ${s.ballot} and leads; ${s.answered} was answered after the change` };
    },
  ),
  solution: "crash r3; write c1 /k a; run 1s",
  why: "A lock service must survive its master: clients retry through the change, and the new master's phase 1 recovers every slot the old one may have had chosen before it answers anybody.",
  book: `${BOOK_CHUBBY}: master failover`,
  invariants: ["multipaxos.linearizable", "multipaxos.slot-agreement"],
  keyFields: ["ballot", "leader", "log", "to", "ops"],
  predictions: [nextLeader],
};

const noopGaps: Lesson = {
  protocol: "multipaxos",
  name: "noop-gaps",
  title: "A new leader fills gaps with no-ops",
  idea: "A new leader re-proposes, slot by slot, the highest-numbered value its promises report; a slot below the highest that nobody in its majority accepted is a gap, and it proposes a no-op there so the log can be applied in order.",
  intro: [
    "Write from both clients (write c1 /k a; write c2 /k b), run 15ms, and let both requests reach r3 (step 2).",
    "Lose slot 0's accepts to r1 and r2 (drop m29; drop m30) and slot 1's to r2 (drop m33); deliver slot 1's to r1 (deliver m32; step).",
    "Crash r3 (crash r3) and run 1s: the new leader finds slot 1 but nothing in slot 0.",
  ],
  seed: 1,
  setup: [],
  goal: goalWatch(
    ["multipaxos.leader", "multipaxos.apply"],
    { filled: "", applied: "" },
    (s, e) => {
      if (e.kind === "multipaxos.leader" && e.fields.noops > 0 && s.filled === "") s.filled = `${e.node} led with ballot ${e.fields.ballot}, re-proposed ${e.fields.reproposed} slot(s) and filled ${e.fields.noops} gap(s) with no-ops`;
      if (e.kind === "multipaxos.apply" && e.fields.command === "noop" && s.filled !== "" && s.applied === "") s.applied = `${e.node} applied the no-op in slot ${e.fields.slot}`;
    },
    (s) =>
      s.applied !== ""
        ? { reached: true, text: `${s.filled}; ${s.applied} and went on in order — a gap is never left open` }
        : { reached: false, text: s.filled === "" ? "make a new leader find a gap below an accepted slot" : `✓ ${s.filled}; run on until it is applied` },
  ),
  solution: "write c1 /k a; write c2 /k b; run 15ms; step 2; drop m29; drop m30; drop m33; deliver m32; step; crash r3; run 1s",
  why: "Replicas apply the log strictly in slot order; a slot nobody can fill would stall every later command forever. A no-op fills it harmlessly, so the log can go on.",
  book: `${BOOK_CHUBBY}: gaps and no-ops`,
  invariants: ["multipaxos.state-machine-safety", "multipaxos.slot-agreement"],
  keyFields: ["log", "open", "ballot"],
  predictions: [
    {
      id: "gap",
      on: ["crash"],
      aheadMs: 1_000,
      ask(e, f) {
        if (e.kind !== "crash" || !/^r\d$/.test(e.node) || !f.nodes.some((n) => (fieldOf(f, n.id, "open") ?? "") !== "")) return undefined;
        return { text: `${e.node}, the master, crashed while some slots are accepted but not known chosen. Will the new leader propose a no-op in some slot?`, choices: ["yes: a slot below an accepted one that nobody in its majority accepted", "no: it re-proposes what it finds, nothing more"] };
      },
      answer(_q, events) {
        const lead = events.find((e) => e.kind === "multipaxos.leader");
        if (lead === undefined) return { choice: -1, because: "no replica took over within a second" };
        const noops = Number(lead.fields?.noops);
        return { choice: noops > 0 ? 0 : 1, because: `${lead.node} led with ballot ${String(lead.fields?.ballot)}: it re-proposed ${String(lead.fields?.reproposed)} slot(s) and filled ${noops} gap(s) with no-ops` };
      },
    },
  ],
};

const skipPhase1: Lesson = {
  protocol: "multipaxos",
  name: "skip-phase-1",
  title: "A new leader that skips phase 1 (a broken twin)",
  idea: "Phase 1 is skipped only by a leader whose ballot already holds a majority's promise: a NEW leader that skips it cannot know what an earlier leader had chosen, and overwrites it.",
  intro: [
    "Variant skip-phase-1. Write from c1 (write c1 /k a), run 16ms, and lose the accept to r1 (drop m20).",
    "Run 5ms: r2 and r3 accept slot 0 — it is chosen. Crash r3 and c1, then write from c2 (write c2 /k b) and run 1s.",
    "The new leader proposes c2's command in slot 0: two commands chosen in one slot.",
  ],
  seed: 1,
  variant: "skip-phase-1",
  setup: [],
  goal: goalWatch(["multipaxos.accepted"], { t: { accepted: {}, chosen: [] } as SlotTally }, (s, e) => tallySlots(s.t, e), (s) => {
    const [a, b] = s.t.chosen.filter((c, _, all) => all.some((o) => o.slot === c.slot && o.command !== c.command));
    if (a === undefined || b === undefined) return { reached: false, text: "get two different commands chosen in one slot" };
    return { reached: true, text: `slot ${a.slot}: ${a.command} was chosen at ballot ${a.ballot} and ${b.command} at ballot ${b.ballot} — without phase 1 the new leader never heard of the first` };
  }),
  solution: "write c1 /k a; run 16ms; drop m20; run 5ms; crash r3; crash c1; write c2 /k b; run 1s",
  why: "Skipping phase 1 is an optimisation only a leader whose ballot already holds a majority's promise may take; a new leader that skips it can overwrite a decision that clients were already told.",
  book: `${BOOK_CHUBBY}: why a new master runs phase 1`,
  invariants: ["multipaxos.slot-agreement"],
  keyFields: ["ballot", "log", "open"],
  predictions: [nextLeader],
};

const masterLease: Lesson = {
  protocol: "multipaxos",
  name: "master-lease",
  title: "A deposed master serves a stale read (no lease)",
  idea: "A master cut off from the others does not know it was replaced: without Chubby's master lease it keeps answering reads from its own state machine, which lacks the new master's writes. With the lease it stops serving once a majority stops renewing it.",
  intro: [
    "Variant no-lease. Write from c1 (write c1 /k a), run 50ms, then cut r3 off from r1, r2 and c2 (cut r3 <-> r1,r2,c2).",
    "Run 600ms: r1 and r2 elect a new master. Write from c2 (write c2 /k b), run 400ms.",
    "Read from c1, which still reaches r3 (read c1 /k), run 100ms: watch the invariants panel. Then try it without --variant.",
  ],
  seed: 1,
  variant: "no-lease",
  setup: [],
  goal: goalWatch(
    ["multipaxos.leader", "multipaxos.read", "multipaxos.client.complete"],
    { ballotOf: {} as Record<string, number>, top: 0, stale: "", reader: "", answer: "" },
    (s, e) => {
      if (e.kind === "multipaxos.leader") {
        s.ballotOf[e.node] = e.fields.ballot;
        s.top = Math.max(s.top, e.fields.ballot);
      }
      if (e.kind === "multipaxos.read" && s.stale === "" && (s.ballotOf[e.node] ?? 0) < s.top) {
        s.stale = `${e.node} (ballot ${s.ballotOf[e.node]}) served ${e.fields.client}'s read of ${e.fields.key} though ballot ${s.top} leads`;
        s.reader = `${e.fields.client}#${e.fields.reqId}`;
      }
      if (e.kind === "multipaxos.client.complete" && `${e.fields.client}#${e.fields.reqId}` === s.reader && s.answer === "") s.answer = e.fields.value === null ? "(none)" : String(e.fields.value);
    },
    (s) => {
      if (s.stale === "") return { reached: false, text: "get a read served by a master that has been replaced" };
      if (s.answer === "") return { reached: false, text: `✓ ${s.stale}; run on until the answer arrives` };
      return { reached: true, text: `${s.stale}, answering ${s.answer}: a stale read (linearizability ✗). Chubby's lease makes a master stop serving before another can be elected` };
    },
  ),
  solution: "write c1 /k a; run 50ms; cut r3 <-> r1,r2,c2; run 600ms; write c2 /k b; run 400ms; read c1 /k; run 100ms",
  why: "A master cannot tell that it was replaced; serving reads locally is only safe while a lease guarantees nobody else can be master. Without it, a client reads a value that was already overwritten: the store is no longer linearizable.",
  book: `${BOOK_CHUBBY}: the master lease`,
  invariants: ["multipaxos.linearizable"],
  keyFields: ["ballot", "leader", "kv", "lease"],
  predictions: [
    {
      id: "stale-read",
      on: ["multipaxos.client.invoke"],
      aheadMs: 100,
      ask(e, f) {
        if (e.kind !== "multipaxos.client.invoke" || e.fields?.op !== "get") return undefined;
        const target = fieldOf(f, e.node, "to") ?? "?";
        const leaders = withRole(f, "leader").map((id) => ({ id, ballot: Number(fieldOf(f, id, "ballot") ?? 0) })).sort((a, b) => b.ballot - a.ballot);
        const newest = leaders[0];
        if (newest === undefined || newest.id === target) return undefined;
        return { text: `${e.node} reads ${String(e.fields?.key)} from ${target}; the newest master is ${newest.id} (ballot ${newest.ballot}). What will ${e.node} be answered?`, choices: ["the newest value", "an older value (a stale read)", "no answer within 100 ms"] };
      },
      answer(q, events) {
        const client = q.text.split(" ")[0]!;
        const newest = /newest master is (r\d)/.exec(q.text)![1]!;
        const read = events.find((e) => e.kind === "multipaxos.read" && e.fields?.client === client);
        const done = events.find((e): e is TraceEvent<"multipaxos.client.complete"> => e.kind === "multipaxos.client.complete" && e.fields.client === client);
        if (done === undefined) return { choice: 2, because: `${client}'s read was not answered within 100 ms${read === undefined ? ": no master served it" : ""}` };
        const value = done.fields?.value === null ? "(none)" : String(done.fields?.value);
        const stale = read !== undefined && read.node !== newest;
        return { choice: stale ? 1 : 0, because: `${read?.node ?? "a replica"} answered ${value}${stale ? `: it had been replaced by ${newest} and, holding no lease, did not know` : ""}` };
      },
    },
  ],
};

export const MULTIPAXOS_LESSONS: readonly Lesson[] = [phase2Only, leaderFailover, noopGaps, skipPhase1, masterLease];
