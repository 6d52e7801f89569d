/**
 * The Multi-Paxos reading of a what-if preview, from the node views before and after the
 * run-ahead: where leadership goes, slots that only one replica has accepted (what a new
 * leader would find of them), and slots that end up as no-ops.
 */
import type { Frame, NodeView } from "../types.js";

function field(v: NodeView, name: string): string | undefined {
  return v.fields.find(([k]) => k === name)?.[1];
}

function replicas(f: Frame): NodeView[] {
  return f.nodes.filter((n) => n.role !== "client");
}

/** "0:c1#1 1:noop" (or "… 4:noop") as slot → command. */
function slots(text: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of (text ?? "").split(" ")) {
    const m = /^(\d+):(.+)$/.exec(item);
    if (m !== null) out.set(m[1]!, m[2]!);
  }
  return out;
}

export function multiPaxosThreats(before: Frame, after: Frame): string[] {
  const lines: string[] = [];
  const seconds = (after.nowUs - before.nowUs) / 1e6;
  const openBy = new Map<string, string[]>();
  for (const n of replicas(before).filter((x) => x.status !== "down")) for (const [slot, cmd] of slots(field(n, "open"))) openBy.set(`${slot}:${cmd}`, [...(openBy.get(`${slot}:${cmd}`) ?? []), n.id]);
  for (const [slot, who] of openBy) if (who.length === 1) lines.push(`slot ${slot.replace(":", " (")}) is accepted only by ${who[0]}: a new leader whose majority misses it fills the slot with a no-op`);
  const leaderBefore = replicas(before).find((n) => n.role === "leader" && n.status === "up");
  const leaderAfter = replicas(after).find((n) => n.role === "leader" && n.status === "up");
  if (leaderAfter === undefined) lines.push(`no replica leads ${seconds} s later: commands wait`);
  else if (leaderAfter.id !== leaderBefore?.id) lines.push(`leadership moves${leaderBefore !== undefined ? ` from ${leaderBefore.id}` : ""} to ${leaderAfter.id} (ballot ${field(leaderAfter, "ballot") ?? "?"}), after its phase 1`);
  const known = new Set(replicas(before).flatMap((n) => [...slots(field(n, "log"))].map(([s, c]) => `${s}:${c}`)));
  const noops = new Set(replicas(after).flatMap((n) => [...slots(field(n, "log"))].filter(([s, c]) => c === "noop" && !known.has(`${s}:${c}`)).map(([s]) => s)));
  if (noops.size > 0) lines.push(`slot(s) ${[...noops].join(", ")} become no-ops: gaps a new leader filled`);
  return lines;
}
