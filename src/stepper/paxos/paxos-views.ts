/**
 * Each Paxos node's state in the book's terms, read from the process's `inspect()` (what it
 * holds in memory) and, for an acceptor, from its disk (what a crash would leave): an acceptor
 * whose memory is ahead of its disk shows both — the window the broken twin
 * `promise-before-fsync` answers in. A crashed node shows what its disk holds.
 *
 * Kept short so a node line fits 80 columns: a proposer's fields depend on its phase.
 */
import type { SimNode } from "../../sim/simulator.js";
import { unreachable } from "../../sim/errors.js";
import { ACCEPTOR_FILE, LEARNER_FILE, PROPOSER_FILE, majority, type ProposerPhase } from "../../protocols/paxos/index.js";
import type { NodeView } from "../types.js";

const ACCEPTORS = 3;

interface AcceptorRecord {
  promised: number;
  acceptedBallot: number;
  acceptedValue: string | number | null;
}

function last<T>(records: readonly unknown[]): T | undefined {
  return records[records.length - 1] as T | undefined;
}

function proposal(ballot: unknown, value: unknown): string {
  return Number(ballot) > 0 ? `[${String(ballot)}, ${String(value)}]` : "—";
}

function roleOf(id: string): "proposer" | "acceptor" | "learner" {
  return id.startsWith("p") ? "proposer" : id.startsWith("a") ? "acceptor" : "learner";
}

export function paxosNodeView(node: SimNode): NodeView {
  const role = roleOf(node.id);
  const base = { id: node.id, status: node.status, role };
  const live = node.process as { inspect?: () => Record<string, unknown> } | undefined;
  const state = node.status === "down" ? undefined : live?.inspect?.();
  switch (role) {
    case "acceptor":
      return { ...base, fields: acceptorFields(node, state) };
    case "learner": {
      const disk = last<{ value: unknown }>(node.disk.durableRecords(LEARNER_FILE));
      if (state === undefined) return { ...base, fields: [["disk: learned", disk === undefined ? "—" : String(disk.value)]] };
      return { ...base, fields: [["learned", state.learnedValue === null ? "—" : `${String(state.learnedValue)}${state.durable === true ? "" : " (fsync pending)"}`]] };
    }
    case "proposer":
      if (state === undefined) return { ...base, fields: [["disk: last round", String(last<{ round: number }>(node.disk.durableRecords(PROPOSER_FILE))?.round ?? "—")]] };
      return { ...base, fields: proposerFields(state) };
  }
}

function acceptorFields(node: SimNode, state: Record<string, unknown> | undefined): [string, string][] {
  const disk = last<AcceptorRecord>(node.disk.durableRecords(ACCEPTOR_FILE)) ?? { promised: 0, acceptedBallot: 0, acceptedValue: null };
  const onDisk: [string, string][] = [
    ["promised", disk.promised > 0 ? String(disk.promised) : "—"],
    ["accepted", proposal(disk.acceptedBallot, disk.acceptedValue)],
  ];
  if (state === undefined) return onDisk.map(([k, v]) => [`disk: ${k}`, v]);
  const promised = Number(state.promisedBallot) > 0 ? String(state.promisedBallot) : "—";
  const accepted = proposal(state.acceptedBallot, state.acceptedValue);
  const behind = promised !== onDisk[0]![1] || accepted !== onDisk[1]![1];
  return [["promised", promised], ["accepted", accepted], ...(behind ? ([["disk", `${onDisk[0]![1]} ${onDisk[1]![1]}`]] as [string, string][]) : [])];
}

function proposerFields(s: Record<string, unknown>): [string, string][] {
  const need = majority(ACCEPTORS);
  const phase = s.phase as ProposerPhase;
  const ballot: [string, string] = ["ballot", Number(s.ballot) > 0 ? String(s.ballot) : "—"];
  switch (phase) {
    case "preparing":
      return [["phase", "1 prepare"], ballot, ["promises", `${String(s.promises)}/${need}`]];
    case "accepting":
      return [["phase", "2 accept"], ballot, ["value", String(s.proposal)], ["accepted", `${String(s.accepted)}/${need}`]];
    case "announcing":
    case "done":
      return [["phase", phase], ballot, ["chosen", String(s.chosenValue)]];
    case "idle":
    case "backoff":
    case "deferred":
      return [["phase", phase], ballot, ["own value", String(s.value)], ["rounds", String(s.roundsTried)]];
    default:
      return unreachable(phase);
  }
}
