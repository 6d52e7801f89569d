/**
 * The historical ZooKeeper defects the simulated servers can re-inject (the bug zoo), by id.
 * The servers consult `QuorumPeer.hasBug(id)` at the exact point where the historical code
 * went wrong; an id outside this list is a compile error there. What each bug is, the scenario
 * that triggers it and the checker that catches it are the zoo's catalogue
 * (`src/scenario/bug-zoo.ts`), which the server knows nothing about.
 */
import { UserInputError } from "../../base/errors.js";

/** "ZK-1154" is ZOOKEEPER-1154 in Apache's JIRA. */
export const BUG_IDS = [
  "ZK-335",
  "ZK-1154",
  "ZK-1208",
  "ZK-1419",
  "ZK-1549",
  "ZK-2355",
  "ZK-2845",
  "ZK-3642",
  "ZK-3911",
  "ZK-4394",
  "ZK-4643",
  "ZK-4646",
  "ZK-4685",
  "ZK-4712",
  "ZK-4785",
] as const;

export type BugId = (typeof BUG_IDS)[number];

export function isBugId(id: string): id is BugId {
  return (BUG_IDS as readonly string[]).includes(id);
}

/** The ids of a run's `bugs` option, each checked (a UserInputError names an unknown one). */
export function bugIdSet(ids: readonly string[]): ReadonlySet<BugId> {
  const set = new Set<BugId>();
  for (const id of ids) {
    if (!isBugId(id)) throw new UserInputError(`unknown bug "${id}" (known: ${BUG_IDS.join(", ")}; see \`zksim bugs\`)`);
    set.add(id);
  }
  return set;
}
