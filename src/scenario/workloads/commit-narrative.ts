/**
 * The run summary of a commit-protocol scenario, in the book's vocabulary (2.1.1, 2.1.2): the
 * passage the scenario illustrates, then what happened — each transaction's votes, the
 * coordinator's decision, when each participant applied which outcome and who told it, how
 * long participants sat in doubt holding locks and clients waited — and the faults. It is built
 * from the trace as the run goes (a listener), like every report.
 */
import type { Simulator } from "../../sim/simulator.js";
import type { TraceEvent } from "../../sim/trace.js";
import type { Protocol, Story } from "./commit-params.js";

const BOOK: Record<Story, string> = {
  commit:
    "Book 2.1.1, 2PC without faults. Phase 1, the voting phase: the coordinator sends each participant the transaction inquiry (prepare); each executes the transaction, writes its undo and redo information to its log and answers Yes. Phase 2, the execution phase: every answer was Yes, so the coordinator sends Commit; each participant commits, releases the resources it held for the transaction and sends an Ack; with every Ack the transaction is complete.",
  rollback:
    "Book 2.1.1, interrupting the transaction: one participant cannot execute the transaction and answers No, so the coordinator sends Rollback; each participant undoes the transaction with its undo information, releases its resources and sends an Ack.",
  "coordinator-crash-blocks":
    "Book 2.1.1, synchronous blocking and the single point of failure: the coordinator crashes in phase 2 after collecting every Yes vote, before any participant hears its decision. Having voted Yes, no participant may decide alone: they stay in doubt, holding their locks, and their clients wait, until the coordinator recovers. commit.blocking fails here on purpose: this is 2PC's documented flaw, not a bug of the simulator.",
  "partial-commit":
    "Book 2.1.1, data inconsistency: a local network failure, then the coordinator's crash, while Commit is on its way, so only some participants receive it and commit; the others stay in doubt meanwhile (holding the key's lock, so a reader sees the new value at one site and nothing readable at the others). The decision was logged before it was sent, so the recovered coordinator sends Commit again and every participant commits: the inconsistency lasts until recovery, and atomicity holds.",
  "coordinator-crash-nonblocking":
    "Book 2.1.2, the same crash under 3PC: the participants do not wait for the coordinator. When their timers fire they run the termination protocol: they elect a recovery coordinator among themselves, which hears that none of them got preCommit and aborts for all (had one been precommitted, it would first have brought the others to precommitted, then committed), so they finish, release their locks and stay consistent without the coordinator.",
  "partition-inconsistency":
    "Book 2.1.2, 3PC's flaw: after a participant received preCommit, a network partition separates it from the coordinator. The coordinator, missing its Ack, sends abort to the others; the cut-off participant cannot reach anyone, runs the termination protocol alone and, being precommitted, commits (the book's timeout rule for a participant that received preCommit). commit.atomicity fails here on purpose: this is 3PC's documented flaw.",
};

interface TxnStory {
  key: string;
  value: unknown;
  votes: string[];
  decisions: string[];
  applied: string[];
  /** When each participant applied its outcome, for the window in which they differed. */
  appliedAtUs: Map<string, [string, number]>;
  result: string | undefined;
}

/** Participants applying one outcome this long apart is worth a line (the book's "data inconsistency"). */
const SPLIT_WINDOW_US = 100_000;

/** Fault events worth a line ("start" is every node's first start: not news). */
const LIFECYCLE = ["crash", "restart", "pause", "resume", "partition", "heal"] as const;
const LIFECYCLE_SET: ReadonlySet<string> = new Set(LIFECYCLE);

/** What the story reads, per protocol. */
const NARRATED = {
  "2pc": [...LIFECYCLE, "2pc.request", "2pc.vote", "2pc.decision", "2pc.apply", "2pc.result", "2pc.in-doubt", "2pc.recover"],
  "3pc": [...LIFECYCLE, "3pc.request", "3pc.vote", "3pc.decision", "3pc.apply", "3pc.result", "3pc.timeout", "3pc.recover"],
} as const;
type Narrated = (typeof NARRATED)[Protocol][number];
const MAX_TXN_LINES = 8;

export class CommitNarrator {
  private readonly txns = new Map<string, TxnStory>();
  private readonly faults: string[] = [];
  private inDoubtNotes = 0;
  private recoveries: string[] = [];

  constructor(sim: Simulator, private readonly protocol: Protocol, private readonly story: Story | undefined) {
    sim.trace.subscribe((e) => this.onEvent(e), NARRATED[protocol]);
  }

  private txn(name: string): TxnStory {
    let t = this.txns.get(name);
    if (t === undefined) this.txns.set(name, (t = { key: "?", value: "?", votes: [], decisions: [], applied: [], appliedAtUs: new Map(), result: undefined }));
    return t;
  }

