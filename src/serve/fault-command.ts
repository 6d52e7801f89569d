/**
 * Fault lines typed while serving (stdin, the control socket, `zksim ctl`): the fault grammar of
 * sim/fault-grammar.ts, whose entries are those of scenario files, checked against the served
 * nodes. `for DURATION` after an undoable fault (`pause s2 for 4s`) schedules its undo then.
 *
 * Serve's one rule of its own: the real clients of `sN` sit on gateway node `cN`, and a partition
 * keeps each `cN` with its `sN` unless the line names `cN` itself — otherwise every partition
 * would also cut every real client off.
 */
import type { FaultAction } from "../sim/faults.js";
import { FAULT_KINDS, faultSynopsis, knownNodes, parseFaultText, type FaultLine } from "../sim/fault-grammar.js";

/** Parses one line against the served node ids. */
export function parseFaultCommand(line: string, nodes: readonly string[]): FaultLine {
  const kind = line.trim().split(/\s+/)[0] ?? "";
  return parseFaultText(line, knownNodes(nodes, kind));
}

/** The help line: every fault's synopsis, then serve's own `status`. */
export function faultCommandHelp(): string {
  return `${FAULT_KINDS.map(faultSynopsis).join(", ")}; any undoable one [for DURATION]; status`;
}

/** A partition keeps each gateway node `cN` with its `sN` unless the groups name `cN` already. */
export function withGatewaysInPartition(action: FaultAction, gatewayOf: ReadonlyMap<string, string>): FaultAction {
  if (action.kind !== "partition") return action;
  const listed = new Set(action.groups.flat());
  const groups = action.groups.map((g) => [...g, ...g.flatMap((n) => {
    const gw = gatewayOf.get(n);
    return gw !== undefined && !listed.has(gw) ? [gw] : [];
  })]);
  return { kind: "partition", groups };
}
