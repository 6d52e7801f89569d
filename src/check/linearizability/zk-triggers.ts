/**
 * The reference model's watch triggers (docs/zookeeper.md §2.3): which events a committed txn
 * fires, by the path of the node each event is about. A create of P/c fires NodeCreated at P/c
 * and NodeChildrenChanged at P; a delete of P/c (a session's end deleting its ephemerals, a reap)
 * NodeDeleted at P/c and NodeChildrenChanged at P; setData of P NodeDataChanged at P; a multi what
 * its parts fire; setACL, check, a failed write (error txn) and a failed multi nothing.
 *
 * A txn is described by its effects as the history knows them: a sequential create whose name is
 * not known (an indeterminate op) may have created any name of its prefix; a session's end may
 * delete any ephemeral the session may have created.
 */
import { isSequentialName, parentOf } from "./zk-tree.js";

export type Effect =
  | { kind: "create"; path: string; sequential: boolean; named: boolean }
  | { kind: "delete"; path: string; sequential: boolean; named: boolean }
  | { kind: "setData"; path: string };

export type NodeEventType = "NodeCreated" | "NodeDeleted" | "NodeDataChanged" | "NodeChildrenChanged";

/** Whether the txn with `effects` fires `type` about `path`. */
export function triggers(effects: readonly Effect[], type: NodeEventType, path: string): boolean {
  return effects.some((e) => fires(e, type, path));
}

function fires(e: Effect, type: NodeEventType, path: string): boolean {
  switch (type) {
    case "NodeCreated":
      return e.kind === "create" && names(e, path);
    case "NodeDeleted":
      return e.kind === "delete" && names(e, path);
    case "NodeDataChanged":
      return e.kind === "setData" && e.path === path;
    case "NodeChildrenChanged":
      return e.kind !== "setData" && parentOf(e.path) === path;
  }
}

/** Does the create or delete `e` name `path`: exactly, or as a sequential name its prefix may take? */
function names(e: { path: string; sequential: boolean; named: boolean }, path: string): boolean {
  return e.named || !e.sequential ? e.path === path : isSequentialName(path, e.path);
}

/** The events `effects` fire, in words, for a report. */
export function describeTriggers(effects: readonly Effect[]): string {
  if (effects.length === 0) return "nothing";
  return effects
    .map((e) => {
      const p = e.kind !== "setData" && e.sequential && !e.named ? `${e.path}<n>` : e.path;
      if (e.kind === "setData") return `NodeDataChanged ${p}`;
      return `${e.kind === "create" ? "NodeCreated" : "NodeDeleted"} ${p}, NodeChildrenChanged ${parentOf(e.path)}`;
    })
    .join("; ");
}
