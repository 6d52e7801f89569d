/**
 * The Multi-Paxos LOG pane: the last slots of the replicated log, one row per slot, one cell
 * per replica — ✓command where the replica knows the slot chosen, command@ballot where it only
 * accepted it, · where it holds nothing, ✖ for a replica that is down. A gap a new leader
 * fills shows as ✓noop; a slot chosen twice (the skip-phase-1 twin) as two different ✓s.
 */
import { PANEL_ROWS, type Panel } from "../types.js";

const CELL = 14;

interface ReplicaLog {
  log: { slot: number; command: string }[];
  accepted: { slot: number; ballot: number; command: string }[];
}

function cell(state: ReplicaLog | undefined, slot: number): string {
  if (state === undefined) return "✖";
  const chosen = state.log.find((e) => e.slot === slot);
  if (chosen !== undefined) return `✓${chosen.command}`;
  const accepted = state.accepted.find((e) => e.slot === slot);
  return accepted !== undefined ? `${accepted.command}@${accepted.ballot}` : "·";
}

export function logPanel(replicas: readonly string[], states: readonly (Record<string, unknown> | undefined)[]): Panel {
  const logs = states.map((s) => (s === undefined ? undefined : ({ log: s.log, accepted: s.accepted } as ReplicaLog)));
  let top = -1;
  for (const l of logs) for (const e of [...(l?.log ?? []), ...(l?.accepted ?? [])]) top = Math.max(top, e.slot);
  const first = Math.max(0, top - PANEL_ROWS + 1);
  const lines: string[] = [];
  for (let slot = first; slot <= top; slot++) lines.push(`slot ${String(slot).padEnd(3)} ${logs.map((l, i) => `${replicas[i]} ${cell(l, slot)}`.padEnd(CELL)).join(" ").trimEnd()}`);
  return { title: `LOG (✓ chosen, cmd@ballot accepted)${first > 0 ? ` — slots ${first}…${top} of ${top + 1}` : ""}`, lines: lines.length > 0 ? lines : ["  no slot used yet"] };
}
