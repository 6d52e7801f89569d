/**
 * The bug zoo: historical ZooKeeper defects (reference §8) that `--bug <ID>` re-injects into
 * the simulated servers, each with a scenario whose seeded schedule triggers it. With the bug
 * on, that scenario fails with the named invariant (or the liveness check); with it off, the
 * same scenario passes. The servers consult `QuorumPeer.hasBug(id)` at the exact point where
 * the historical code went wrong.
 */
import { UserInputError } from "../../../sim/errors.js";

export interface BugEntry {
  /** "ZK-1154" — ZOOKEEPER-1154 in Apache's JIRA. */
  id: string;
  title: string;
  /** The scenario whose schedule triggers it. */
  scenario: string;
  /** The checker that catches it. */
  invariant: string;
  fixedIn: string;
}

export const BUG_ZOO: readonly BugEntry[] = [
  {
    id: "ZK-1154",
    title: "leader sends DIFF without checking the learner's last zxid is in its history",
    scenario: "bug-1154",
    invariant: "zab.prefix-consistency",
    fixedIn: "3.3.4 / 3.4.0",
  },
  {
    id: "ZK-2845",
    title: "a server back in LOOKING keeps an in-memory tree that lags its txn log",
    scenario: "bug-2845",
    invariant: "zab.committed-durability",
    fixedIn: "3.4.12 / 3.5.4",
  },
];

/** "1154", "ZK-1154" and "ZOOKEEPER-1154" all name ZK-1154. */
export function normalizeBugId(raw: string): string {
  const m = /^(?:ZK-|ZOOKEEPER-)?(\d+)$/i.exec(raw.trim());
  return m ? `ZK-${m[1]}` : raw;
}

export function bugEntry(raw: string): BugEntry {
  const id = normalizeBugId(raw);
  const entry = BUG_ZOO.find((b) => b.id === id);
  if (entry === undefined) throw new UserInputError(`unknown bug "${raw}" (known: ${BUG_ZOO.map((b) => b.id).join(", ")}; see \`zksim bugs\`)`);
  return entry;
}
