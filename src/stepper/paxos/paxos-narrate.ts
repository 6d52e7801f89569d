/**
 * Narration of a single-decree Paxos run in the book's vocabulary ("From Paxos to ZooKeeper",
 * 2.2): one line per trace event worth one, generated from the event (never a fixed script).
 * Message kinds already are the book's names (prepare, promise, accept, accepted, nack,
 * chosen, learned); the `paxos.*` annotations say what each node decided and why.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { narrateLifecycle } from "../narrate-common.js";

/** What each message does, said once when it is received. */
const MESSAGE_NOTES: Record<string, string> = {
  prepare: "phase 1a",
  promise: "phase 1b",
  accept: "phase 2a",
  accepted: "phase 2b",
  nack: "a refusal: it promised a higher ballot",
  chosen: "the value is chosen",
  learned: "the learner holds it durably",
};

/** The book's name of a traced message type (a Paxos message's kind is its book name). */
export function paxosBookOfType(type: string): string | undefined {
  return MESSAGE_NOTES[type] !== undefined ? type : undefined;
}

export function proposalText(ballot: unknown, value: unknown): string {
  return `[${String(ballot)}, ${String(value)}]`;
}

export function narratePaxos(e: TraceEvent): string | undefined {
  const n = e.node;
  switch (e.kind) {
    case "deliver": {
      const note = MESSAGE_NOTES[e.detail ?? ""];
      return note === undefined ? undefined : `${n} receives ${e.detail} from ${e.peer} (${note})`;
    }
    case "timer":
      return e.detail === "paxos.start" ? `${n}'s start timer fires: it begins phase 1` : e.detail === "paxos.retry" ? `${n}'s backoff ends: it tries again with a higher ballot` : undefined;
    case "paxos.prepare":
      return `${n} picks ballot ${e.fields.ballot} (above any it used) and sends prepare(${e.fields.ballot}) to every acceptor`;
    case "paxos.promised":
      return e.fields.acceptedBallot > 0
        ? `${n} promises ballot ${e.fields.ballot} to ${e.peer} (fsynced) and reports its accepted proposal ${proposalText(e.fields.acceptedBallot, e.fields.acceptedValue)}`
        : `${n} promises ballot ${e.fields.ballot} to ${e.peer} (fsynced); it has accepted nothing yet`;
    case "paxos.propose":
      if (e.fields.adopted === true) return `${n} has a majority of promises; one reports ${proposalText(e.fields.adoptedFrom, e.fields.value)}, so it proposes ${proposalText(e.fields.ballot, e.fields.value)} — that value, not its own (P2c)`;
      if (e.fields.adoptedFrom > 0) return `${n} has a majority of promises, one reporting a proposal of ballot ${e.fields.adoptedFrom} — yet it proposes its own ${proposalText(e.fields.ballot, e.fields.value)} (the broken twin ignores P2c)`;
      return `${n} has a majority of promises and none reports an accepted proposal: it proposes its own ${proposalText(e.fields.ballot, e.fields.value)}`;
    case "paxos.accepted":
      return `${n} accepts ${proposalText(e.fields.ballot, e.fields.value)} (fsynced) and tells ${e.peer} and the learners`;
    case "paxos.chosen":
      return `${n} sees a majority accept ${proposalText(e.fields.ballot, e.fields.value)}: ${e.fields.value} is chosen`;
    case "paxos.learned":
      return `${n} learns ${e.fields.value} (${e.fields.via === "accepted" ? "it saw a majority of acceptances" : "a proposer told it"}), durably`;
    case "paxos.preempted":
      return `${n}'s ballot ${e.fields.ballot} is refused: an acceptor promised ballot ${e.fields.promised} — a higher ballot pre-empts a lower one`;
    case "paxos.timeout":
      return `${n}'s ${e.fields.phase} phase of ballot ${e.fields.ballot} timed out: it will retry higher`;
    case "paxos.proposer.deferred":
      return `${n} stops starting rounds: ${e.fields.to} is the distinguished proposer`;
    case "paxos.acceptor.recovered":
      return e.atUs === 0 ? undefined : `${n} reads its disk back: promised ${e.fields.promised}, accepted ${e.fields.acceptedBallot > 0 ? proposalText(e.fields.acceptedBallot, e.fields.acceptedValue) : "nothing"}`;
    case "paxos.learner.recovered":
      return e.atUs === 0 ? undefined : `${n} reads its disk back: ${e.fields.value === null ? "no learned value" : `the learned value ${e.fields.value}`}`;
    case "paxos.proposer.input":
      return e.atUs === 0 ? undefined : `${n} reads its disk back: the last round it used is ${e.fields.round}, so it never reuses a ballot`;
    default:
      return narrateLifecycle(e);
  }
}
