/**
 * The Paxos lessons (book 2.2), on single-decree Paxos: proposers p1 (value A) and p2 (value
 * B), acceptors a1…a3, learner l1. p1 starts at once; p2's start timer is pending (fire it to
 * bring p2 in). Each goal is judged from the trace's `paxos.*` annotations — what "chosen"
 * means is the checkers' definition: accepted by a majority of acceptors at one ballot — so it
 * holds whatever path the learner takes.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { goalWatch, type Lesson } from "./lesson.js";

/** Acceptances per ballot, and the proposals they made chosen, in the order they were. */
interface Tally {
  accepted: Record<string, { value: string; by: string[] }>;
  chosen: { ballot: number; value: string; by: string[] }[];
}

const blankTally = (): Tally => ({ accepted: {}, chosen: [] });

/** Counts a `paxos.accepted`; a proposal is chosen when a majority of acceptors accepted it. */
function tally(t: Tally, e: TraceEvent): void {
  if (e.kind !== "paxos.accepted") return;
  const ballot = String(e.fields.ballot);
  const entry = (t.accepted[ballot] ??= { value: String(e.fields.value), by: [] });
  if (entry.by.includes(e.node)) return;
  entry.by.push(e.node);
  if (entry.by.length === Math.floor(e.fields.acceptors / 2) + 1) t.chosen.push({ ballot: Number(ballot), value: entry.value, by: [...entry.by] });
}

const firstChosen = (t: Tally) => t.chosen[0];
const TALLY_KINDS = ["paxos.accepted"] as const;

const whyPhase1: Lesson = {
  protocol: "paxos",
  name: "why-phase-1",
  title: "Why phase 1: a later proposer adopts the chosen value",
  idea: "A proposer may not propose just any value: its prepare asks a majority what they accepted, and it must propose the highest-numbered value they report (P2c) — so once a value is chosen, every later proposal carries it.",
  intro: [
    "p1 proposes A at once; p2 (value B) waits for its start timer.",
    "Let A be chosen (run 20ms), then bring p2 in (fire its start timer: fire t2) and run on.",
    "Watch p2's promises report [1, A]: p2 proposes A, not its own B.",
  ],
  seed: 1,
  setup: [],
  goal: goalWatch(
    [...TALLY_KINDS, "paxos.propose"],
    { t: blankTally(), adopted: "" },
    (s, e) => {
      tally(s.t, e);
      const chosen = firstChosen(s.t);
      if (e.kind === "paxos.propose" && chosen !== undefined && s.adopted === "" && e.fields.ballot > chosen.ballot && e.fields.adopted === true) s.adopted = `${e.node} proposed [${e.fields.ballot}, ${e.fields.value}]`;
    },
    (s) => {
      const chosen = firstChosen(s.t);
      if (chosen === undefined) return { reached: false, text: "let a value be chosen (accepted by a majority)" };
      if (s.adopted === "") return { reached: false, text: `✓ ${chosen.value} is chosen at ballot ${chosen.ballot}; now let the other proposer run its phase 1` };
      return { reached: true, text: `${chosen.value} was chosen at ballot ${chosen.ballot}; ${s.adopted}: its promises reported the accepted value, and P2c made it propose that, not its own — phase 1 is how a proposer learns what may already be chosen` };
    },
  ),
  solution: "run 20ms; fire t2; run 40ms",
};

