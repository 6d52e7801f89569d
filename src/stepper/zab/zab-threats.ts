/**
 * The ZAB reading of a what-if preview, from the node views before and after the run-ahead:
 * txns that only one server has logged (and whether they survive), logs cut back, leadership
 * moving, and whether the committed history is kept.
 */
import type { Frame, NodeView } from "../types.js";

function field(v: NodeView, name: string): string | undefined {
  return v.fields.find(([k]) => k === name)?.[1];
}

function zxidOf(v: NodeView, name: string): bigint | undefined {
  const s = field(v, name);
  return s !== undefined && /^0x[0-9a-f]+$/i.test(s) ? BigInt(s) : undefined;
}

const hex = (z: bigint) => `0x${z.toString(16)}`;

function servers(f: Frame): NodeView[] {
  return f.nodes.filter((n) => n.role !== "client");
}

export function zabThreats(before: Frame, after: Frame): string[] {
  const lines: string[] = [];
  const b = servers(before);
  const a = new Map(servers(after).map((n) => [n.id, n]));
  for (const n of b) {
    const last = zxidOf(n, "last");
    if (last === undefined) continue;
    const others = b.filter((o) => o !== n).map((o) => zxidOf(o, "last") ?? 0n);
    if (others.every((o) => o < last)) {
      const kept = [...a.values()].some((o) => o.id !== n.id && (zxidOf(o, "last") ?? 0n) >= last);
      lines.push(`${hex(last)} is logged only on ${n.id}: ${kept ? "another server has it after the run-ahead" : "no other server has it after the run-ahead — if it was never committed it will be truncated"}`);
    }
    const lastAfter = a.get(n.id) !== undefined ? zxidOf(a.get(n.id)!, "last") : undefined;
    if (lastAfter !== undefined && lastAfter < last) lines.push(`${n.id}'s log is cut back from ${hex(last)} to ${hex(lastAfter)} (TRUNC: what it held beyond was never committed)`);
  }
  const leaderBefore = b.find((n) => n.role === "leader" && n.status === "up")?.id;
  const leaderAfter = [...a.values()].find((n) => n.role === "leader" && n.status === "up")?.id;
  if (leaderAfter === undefined) lines.push(`no server leads ${(after.nowUs - before.nowUs) / 1e6} s later: writes wait`);
  else if (leaderAfter !== leaderBefore) lines.push(`leadership moves${leaderBefore !== undefined ? ` from ${leaderBefore}` : ""} to ${leaderAfter} (epoch ${field(a.get(leaderAfter)!, "epoch") ?? "?"})`);
  const committed = b.map((n) => zxidOf(n, "commit") ?? 0n).reduce((x, y) => (y > x ? y : x), 0n);
  const durable = after.verdicts.find((v) => v.checker === "zab.committed-durability");
  if (committed > 0n && durable?.ok === true) lines.push(`✓ no committed txn is lost (committed up to ${hex(committed)})`);
  return lines;
}
