/**
 * Reading a frame for a lesson's questions: a node's field, the nodes with a role or a status.
 * Frames are plain data (what the screen shows), so a question is built from exactly what the
 * learner sees.
 */
import type { Frame, NodeView } from "../../stepper/types.js";

export function nodeOf(f: Frame, id: string): NodeView | undefined {
  return f.nodes.find((n) => n.id === id);
}

export function fieldOf(f: Frame, id: string, label: string): string | undefined {
  return nodeOf(f, id)?.fields.find(([k]) => k === label)?.[1];
}

/** Ids of the nodes of a role (leader, follower, participant…), in display order. */
export function withRole(f: Frame, role: string): string[] {
  return f.nodes.filter((n) => n.role === role).map((n) => n.id);
}

export function isDown(f: Frame, id: string): boolean {
  return nodeOf(f, id)?.status === "down";
}

/** "a", "a and b", "a, b and c". */
export function listed(xs: readonly string[]): string {
  if (xs.length <= 1) return xs[0] ?? "nobody";
  return `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`;
}

export function msAt(us: number): string {
  return `${(us / 1000).toFixed(1)} ms`;
}
