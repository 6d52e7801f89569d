/**
 * Each node of a 2PC/3PC world in the book's terms (2.1.1, 2.1.2), read from the processes'
 * `inspect()` (plain objects) and their disks: the coordinator's phase, the votes and Acks it
 * has, its decision; each participant's state (executing, in doubt after a Yes, uncertain,
 * precommitted, committed, rolled back…), the locks it holds and its store (once it holds a value); each client's
 * waiting transaction and last outcome; and every node's log as the disk holds it, a record
 * still waiting for its fsync marked "…" — a crash keeps only what is durable, so a down
 * node shows exactly what its restart will read.
 *
 * One transaction per node line (the one still open, else the newest), so a line fits 80
 * columns; a lock is named by its key, with its holder when that is another transaction;
 * votes read p1:Y p2:N p3:? (Yes, No, not yet).
 */
import type { CommitWorld } from "./commit-world.js";
import type { NodeView } from "../types.js";

interface CoordTxn {
  txn: string;
  phase: string;
  votes: Record<string, string>;
  decision: string | null;
  acks?: string[];
  preCommitAcks?: string[];
  outcomes?: Record<string, string>;
}

interface PartTxn {
  txn: string;
  key: string;
  state: string;
  terminating?: boolean;
}

const COORD_PHASE: Record<string, string> = {
  "logging-begin": "logging begin",
  voting: "phase 1: votes",
  canCommit: "canCommit: votes",
  "logging-preCommit": "logging preCommit",
  preCommit: "preCommit: Acks",
  "logging-decision": "deciding",
  "awaiting-acks": "decided",
  learning: "asking outcomes",
  ended: "done",
};

const PART_STATE: Record<string, string> = {
  // 2PC
  preparing: "executing",
  prepared: "in doubt (Yes)",
  applying: "applying",
  commit: "committed",
  rollback: "rolled back",
  // 3PC
  readying: "logging ready",
  uncertain: "uncertain (Yes)",
  precommitting: "logging preCommit",
  precommitted: "precommitted",
  committed: "committed",
  aborted: "aborted",
};

const OPEN_PARTICIPANT = new Set(["preparing", "prepared", "applying", "readying", "uncertain", "precommitting", "precommitted"]);

export function commitNodeViews(world: CommitWorld): NodeView[] {
  const views: NodeView[] = [coordinatorView(world)];
  for (const id of world.participants) views.push(participantView(world, id));
  for (const id of world.clientIds) views.push(clientView(world, id));
  return views;
}

function inspected<T>(world: CommitWorld, id: string): T | undefined {
  const p = world.sim.node(id).process as { inspect?: () => object } | undefined;
  return p?.inspect?.() as T | undefined;
}

function coordinatorView(world: CommitWorld): NodeView {
  const id = world.coordinator;
  const node = world.sim.node(id);
  const state = inspected<{ txns: CoordTxn[] }>(world, id);
  const t = state === undefined ? undefined : (state.txns.find((x) => x.phase !== "ended") ?? state.txns[state.txns.length - 1]);
  const fields: [string, string][] = [];
  if (t !== undefined) {
    const phase = t.phase === "awaiting-acks" && t.decision !== null ? `${decisionWord(world, t.decision)}: Acks` : (COORD_PHASE[t.phase] ?? t.phase);
    fields.push([t.txn, phase]);
    const acked = t.preCommitAcks !== undefined && t.preCommitAcks.length > 0;
    if (t.phase === "voting" || t.phase === "canCommit" || t.phase === "logging-begin" || (t.phase === "logging-decision" && !acked)) fields.push(["votes", votesText(world, t.votes)]);
    else if (t.phase === "preCommit" || t.phase === "logging-preCommit" || t.phase === "logging-decision") fields.push(["acks", listOrDash(t.preCommitAcks)]);
    else if (t.phase === "awaiting-acks" || t.phase === "learning") fields.push(["acks", listOrDash(t.acks ?? Object.keys(t.outcomes ?? {}))]);
    else if (t.decision !== null) fields.push(["decision", t.decision]);
  }
  fields.push(["log", logText(world, id, "coordinator.log", t?.txn)]);
  return { id, status: node.status, role: "coordinator", fields };
}

function participantView(world: CommitWorld, id: string): NodeView {
  const node = world.sim.node(id);
  const state = inspected<{ store: Record<string, unknown>; heldLocks: Record<string, string>; txns: PartTxn[] }>(world, id);
  const fields: [string, string][] = [];
  let txn: string | undefined;
  if (state !== undefined) {
    const t = state.txns.find((x) => OPEN_PARTICIPANT.has(x.state)) ?? state.txns[state.txns.length - 1];
    txn = t?.txn;
    if (t !== undefined) fields.push([t.txn, `${PART_STATE[t.state] ?? t.state}${t.terminating === true && OPEN_PARTICIPANT.has(t.state) ? ", asking peers" : ""}`]);
    // A lock held by the transaction shown is named by its key alone.
    const locks = Object.entries(state.heldLocks).map(([k, holder]) => (holder === txn ? k : `${k}:${holder}`));
    fields.push(["locks", locks.length === 0 ? "—" : locks.join(" ")]);
    const store = Object.entries(state.store).map(([k, v]) => `${k}=${String(v)}`);
    if (store.length > 0) fields.push(["store", store.join(" ")]);
  }
  fields.push(["log", logText(world, id, "participant.log", txn)]);
  return { id, status: node.status, role: "participant", fields };
}

function clientView(world: CommitWorld, id: string): NodeView {
  const node = world.sim.node(id);
  const state = inspected<{ waitingFor: string | null; sinceMs: number | null; results: { txn: string; outcome: string }[] }>(world, id);
  const fields: [string, string][] = [];
  if (state !== undefined) {
    if (state.waitingFor !== null) fields.push(["waits for", `${state.waitingFor} since ${state.sinceMs ?? 0}ms`]);
    const last = state.results[state.results.length - 1];
    fields.push(["last", last === undefined ? "—" : `${last.txn} ${last.outcome}`]);
  }
  return { id, status: node.status, role: "client", fields };
}

function decisionWord(world: CommitWorld, decision: string): string {
  if (world.protocol === "3pc") return decision === "commit" ? "doCommit" : "abort";
  return decision === "commit" ? "Commit" : "Rollback";
}

function votesText(world: CommitWorld, votes: Record<string, string>): string {
  return world.participants.map((p) => `${p}:${votes[p] === "yes" ? "Y" : votes[p] === "no" ? "N" : "?"}`).join(" ");
}

function listOrDash(xs: readonly string[] | undefined): string {
  return xs === undefined || xs.length === 0 ? "—" : xs.join(" ");
}

interface LogRecord {
  rec: string;
  txn?: string;
  decision?: string;
  outcome?: string;
}

/** The log records of `txn` (or the last ones), durable ones plain and those awaiting fsync marked "…". */
function logText(world: CommitWorld, id: string, file: string, txn: string | undefined): string {
  const disk = world.sim.node(id).disk;
  const all = disk.read(file) as readonly LogRecord[];
  const durable = disk.durableRecords(file).length;
  const words: string[] = [];
  all.forEach((r, i) => {
    if (txn !== undefined && r.txn !== txn) return;
    const what = r.rec === "decision" ? (r.decision ?? "decision") : r.rec === "outcome" ? (r.outcome ?? "outcome") : r.rec;
    words.push(`${what}${i >= durable ? "…" : ""}`);
  });
  const shown = words.slice(-3);
  if (shown.length === 0) return "—";
  return `${words.length > shown.length ? "… " : ""}${shown.join(" ")}`;
}