  private onEvent(e: TraceEvent<Narrated>): void {
    const at = `${(e.atUs / 1000).toFixed(1)} ms`;
    if (LIFECYCLE_SET.has(e.kind)) {
      if (this.faults.length < 12) this.faults.push(`${at}: ${e.kind}${e.node !== "" ? ` ${e.node}` : ""}`);
      return;
    }
    switch (e.kind) {
      case "2pc.request":
      case "3pc.request": {
        const t = this.txn(e.fields.txn);
        t.key = e.fields.key;
        t.value = e.fields.value;
        return;
      }
      case "2pc.vote":
      case "3pc.vote":
        this.txn(e.fields.txn).votes.push(`${e.node} ${e.fields.vote === "yes" ? "Yes" : `No (${e.fields.reason})`}`);
        return;
      case "2pc.decision":
      case "3pc.decision":
        this.txn(e.fields.txn).decisions.push(`${e.fields.decision} at ${at} (${e.fields.reason})`);
        return;
      case "2pc.apply":
      case "3pc.apply": {
        const t = this.txn(e.fields.txn);
        t.applied.push(`${e.node} ${e.fields.outcome} at ${at} (by ${e.fields.by})`);
        t.appliedAtUs.set(e.node, [e.fields.outcome, e.atUs]);
        return;
      }
      case "2pc.result":
      case "3pc.result":
        this.txn(e.fields.txn).result = `${e.node} heard ${e.fields.outcome} after ${e.fields.waitedMs} ms`;
        return;
      case "2pc.in-doubt":
      case "3pc.timeout":
        this.inDoubtNotes++;
        return;
      case "2pc.recover":
      case "3pc.recover":
        if (this.recoveries.length < 6) this.recoveries.push(`${at}: ${e.node} recovered from its log: ${JSON.stringify(e.fields)}`);
        return;
    }
  }

  lines(extra: string[]): string[] {
    const out: string[] = [];
    if (this.story !== undefined) out.push(BOOK[this.story]);
    out.push(...extra);
    const all = [...this.txns.entries()];
    for (const [name, t] of all.slice(0, MAX_TXN_LINES)) {
      out.push(
        `${name} (${t.key} = ${JSON.stringify(t.value)}): votes ${t.votes.join(", ") || "none"}; coordinator decided ${t.decisions.join(", then ") || "nothing"}; applied: ${t.applied.join(", ") || "nowhere"}; ${t.result ?? "its client never heard the outcome"}.`,
      );
    }
    for (const [name, t] of all.slice(0, MAX_TXN_LINES)) {
      const split = splitWindow(name, t);
      if (split !== undefined) out.push(split);
    }
    if (all.length > MAX_TXN_LINES) {
      const outcomes = all.map(([, t]) => t.result?.split(" heard ")[1]?.split(" ")[0] ?? "unfinished");
      const count = (w: string) => outcomes.filter((o) => o === w).length;
      out.push(`…and ${all.length - MAX_TXN_LINES} more; of all ${all.length}: ${count("commit")} committed, ${count("rollback") + count("abort")} ${this.protocol === "2pc" ? "rolled back" : "aborted"}, ${count("inconsistent")} inconsistent, ${count("unfinished")} unfinished.`);
    }
    if (this.inDoubtNotes > 0) out.push(`${this.inDoubtNotes} time(s) a participant's timer fired while it waited for the coordinator (${this.protocol === "2pc" ? "in doubt: it asked again, holding its locks" : "it ran the termination protocol, or asked for the outcome if it had crashed"}).`);
    out.push(...this.recoveries);
    if (this.faults.length > 0) out.push(`faults: ${this.faults.join("; ")}`);
    return out;
  }
}

/** "meanwhile: from A to B, p1 had committed t while p2, p3 had not…", when the applies lie far apart. */
function splitWindow(name: string, t: TxnStory): string | undefined {
  const times = [...t.appliedAtUs.entries()].sort((a, b) => a[1][1] - b[1][1]);
  if (times.length < 2) return undefined;
  const [outcome, firstAt] = times[0]![1];
  const later = times.filter(([, [, atUs]]) => atUs - firstAt > SPLIT_WINDOW_US).map(([n]) => n);
  if (later.length === 0) return undefined;
  const early = times.map(([n]) => n).filter((n) => !later.includes(n));
  const untilUs = t.appliedAtUs.get(later[0]!)![1];
  const seen =
    outcome === "commit"
      ? `a reader saw ${t.key} = ${JSON.stringify(t.value)} at ${early.join(", ")} while ${later.join(", ")} still held ${t.key}'s lock`
      : `${t.key} was unlocked and unchanged at ${early.join(", ")} while ${later.join(", ")} still held its lock`;
  return `meanwhile: from ${(firstAt / 1000).toFixed(1)} ms to ${(untilUs / 1000).toFixed(1)} ms ${early.join(", ")} had applied ${outcome} to ${name} and ${later.join(", ")} had not: ${seen}.`;
}
