/**
 * The Paxos lessons (book 2.2), on single-decree Paxos: proposers p1 (value A) and p2 (value
 * B), acceptors a1…a3, learner l1. p1 starts at once; p2's start timer is pending (fire it to
 * bring p2 in). Each goal is judged from the trace's `paxos.*` annotations — what "chosen"
 * means is the checkers' definition: accepted by a majority of acceptors at one ballot — so it
 * holds whatever path the learner takes.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { goalWatch, type Lesson, type Prediction } from "./lesson.js";
import { fieldOf, listed, msAt, withRole } from "./frame-read.js";

const BOOK_PAXOS = "From Paxos to ZooKeeper, 2.2 (the Paxos algorithm)";
const acceptedProposals = (f: Parameters<Prediction["ask"]>[1]) =>
  withRole(f, "acceptor")
    .map((a) => ({ a, p: fieldOf(f, a, "accepted") ?? "—" }))
    .filter((x) => x.p !== "—");

/** Asked when a proposer's start timer fires after something was accepted: which value will it propose? */
const whichValue: Prediction = {
  id: "which-value",
  on: ["timer"],
  aheadMs: 100,
  ask(e, f) {
    if (e.kind !== "timer" || e.detail !== "paxos.start") return undefined;
    const accepted = acceptedProposals(f);
    if (accepted.length === 0) return undefined;
    const reported = /, (\w+)\]$/.exec(accepted[0]!.p)?.[1] ?? "?";
    return {
      text: `${e.node} starts phase 1 with its own value; ${listed(accepted.map((x) => `${x.a} accepted ${x.p}`))}. Which value will ${e.node} propose?`,
      choices: [`${reported}: the value its promises report`, "its own value"],
    };
  },
  answer: (q, events) => proposedBy(q.text.split(" ")[0]!, events),
};

/** The engine's answer to "which value will `node` propose?" (the reported one, or its own): its first proposal among `events`. */
function proposedBy(node: string, events: readonly TraceEvent[]): { choice: number; because: string } {
  const p = events.find((e): e is TraceEvent<"paxos.propose"> => e.kind === "paxos.propose" && e.node === node);
  if (p === undefined) return { choice: -1, because: `${node} proposed nothing meanwhile` };
  const proposal = `[${String(p.fields?.ballot)}, ${String(p.fields?.value)}]`;
  if (p.fields?.adopted === true) return { choice: 0, because: `${node} proposed ${proposal} at ${msAt(p.atUs)}: a promise reported the accepted value, and P2c makes it propose that` };
  const reported = Number(p.fields?.adoptedFrom) > 0;
  return { choice: reported ? 1 : -1, because: `${node} proposed its own ${proposal} at ${msAt(p.atUs)}${reported ? ": it ignored what its promises reported" : ": no promise reported an accepted value"}` };
}

