/**
 * Narration lines every datagram teaching protocol shares: a node's lifecycle (crash, restart,
 * pause, resume), a lost message, and the links a partition or heal changed. Protocol narrators fall
 * back on `narrateLifecycle` for the events they do not explain themselves.
 */
import type { TraceEvent } from "../sim/trace.js";

export function narrateLifecycle(e: TraceEvent): string | undefined {
  const n = e.node;
  switch (e.kind) {
    case "drop":
      // Losses to and from a crashed node are what its crash line already said.
      return e.detail === "receiver-down" || e.detail === "sender-crashed" ? undefined : `a message ${e.peer}→${n} is lost (${e.detail ?? "dropped"})`;
    case "partition":
      return `the network is cut: ${formatLinks(e.fields.links)}`;
    case "heal":
      return `the network heals: ${formatLinks(e.fields.links)}`;
    case "crash":
      return `${n} crashes: its memory and timers are gone, messages to it are lost; what it fsynced stays on its disk`;
    case "restart":
      return `${n} restarts from what its disk holds`;
    case "pause":
      return `${n} is paused: it keeps its state but handles nothing (its messages wait)`;
    case "resume":
      return `${n} resumes`;
    default:
      return undefined;
  }
}

/** "a>b" link names as "a→b", space-separated. */
export function formatLinks(links: readonly string[]): string {
  if (links.length === 0) return "no link changed";
  return links.map((l) => l.replace(">", "→")).join(" ");
}