const breakConsensus: Lesson = {
  protocol: "paxos",
  name: "break-consensus",
  title: "Break consensus (a broken proposer)",
  idea: "BeatPaxos's game: get two different values chosen. With Paxos as the book gives it you cannot; with this broken twin, whose proposers ignore the values their promises report, you can — and the agreement invariant turns ✗.",
  intro: [
    "Variant ignore-promised-values: a proposer proposes its own value whatever the promises say.",
    "Do what you did in why-phase-1: let A be chosen (run 20ms), fire p2's start timer (fire t2), run on.",
    "Watch the invariants panel: two values chosen.",
  ],
  seed: 1,
  variant: "ignore-promised-values",
  setup: [],
  goal: goalWatch(TALLY_KINDS, { t: blankTally() }, (s, e) => tally(s.t, e), (s) => {
    const first = firstChosen(s.t);
    const other = s.t.chosen.find((c) => first !== undefined && c.value !== first.value);
    if (first === undefined || other === undefined) return { reached: false, text: first === undefined ? "get a first value chosen" : `✓ ${first.value} is chosen at ballot ${first.ballot}; now get a different value chosen` };
    return { reached: true, text: `${first.value} was chosen at ballot ${first.ballot} (${first.by.join(", ")}) and ${other.value} at ballot ${other.ballot} (${other.by.join(", ")}): the two majorities share an acceptor, which reported ${first.value} — the broken proposer ignored it (P2c), so consensus is broken` };
  }),
  solution: "run 20ms; fire t2; run 40ms",
};

const higherBallot: Lesson = {
  protocol: "paxos",
  name: "higher-ballot",
  title: "A higher ballot pre-empts a lower one",
  idea: "An acceptor that promised ballot n refuses every accept numbered below n: a proposer in phase 2 is pre-empted by any later prepare, and must start again higher.",
  intro: [
    "Run until p1 has sent its accepts (run 8.6ms), and hold them back (delay m7 20; delay m8 20; delay m9 20).",
    "Bring p2 in meanwhile (fire t2): its prepare(2) reaches the acceptors first.",
    "Run on (run 100ms): p1's accept(1) is refused; watch who gets which value chosen.",
  ],
  seed: 1,
  setup: [],
  goal: goalWatch(
    [...TALLY_KINDS, "paxos.propose", "paxos.preempted"],
    { t: blankTally(), proposed: {} as Record<string, string>, preempted: "" },
    (s, e) => {
      tally(s.t, e);
      if (e.kind === "paxos.propose") s.proposed[`${e.node}/${e.fields.ballot}`] = String(e.fields.value);
      if (e.kind === "paxos.preempted" && s.preempted === "" && s.proposed[`${e.node}/${e.fields.ballot}`] !== undefined) {
        s.preempted = `${e.node}'s accept [${e.fields.ballot}, ${s.proposed[`${e.node}/${e.fields.ballot}`]}] was refused: an acceptor had promised ballot ${e.fields.promised}`;
      }
    },
    (s) => {
      const chosen = firstChosen(s.t);
      if (s.preempted === "") return { reached: false, text: "get a proposer's accept (phase 2) refused by a higher promise" };
      if (chosen === undefined) return { reached: false, text: `✓ ${s.preempted}; run on until a value is chosen` };
      return { reached: true, text: `${s.preempted} — a higher ballot pre-empts a lower one; ${chosen.value} was chosen at ballot ${chosen.ballot}` };
    },
  ),
  solution: "run 8.6ms; delay m7 20; delay m8 20; delay m9 20; fire t2; run 100ms",
};

