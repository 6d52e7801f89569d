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
import type { TraceFieldsOf } from "../../sim/trace-schema.js";
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
      return `the network is cut: ${links(e.fields.links)}`;
    case "heal":
      return `the network heals: ${links(e.fields.links)}`;
    default:
      return e.kind.startsWith(`${protocol}.`) ? narrateAnnotation(protocol, e, n) : undefined;
  }
}

function narrateAnnotation(protocol: CommitProtocol, e: TraceEvent, n: string): string | undefined {
  const held = (locks: readonly string[]) => (locks.length > 0 ? `${locks.join(", ")}'s lock` : "no lock");
  switch (e.kind) {
    case "2pc.request":
    case "3pc.request":
      return `${n} asks the coordinator for transaction ${e.fields.txn}: ${e.fields.key}=${e.fields.value}`;
    case "2pc.begin":
      return `${n} logged begin ${e.fields.txn}: phase 1 — Prepare to every participant`;
    case "3pc.begin":
      return `${n} logged begin ${e.fields.txn}: canCommit to every participant`;
    case "2pc.vote":
    case "3pc.vote": {
      const f = e.fields;
      if (f.vote !== "yes") return `${n} votes No on ${f.txn} (${f.reason}), aborts alone`;
      return protocol === "2pc"
        ? `${n} logged undo/redo of ${f.txn}, votes Yes: in doubt, holding ${held(f.locks)}`
        : `${n} logged ready for ${f.txn}, votes Yes: uncertain, holding ${held(f.locks)}`;
    }
    case "3pc.phase":
      return `${n} logged preCommit for ${e.fields.txn} (all voted Yes): preCommit to all`;
    case "3pc.precommit":
      return `${n} executed ${e.fields.txn}, logged undo/redo, acks: precommitted`;
    case "2pc.decision":
      return `${n} logged ${e.fields.decision === "commit" ? "Commit" : "Rollback"} for ${e.fields.txn} (${e.fields.reason}): phase 2`;
    case "3pc.decision":
      return `${n} logged ${e.fields.decision === "commit" ? "doCommit" : "abort"} for ${e.fields.txn} (${e.fields.reason})`;
    case "2pc.apply":
    case "3pc.apply": {
      const f = e.fields;
      return `${n} ${f.outcome === "commit" ? "commits" : protocol === "2pc" ? "rolls back" : "aborts"} ${f.txn} ${APPLIED_BY[f.by] ?? f.by}; unlocks`;
    }
    case "2pc.in-doubt":
      return `${n} still in doubt about ${e.fields.txn}, holding ${held(e.fields.locks)}: asks ${list(e.fields.waitingFor)} for the decision`;
    case "3pc.timeout":
      return `${n} times out ${e.fields.state} on ${e.fields.txn}, holding ${held(e.fields.locks)}: ${e.fields.action}`;
    case "3pc.terminate":
      return narrateTermination(n, e.fields);
    case "2pc.forgotten":
      return `${n} gets ${e.fields.decision} for ${e.fields.txn}, which it has no record of`;
    case "2pc.end":
    case "3pc.end":
      return `${n} has every Ack: ${e.fields.txn} is complete (${e.fields.outcome})`;
    case "2pc.result":
    case "3pc.result":
      return `${n} hears ${e.fields.txn}'s outcome: ${e.fields.outcome} (after ${e.fields.waitedMs} ms)`;
    case "2pc.recover":
    case "3pc.recover": {
      const f = e.fields;
      if (f.role === "coordinator") return coordinatorRecovery(n, f.decisions, f.presumedAbort, "learning" in f ? f.learning : []);
      return `${n} recovered its log: in doubt about ${list(f.inDoubt)}${f.locks.length > 0 ? `, holding ${list(f.locks)}` : ""}`;
    }
    default:
      return undefined;
  }
}

/** A termination round's decision, with the rule of the literature that made it (three-phase-commit/termination.ts). */
function narrateTermination(n: string, f: TraceFieldsOf<"3pc.terminate">): string {
  const states = f.states.map(([p, st]) => `${p} ${st}`).join(", ");
  const someUncertain = f.states.some(([, st]) => st === "uncertain" || st === "unknown");
  const rule: Record<string, string> = {
    TR1: "one aborted: abort",
    TR2: "one committed: commit",
    TR3: "every one uncertain: abort",
    TR4: someUncertain ? "some precommitted: preCommit to the uncertain, then commit" : "every one precommitted: commit",
  };
  const why = `${rule[f.rule] ?? f.decision} (${f.rule})`;
  if (f.recovered) return `${n}: every site recovered, none decided ${f.txn}: ${why} — ${states}`;
  const left = f.excluded.length > 0 ? `; ${list(f.excluded)} left out (down or recovered)` : "";
  return `${n}, recovery coordinator (ballot ${f.ballot}): ${why} — ${states}${left}`;
}

function coordinatorRecovery(n: string, decisions: readonly (readonly [string, string])[], presumedAbort: readonly string[], learning: readonly string[]): string {
  const decided = decisions.map(([txn, decision]) => `${txn}:${decision}`);
  const parts = [`decided ${decided.length === 0 ? "nothing" : decided.join(" ")} (sent again)`];
  if (presumedAbort.length > 0) parts.push(`undecided ${list(presumedAbort)}: presumed abort`);
  if (learning.length > 0) parts.push(`past preCommit ${list(learning)}: it asks the participants`);
  return `${n} recovered its log: ${parts.join("; ")}`;
}

function list(xs: readonly string[]): string {
  return xs.length > 0 ? xs.join(", ") : "nothing";
}

function links(ls: readonly string[]): string {
  return ls.length > 0 ? ls.map((l) => l.replace(">", "→")).join(" ") : "no link changed";
}
