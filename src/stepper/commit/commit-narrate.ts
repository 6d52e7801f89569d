/**
 * Narration of a 2PC or 3PC run in the book's vocabulary (2.1.1, 2.1.2): one line per trace
 * event worth a line, generated from the event (the protocols' `2pc.*` / `3pc.*` annotations,
 * deliveries, losses, timers and faults), never from a fixed script. Message names are the
 * book's: the transaction inquiry (Prepare), the Yes/No vote, Commit / Rollback and Ack for 2PC;
 * canCommit, preCommit, doCommit / abort for 3PC.
 *
 * Resend timers, client requests and results are left out: the annotations say it (the
 * client's ask, the coordinator's begin, the client hearing the outcome), and a client's
 * retries would repeat it.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { CommitProtocol } from "./commit-world.js";

/** Book names of the message types (the payloads' `kind`). */
const BOOK: Record<CommitProtocol, Record<string, string>> = {
  "2pc": { begin: "Begin", result: "Result", prepare: "Prepare", vote: "Vote", commit: "Commit", rollback: "Rollback", ack: "Ack", decisionRequest: "DecisionReq" },
  "3pc": { begin: "Begin", result: "Result", canCommit: "canCommit", vote: "Vote", preCommit: "preCommit", doCommit: "doCommit", abort: "abort", ack: "Ack", stateRequest: "StateReq", state: "State" },
};

const ON_DELIVER: Record<CommitProtocol, Record<string, string>> = {
  "2pc": {
    prepare: "phase 1's inquiry: execute, log, vote",
    vote: "phase 1's answer",
    commit: "phase 2: commit, unlock, Ack",
    rollback: "phase 2: undo, unlock, Ack",
    ack: "it applied the decision",
    decisionRequest: "in doubt, it asks for the outcome",
  },
  "3pc": {
    canCommit: "phase 1: could it commit? Yes or No",
    vote: "canCommit's answer",
    preCommit: "phase 2: execute, log, Ack",
    doCommit: "phase 3: commit, unlock, Ack",
    abort: "undo, unlock, Ack",
    ack: "an Ack",
    stateRequest: "its timer fired: how far did you get?",
    state: "a peer's state (termination)",
  },
};

export function commitBookOfType(protocol: CommitProtocol, type: string): string | undefined {
  return BOOK[protocol][type];
}

export const COMMIT_TIMER_NAMES: Record<string, string> = {
  txn: "client starts its transaction",
  "client-retry": "client resends its request",
  "resend-prepare": "resend Prepare to the silent",
  "resend-canCommit": "resend canCommit to the silent",
  "resend-preCommit": "resend preCommit to the un-acked",
  "resend-decision": "resend the decision to the un-acked",
  "vote-timeout": "vote timeout (a vote missing: abort)",
  "ack-timeout": "preCommit Ack timeout (abort)",
  "in-doubt": "in doubt: ask for the decision",
  "3pc-timeout": "timeout: the coordinator is silent (termination protocol)",
  termination: "termination: decide from the answers",
  "ask-outcome": "ask participants their outcome",
  "log-retry": "disk full: write the log record again",
};

const NARRATED_TIMERS: Record<string, string> = {
  "vote-timeout": "the coordinator's vote timeout fires: a vote is missing",
  "ack-timeout": "the coordinator's Ack timeout fires: a preCommit Ack is missing",
};

const APPLIED_BY: Record<string, string> = {
  coordinator: "(the coordinator's word)",
  doCommit: "(doCommit)",
  abort: "(the coordinator's abort)",
  peer: "(a peer's word)",
  backup: "(the recovery coordinator's word)",
  "vote-no": "(its own No)",
  termination: "(termination protocol)",
  timeout: "(alone, on its timeout)",
};

/** What the narration reads besides the event: a message's type and, for a vote, its value, by message id. */
export interface CommitNarrationContext {
  typeOf(msg: number): string | undefined;
  voteOf(msg: number): "Yes" | "No" | undefined;
}

/** The events a learner must not miss: a decision logged, an outcome applied (on the coordinator's word or alone). */
export function isCommitDecisive(protocol: CommitProtocol, e: TraceEvent): boolean {
  return e.kind === `${protocol}.decision` || e.kind === `${protocol}.apply`;
}

/** A message's book name by id: a vote is Yes or No, anything else its type's name. */
function bookOfMessage(protocol: CommitProtocol, msg: number, ctx: CommitNarrationContext): string | undefined {
  return ctx.voteOf(msg) ?? commitBookOfType(protocol, ctx.typeOf(msg) ?? "");
}

export function narrateCommit(protocol: CommitProtocol, e: TraceEvent, ctx: CommitNarrationContext): string | undefined {
  const n = e.node;
  switch (e.kind) {
    case "deliver": {
      // A 3PC decision from a participant: a recovery coordinator's (termination), which needs no Ack.
      const fromRecovery = protocol === "3pc" && (e.detail === "doCommit" || e.detail === "abort") && /^p\d+$/.test(e.peer ?? "");
      const what = fromRecovery ? `the recovery coordinator's decision: ${e.detail === "doCommit" ? "commit" : "undo"}, unlock` : ON_DELIVER[protocol][e.detail ?? ""];
      return what === undefined ? undefined : `${n} receives ${bookOfMessage(protocol, e.id ?? -1, ctx)} from ${e.peer} — ${what}`;
    }
    case "drop":
      return `${bookOfMessage(protocol, e.id ?? -1, ctx) ?? "a message"} ${e.peer}→${n} is lost (${e.detail ?? "dropped"})`;
    case "timer":
      return NARRATED_TIMERS[e.detail ?? ""] === undefined ? undefined : `${NARRATED_TIMERS[e.detail ?? ""]}`;
    case "crash":
      return `${n} crashes: memory and timers gone; its log keeps what was fsynced`;
    case "restart":
      return `${n} restarts and reads its log back`;
    case "pause":
      return `${n} is paused: it keeps its state but does nothing`;
    case "resume":
      return `${n} resumes`;
    case "partition":
      return `the network is cut: ${links(e.fields?.links)}`;
    case "heal":
      return `the network heals: ${links(e.fields?.links)}`;
    default:
      return e.kind.startsWith(`${protocol}.`) ? narrateAnnotation(protocol, e.kind.slice(4), n, e.fields ?? {}) : undefined;
  }
}