const dueling: Lesson = {
  protocol: "paxos",
  name: "dueling-proposers",
  title: "Dueling proposers, and the distinguished proposer",
  idea: "Two proposers that retry at once keep pre-empting each other — each one's prepare outbids the other's accept — so neither completes a round (a livelock); the book's cure is a distinguished proposer: only it proposes.",
  intro: [
    "Variant dueling: p1 and p2 start together and retry at once after a refusal.",
    "Step or run a little (run 20ms): count the pre-emptions in the narration; no proposer completes a round.",
    "From 30 ms p1 is the distinguished proposer: p2 stops starting rounds. Run on (run 40ms).",
  ],
  seed: 348,
  variant: "dueling",
  setup: [],
  goal: goalWatch(
    ["paxos.chosen", "paxos.preempted", "paxos.proposer.deferred", "crash", "pause"],
    { preempted: 0, alone: "", done: "" },
    (s, e) => {
      if (e.kind === "paxos.chosen" && s.done === "") s.done = s.alone === "" ? "early" : `${e.node} completed ballot ${e.fields.ballot}: ${e.fields.value} is chosen`;
      if (s.done !== "") return;
      if (e.kind === "paxos.preempted") s.preempted++;
      if (s.alone !== "") return;
      if (e.kind === "paxos.proposer.deferred") s.alone = `${e.node} deferred to the distinguished proposer ${e.fields.to}`;
      if ((e.kind === "crash" || e.kind === "pause") && /^p\d$/.test(e.node)) s.alone = `${e.node} was stopped (${e.kind}) — a crude distinguished proposer`;
    },
    (s) => {
      if (s.done === "early") return { reached: false, text: `a proposer completed a round after ${s.preempted} pre-emption(s), before the duel was seen: go back and try again` };
      if (s.preempted < 3) return { reached: false, text: `see the proposers pre-empt each other 3 times while no round completes (${s.preempted} so far)` };
      if (s.done === "") return { reached: false, text: `✓ ${s.preempted} pre-emptions and no round completed; now let one proposer propose alone` };
      return { reached: true, text: `${s.preempted} pre-emptions while no proposer completed a round; then ${s.alone}, and ${s.done} — a distinguished proposer ends the livelock` };
    },
  ),
  solution: "run 20ms; run 40ms",
};

const proposerCrash: Lesson = {
  protocol: "paxos",
  name: "proposer-crash",
  title: "A chosen value survives its proposer's crash",
  idea: "A value is chosen the moment a majority accepts it, whether or not its proposer lives to hear it: any later majority shares an acceptor with that one (majority intersection), so the next proposer's phase 1 finds the value and carries it on.",
  intro: [
    "Run until the acceptors have accepted [1, A] but p1 has not yet heard back (run 12.9ms), then crash p1.",
    "Bring p2 in (fire t2) and run on (run 40ms).",
    "p1 never learned that A was chosen; watch p2's majority of promises still report it.",
  ],
  seed: 1,
  setup: [],
  goal: goalWatch(
    [...TALLY_KINDS, "paxos.chosen", "paxos.propose", "crash"],
    { t: blankTally(), proposerOf: {} as Record<string, string>, saw: [] as string[], orphan: "", carried: "" },
    (s, e) => {
      tally(s.t, e);
      if (e.kind === "paxos.propose") {
        s.proposerOf[String(e.fields.ballot)] = e.node;
        const orphan = s.t.chosen.find((c) => s.proposerOf[String(c.ballot)] === s.orphan);
        if (orphan !== undefined && s.carried === "" && e.node !== s.orphan && e.fields.adopted === true && String(e.fields.value) === orphan.value) s.carried = `${e.node} proposed [${e.fields.ballot}, ${e.fields.value}]`;
      }
      if (e.kind === "paxos.chosen") s.saw.push(e.node);
      const lost = s.t.chosen.find((c) => s.proposerOf[String(c.ballot)] === e.node);
      if (e.kind === "crash" && s.orphan === "" && lost !== undefined && !s.saw.includes(e.node)) s.orphan = e.node;
    },
    (s) => {
      const chosen = s.t.chosen.find((c) => s.proposerOf[String(c.ballot)] === s.orphan);
      if (s.orphan === "" || chosen === undefined) return { reached: false, text: "crash a proposer after a majority accepted its proposal but before it heard so" };
      if (s.carried === "") return { reached: false, text: `✓ ${s.orphan} crashed not knowing ${chosen.value} was chosen; now let another proposer run` };
      return { reached: true, text: `[${chosen.ballot}, ${chosen.value}] was accepted by ${chosen.by.join(", ")} when ${s.orphan} crashed; ${s.carried}: its majority of promises shared an acceptor with that majority, so the chosen value survived` };
    },
  ),
  solution: "run 12.9ms; crash p1; fire t2; run 40ms",
};

export const PAXOS_LESSONS: readonly Lesson[] = [whyPhase1, higherBallot, dueling, proposerCrash, breakConsensus];
