/**
 * Each Multi-Paxos node's state in the book's terms. Replicas, from `inspect()`: the ballot it
 * leads with or has promised, the leader it follows, its log of chosen commands in slot order
 * (the last few), the slots it accepted that it has not seen chosen, its key-value state and
 * the master lease. A crashed replica shows what its disk holds (its promise and acceptances;
 * the chosen log is volatile and learned again). Clients: the replica they talk to and their
 * last operations with their outcome, folded from the trace (`multipaxos.client.*`).
 */
import type { SimNode } from "../../sim/simulator.js";
import type { TraceEvent } from "../../sim/trace.js";
import { isTorn } from "../../sim/disk.js";
import type { NodeView } from "../types.js";

/** Chosen slots shown per replica (older ones are summed up as "…"). */
const LOG_SHOWN = 4;
const OPS_KEPT = 2;

interface ClientOp {
  reqId: number;
  text: string;
  outcome: string;
}

/** The clients' operations and their outcomes, from the trace. */
export class ClientOps {
  private readonly ops = new Map<string, ClientOp[]>();

  constructor(clients: readonly string[]) {
    for (const c of clients) this.ops.set(c, []);
  }

  static readonly KINDS = ["multipaxos.client.invoke", "multipaxos.client.complete"] as const;

  onEvent(e: TraceEvent<(typeof ClientOps.KINDS)[number]>): void {
    const list = this.ops.get(e.node); // by node: a restarted client annotates a new identity ("c1/3")
    if (list === undefined) return;
    if (e.kind === "multipaxos.client.invoke") {
      list.push({ reqId: e.fields.reqId, text: e.fields.op === "put" ? `put ${e.fields.key}=${e.fields.value ?? ""}` : `get ${e.fields.key}`, outcome: "pending" });
      if (list.length > OPS_KEPT) list.splice(0, list.length - OPS_KEPT);
      return;
    }
    const op = list.find((o) => o.reqId === e.fields.reqId);
    if (op !== undefined) op.outcome = e.fields.op === "get" ? `→ ${e.fields.value ?? "(none)"}` : "ok";
  }

  of(client: string): string {
    const list = this.ops.get(client) ?? [];
    return list.length === 0 ? "—" : list.map((o) => `${o.text} ${o.outcome}`).join("; ");
  }
}

export function multiPaxosNodeView(node: SimNode, state: Record<string, unknown> | undefined, ops: ClientOps): NodeView {
  const base = { id: node.id, status: node.status };
  if (node.id.startsWith("c")) return { ...base, role: "client", fields: [["to", String(state?.target ?? "—")], ["ops", ops.of(node.id)]] };
  if (state === undefined) return { ...base, role: "replica", fields: diskFields(node) };
  const role = String(state.role);
  const leading = role === "leader";
  const log = state.log as { slot: number; command: string }[];
  const chosen = new Set(log.map((e) => e.slot));
  const open = (state.accepted as { slot: number; ballot: number; command: string }[]).filter((e) => !chosen.has(e.slot) && e.slot >= Number(state.applied));
  const kv = Object.entries(state.kv as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(" ");
  const lease = state.lease as "off" | { heldForMs: number } | { grantedToBallot: number; forMs: number };
  const fields: [string, string][] = [
    leading ? ["ballot", String(state.ballot)] : ["promised", String(state.promisedBallot)],
    ...(leading ? [] : ([["leader", String(state.leader ?? "—")]] as [string, string][])),
    ["log", logText(log)],
    ...(open.length > 0 ? ([["open", open.map((e) => `${e.slot}:${e.command}@${e.ballot}`).join(" ")]] as [string, string][]) : []),
    ["kv", kv === "" ? "—" : kv],
    ...(leading && lease !== "off" && "heldForMs" in lease ? ([["lease", `${Math.round(lease.heldForMs)}ms`]] as [string, string][]) : []),
  ];
  return { ...base, role, fields };
}

/** "0:c1#1 1:noop 2:c2#1": the last LOG_SHOWN chosen slots in order ("…" before them when there are more). */
function logText(log: readonly { slot: number; command: string }[]): string {
  if (log.length === 0) return "—";
  const shown = log.slice(-LOG_SHOWN).map((e) => `${e.slot}:${e.command}`);
  return `${log.length > LOG_SHOWN ? "… " : ""}${shown.join(" ")}`;
}

function diskFields(node: SimNode): [string, string][] {
  let promised = 0;
  const slots = new Set<number>();
  for (const r of node.disk.durableRecords("acceptor")) {
    if (isTorn(r)) continue;
    const rec = r as { t: "promise"; ballot: number } | { t: "accept"; slot: number; ballot: number };
    promised = Math.max(promised, rec.ballot);
    if (rec.t === "accept") slots.add(rec.slot);
  }
  return [["disk: promised", promised > 0 ? String(promised) : "—"], ["accepted", `${slots.size} slot(s)`]];
}
