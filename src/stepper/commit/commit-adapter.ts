/**
 * The 2PC and 3PC adapters of the stepping interface (book 2.1.1, 2.1.2): the teaching models
 * of src/protocols/ on the kernel (see commit-world.ts), their messages and timers named as
 * the book names them, each node's phase, votes, locks and durable log, and the commit
 * checkers' live verdicts (atomicity, validity, decision durability, the blocking report).
 *
 * The world is ready at once: nothing runs until a client submits a transaction.
 */
import type { PendingMessage } from "../../sim/network.js";
import type { Frame, ProtocolAdapter } from "../types.js";
import { buildCommitWorld, COMMIT_VARIANTS, submitTxn, type CommitProtocol, type CommitWorld } from "./commit-world.js";
import { commitNodeViews } from "./commit-views.js";
import { COMMIT_TIMER_NAMES, commitBookOfType, isCommitDecisive, narrateCommit } from "./commit-narrate.js";

/** A client's request and the outcome it hears: drawn in the strip on request. */
const CLIENT_TYPES = new Set(["begin", "result"]);

function adapterOf(protocol: CommitProtocol, title: string): ProtocolAdapter<CommitWorld> {
  return {
    protocol,
    title,
    variants: COMMIT_VARIANTS[protocol],
    build: (seed, variant) => buildCommitWorld(protocol, seed, variant),
    ready: () => true,
    bookName: (m: PendingMessage) => ({ book: bookOfMessage(protocol, m), detail: detailOf(m.payload) }),
    timerName: (label) => COMMIT_TIMER_NAMES[label] ?? label,
    bookOfType: (type) => commitBookOfType(protocol, type),
    bookOfSent: (msg, _type, world) => world.votes.get(msg),
    trafficOf: (type) => (CLIENT_TYPES.has(type) ? "client" : "protocol"),
    isDecisive: (event) => isCommitDecisive(protocol, event),
    nodeViews: commitNodeViews,
    narrate: (event, world) => narrateCommit(protocol, event, { typeOf: (id) => world.messageTypes.get(id), voteOf: (id) => world.votes.get(id) }),
    threats: commitThreats,
    clientAction: submitTxn,
  };
}

export const twoPcAdapter = adapterOf("2pc", "2PC — two-phase commit (book 2.1.1)");
export const threePcAdapter = adapterOf("3pc", "3PC — three-phase commit (book 2.1.2)");

function bookOfMessage(protocol: CommitProtocol, m: PendingMessage): string {
  const p = m.payload as { kind?: string; vote?: string };
  if (p.kind === "vote") return p.vote === "yes" ? "Yes" : "No";
  return commitBookOfType(protocol, m.type) ?? m.type;
}

function detailOf(payload: unknown): string {
  if (typeof payload !== "object" || payload === null) return "";
  const p = payload as Record<string, unknown>;
  const parts = [typeof p.txn === "string" ? p.txn : ""];
  if (p.key !== undefined) parts.push(`${String(p.key)}=${String(p.value)}`);
  if (typeof p.of === "string") parts.push(`of ${p.of}${p.outcome !== undefined ? `: ${String(p.outcome)}` : ""}`);
  if (typeof p.state === "string") parts.push(p.state);
  if (typeof p.outcome === "string" && p.of === undefined) parts.push(p.outcome);
  return parts.filter((s) => s !== "").join(" ");
}

/** What-if, in the book's terms: who would be left in doubt holding locks, and who would finish. */
function commitThreats(before: Frame, after: Frame): string[] {
  const lines: string[] = [];
  const waiting = (f: Frame) => f.nodes.filter((n) => n.role === "participant" && n.fields.some(([, v]) => /in doubt|uncertain|precommitted/.test(v)));
  const was = new Set(waiting(before).map((n) => n.id));
  const stuck = waiting(after);
  const seconds = (after.nowUs - before.nowUs) / 1e6;
  if (stuck.length > 0) {
    const locks = stuck.map((n) => `${n.id} (${n.fields.find(([k]) => k === "locks")?.[1] ?? "—"})`).join(", ");
    lines.push(`${seconds} s on, still without an outcome, holding locks: ${locks} — blocked`);
  } else if (was.size > 0) lines.push(`within ${seconds} s ${[...was].join(", ")} reach an outcome: nobody is blocked`);
  return lines;
}