function narrateAnnotation(protocol: CommitProtocol, kind: string, n: string, f: Record<string, unknown>): string | undefined {
  const txn = String(f.txn);
  const locks = Array.isArray(f.locks) && f.locks.length > 0 ? `${f.locks.join(", ")}'s lock` : "no lock";
  switch (kind) {
    case "request":
      return `${n} asks the coordinator for transaction ${txn}: ${String(f.key)}=${String(f.value)}`;
    case "begin":
      return protocol === "2pc"
        ? `${n} logged begin ${txn}: phase 1 — Prepare to every participant`
        : `${n} logged begin ${txn}: canCommit to every participant`;
    case "vote":
      if (f.vote !== "yes") return `${n} votes No on ${txn} (${String(f.reason)}), aborts alone`;
      return protocol === "2pc"
        ? `${n} logged undo/redo of ${txn}, votes Yes: in doubt, holding ${locks}`
        : `${n} logged ready for ${txn}, votes Yes: uncertain, holding ${locks}`;
    case "phase":
      return `${n} logged preCommit for ${txn} (all voted Yes): preCommit to all`;
    case "precommit":
      return `${n} executed ${txn}, logged undo/redo, acks: precommitted`;
    case "decision":
      return protocol === "2pc"
        ? `${n} logged ${f.decision === "commit" ? "Commit" : "Rollback"} for ${txn} (${String(f.reason)}): phase 2`
        : `${n} logged ${f.decision === "commit" ? "doCommit" : "abort"} for ${txn} (${String(f.reason)})`;
    case "apply":
      return `${n} ${f.outcome === "commit" ? "commits" : protocol === "2pc" ? "rolls back" : "aborts"} ${txn} ${APPLIED_BY[String(f.by)] ?? String(f.by)}; unlocks`;
    case "in-doubt":
      return `${n} still in doubt about ${txn}, holding ${locks}: asks ${list(f.waitingFor)} for the decision`;
    case "timeout":
      return `${n} times out ${String(f.state)} on ${txn}, holding ${locks}: ${String(f.action)}`;
    case "terminate":
      return narrateTermination(n, txn, f);
    case "forgotten":
      return `${n} gets ${String(f.decision)} for ${txn}, which it has no record of`;
    case "end":
      return `${n} has every Ack: ${txn} is complete (${String(f.outcome)})`;
    case "result":
      return `${n} hears ${txn}'s outcome: ${String(f.outcome)} (after ${String(f.waitedMs)} ms)`;
    case "recover":
      return f.role === "coordinator" ? coordinatorRecovery(n, f) : `${n} recovered its log: in doubt about ${list(f.inDoubt)}${Array.isArray(f.locks) && f.locks.length > 0 ? `, holding ${list(f.locks)}` : ""}`;
    default:
      return undefined;
  }
}

/** A termination round's decision, with the rule of the literature that made it (three-phase-commit/termination.ts). */
function narrateTermination(n: string, txn: string, f: Record<string, unknown>): string {
  const pairs = Array.isArray(f.states) ? f.states.filter((s): s is [unknown, unknown] => Array.isArray(s)) : [];
  const states = pairs.map(([p, st]) => `${String(p)} ${String(st)}`).join(", ");
  const someUncertain = pairs.some(([, st]) => st === "uncertain" || st === "unknown");
  const rule: Record<string, string> = {
    TR1: "one aborted: abort",
    TR2: "one committed: commit",
    TR3: "every one uncertain: abort",
    TR4: someUncertain ? "some precommitted: preCommit to the uncertain, then commit" : "every one precommitted: commit",
  };
  const why = `${rule[String(f.rule)] ?? String(f.decision)} (${String(f.rule)})`;
  if (f.recovered === true) return `${n}: every site recovered, none decided ${txn}: ${why} — ${states}`;
  const left = Array.isArray(f.excluded) && f.excluded.length > 0 ? `; ${list(f.excluded)} left out (down or recovered)` : "";
  return `${n}, recovery coordinator (ballot ${String(f.ballot)}): ${why} — ${states}${left}`;
}

function coordinatorRecovery(n: string, f: Record<string, unknown>): string {
  const decided = Array.isArray(f.decisions) ? f.decisions.map((d) => (Array.isArray(d) ? `${String(d[0])}:${String(d[1])}` : String(d))) : [];
  const parts = [`decided ${decided.length === 0 ? "nothing" : decided.join(" ")} (sent again)`];
  if (Array.isArray(f.presumedAbort) && f.presumedAbort.length > 0) parts.push(`undecided ${list(f.presumedAbort)}: presumed abort`);
  if (Array.isArray(f.learning) && f.learning.length > 0) parts.push(`past preCommit ${list(f.learning)}: it asks the participants`);
  return `${n} recovered its log: ${parts.join("; ")}`;
}

function list(xs: unknown): string {
  return Array.isArray(xs) && xs.length > 0 ? xs.map(String).join(", ") : "nothing";
}

function links(ls: unknown): string {
  return Array.isArray(ls) && ls.length > 0 ? ls.map((l) => String(l).replace(">", "→")).join(" ") : "no link changed";
}
