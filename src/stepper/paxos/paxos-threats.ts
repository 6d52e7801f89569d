/**
 * The Paxos reading of a what-if preview, from the node views before and after the run-ahead:
 * a proposal a majority of acceptors holds (chosen: every later proposal must carry its
 * value), and what the learners and proposers hold once the fork has run on.
 */
import type { Frame, NodeView } from "../types.js";

function field(v: NodeView, name: string): string | undefined {
  return v.fields.find(([k]) => k === name || k === `disk: ${name}`)?.[1];
}

/** Acceptors per accepted proposal "[b, v]", for the acceptors of a frame. */
function acceptances(f: Frame): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const n of f.nodes.filter((x) => x.role === "acceptor")) {
    const p = field(n, "accepted");
    if (p !== undefined && p !== "—") by.set(p, [...(by.get(p) ?? []), n.id]);
  }
  return by;
}

export function paxosThreats(before: Frame, after: Frame): string[] {
  const lines: string[] = [];
  const majority = Math.floor(before.nodes.filter((x) => x.role === "acceptor").length / 2) + 1;
  for (const [p, who] of acceptances(before)) if (who.length >= majority) lines.push(`${p} is accepted by ${who.join(", ")} — a majority: it is chosen, and any majority a later prepare reaches includes one of them`);
  const learned = after.nodes.filter((n) => n.role === "learner").map((n) => [n.id, field(n, "learned")] as const);
  const chosen = after.nodes.filter((n) => n.role === "proposer" && field(n, "chosen") !== undefined).map((n) => `${n.id} saw ${field(n, "chosen")} chosen`);
  const seconds = (after.nowUs - before.nowUs) / 1e6;
  for (const [id, v] of learned) lines.push(v === undefined || v === "—" ? `${id} has learned nothing ${seconds} s later` : `${id} has learned ${v} ${seconds} s later`);
  if (chosen.length > 0) lines.push(chosen.join("; "));
  return lines;
}