/** How many acceptors accepted each ballot among `events`. */
function acceptancesByBallot(events: readonly TraceEvent[]): Map<number, Set<string>> {
  const by = new Map<number, Set<string>>();
  for (const e of events) if (e.kind === "paxos.accepted") (by.get(Number(e.fields?.ballot)) ?? by.set(Number(e.fields?.ballot), new Set()).get(Number(e.fields?.ballot))!).add(e.node);
  return by;
}

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
  why: "Consensus is only useful if a decision never changes: a replicated log whose entry could be overwritten by a later proposer would give two replicas two different histories. Phase 1 is what makes a chosen value stick.",
  book: `${BOOK_PAXOS}: P2c — a proposer proposes the value of the highest-numbered proposal its majority accepted`,
  invariants: ["paxos.agreement"],
  keyFields: ["phase", "ballot", "chosen", "accepted", "promised"],
  predictions: [whichValue],
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
  why: "This is the bug Paxos exists to rule out: a proposer that ignores what its promises report lets two majorities choose two values, so two replicas of a log would disagree forever on one entry.",
  book: `${BOOK_PAXOS}: P2c, and what breaks without it`,
  invariants: ["paxos.agreement"],
  keyFields: ["phase", "ballot", "chosen", "accepted", "promised"],
  predictions: [whichValue],
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
  why: "Promises are what keep an old, slow proposer from sneaking a value past a newer one: any message can be delayed for any time in a real network, and the ballot order decides which one still counts.",
  book: `${BOOK_PAXOS}: an acceptor's promise (P1a)`,
  invariants: ["paxos.agreement"],
  keyFields: ["phase", "ballot", "promised", "accepted"],
  predictions: [
    {
      id: "accept-refused",
      on: ["timer"],
      aheadMs: 100,
      ask(e, f) {
        if (e.kind !== "timer" || e.detail !== "paxos.start") return undefined;
        const p = withRole(f, "proposer").find((x) => fieldOf(f, x, "phase") === "2 accept" && x !== e.node);
        if (p === undefined) return undefined;
        const proposal = `[${fieldOf(f, p, "ballot") ?? "?"}, ${fieldOf(f, p, "value") ?? "?"}]`;
        return { text: `${e.node} starts phase 1 with a higher ballot while ${p}'s accept ${proposal} is still on its way. Will a majority of acceptors accept ${proposal}?`, choices: ["yes: it was sent first", "no: the acceptors will have promised the higher ballot"] };
      },
      answer(q, events) {
        const ballot = Number(/accept \[(\d+),/.exec(q.text)![1]);
        const by = acceptancesByBallot(events).get(ballot) ?? new Set();
        const refused = events.filter((e) => e.kind === "paxos.preempted" && Number(e.fields?.ballot) === ballot).length;
        return by.size >= 2 ? { choice: 0, because: `${listed([...by])} accepted ballot ${ballot}` } : { choice: 1, because: `${by.size === 0 ? "no acceptor" : listed([...by])} accepted ballot ${ballot}; ${refused} refusal(s) came back: a higher promise was made first` };
      },
    },
  ],
};

const dueling: Lesson = {
  protocol: "paxos",
  name: "dueling-proposers",
  title: "Dueling proposers, and the distinguished proposer",
  idea: "Two proposers that retry at once keep pre-empting each other — each one's prepare outbids the other's accept — so no ballot is accepted by a majority and no value is chosen (a livelock while it lasts); the book's cure is a distinguished proposer: only it proposes.",
  intro: [
    "Variant dueling: p1 and p2 start together and retry at once after a refusal.",
    "Run a little (run 20ms): count the pre-emptions in the narration; no ballot is accepted by a majority, nothing is chosen.",
    "From 30 ms p1 is the distinguished proposer: p2 stops starting rounds. Run on (run 40ms) until a value is chosen.",
  ],
  seed: 856,
  variant: "dueling",
  setup: [],
  goal: goalWatch(
    [...TALLY_KINDS, "paxos.propose", "paxos.preempted", "paxos.proposer.deferred", "crash", "pause"],
    { t: blankTally(), proposerOf: {} as Record<string, string>, preempted: 0, alone: "", chosenAlone: false },
    (s, e) => {
      const before = s.t.chosen.length;
      tally(s.t, e);
      if (before === 0 && s.t.chosen.length > 0) s.chosenAlone = s.alone !== "";
      if (e.kind === "paxos.propose") s.proposerOf[String(e.fields.ballot)] = e.node;
      if (s.t.chosen.length > 0) return;
      if (e.kind === "paxos.preempted") s.preempted++;
      if (s.alone !== "") return;
      if (e.kind === "paxos.proposer.deferred") s.alone = `${e.node} deferred to the distinguished proposer ${e.fields.to}`;
      if ((e.kind === "crash" || e.kind === "pause") && /^p\d$/.test(e.node)) s.alone = `${e.node} was stopped (${e.kind}) — a crude distinguished proposer`;
    },
    (s) => {
      // "Chosen" is the checkers' definition: a majority of acceptors accepted one ballot (the tally), whoever heard of it.
      const chosen = firstChosen(s.t);
      const what = chosen === undefined ? "" : `ballot ${chosen.ballot}${s.proposerOf[String(chosen.ballot)] !== undefined ? ` of ${s.proposerOf[String(chosen.ballot)]}` : ""} was accepted by ${chosen.by.join(", ")}: ${chosen.value} is chosen`;
      if (chosen !== undefined && !s.chosenAlone) return { reached: false, text: `${what} after ${s.preempted} pre-emption(s), while both still proposed: no livelock in this run — go back (←) and try other moves` };
      if (s.preempted < 3) return { reached: false, text: `see the proposers pre-empt each other 3 times while no value is chosen (${s.preempted} so far)` };
      if (s.alone === "") return { reached: false, text: `✓ ${s.preempted} pre-emptions and no value chosen (no ballot accepted by a majority): a livelock so far; now let one proposer propose alone` };
      if (chosen === undefined) return { reached: false, text: `✓ ${s.preempted} pre-emptions and no value chosen; ${s.alone}: run on until a value is chosen` };
      return { reached: true, text: `${s.preempted} pre-emptions while no ballot was accepted by a majority — a livelock while it lasted; then ${s.alone}, and ${what} — a distinguished proposer ends the livelock` };
    },
  ),
  solution: "run 20ms; run 40ms",
  why: "Paxos is always safe but not always live: two proposers that keep outbidding each other can delay a decision forever (FLP says no protocol avoids this in every run). Real systems elect a distinguished proposer — a leader — and back off randomly.",
  book: `${BOOK_PAXOS}: progress and the distinguished proposer`,
  invariants: ["paxos.agreement"],
  keyFields: ["phase", "ballot", "rounds", "promised", "accepted"],
  predictions: [
    {
      id: "duel",
      on: ["paxos.preempted"],
      aheadMs: 40,
      ask(e, f) {
        if (e.kind !== "paxos.preempted" || f.nowUs >= 30_000) return undefined;
        return { text: `${e.node}'s ballot was pre-empted by the other proposer's. Will any value be chosen (accepted by a majority at one ballot) before p1 becomes the distinguished proposer at 30 ms?`, choices: ["yes", "no: they keep pre-empting each other"] };
      },
      answer(_q, events) {
        const early = events.filter((e) => e.atUs < 30_000);
        const chosen = [...acceptancesByBallot(early)].find(([, by]) => by.size >= 2);
        return chosen !== undefined ? { choice: 0, because: `${listed([...chosen[1]])} accepted ballot ${chosen[0]} before 30 ms: a value was chosen` } : { choice: 1, because: "before 30 ms no ballot was accepted by a majority" };
      },
    },
  ],
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
  why: "A leader can die right after its proposal was chosen and before anyone heard: the system must still never choose differently. Majority intersection is what lets the next proposer find the value without the dead one.",
  book: `${BOOK_PAXOS}: majority intersection`,
  invariants: ["paxos.agreement"],
  keyFields: ["phase", "ballot", "promised", "accepted", "chosen"],
  predictions: [
    {
      id: "carried",
      on: ["crash"],
      aheadMs: 400,
      ask(e, f) {
        if (e.kind !== "crash" || !/^p\d$/.test(e.node)) return undefined;
        const accepted = acceptedProposals(f);
        const other = withRole(f, "proposer").find((p) => p !== e.node);
        if (accepted.length < 2 || other === undefined) return undefined;
        const value = /, (\w+)\]$/.exec(accepted[0]!.p)?.[1] ?? "?";
        return { text: `${e.node} crashed after ${listed(accepted.map((x) => `${x.a} accepted ${x.p}`))}, before it heard so. What will ${other} propose when it runs?`, choices: [`${value}: the value its promises report`, "its own value"] };
      },
      answer: (q, events) => proposedBy(/What will (p\d)/.exec(q.text)![1]!, events),
    },
  ],
};

export const PAXOS_LESSONS: readonly Lesson[] = [whyPhase1, higherBallot, dueling, proposerCrash, breakConsensus];
