/**
 * The bug zoo's catalogue: historical ZooKeeper defects (docs/zookeeper.md §8) that `--bug <ID>`
 * re-injects into the simulated servers, each with a scenario whose seeded schedule triggers
 * it. With the bug on, that scenario fails with the named invariant (or the liveness check);
 * with it off, the same scenario passes. The ids are the servers' `BugId`s
 * (`src/zk/server/bug-id.ts`); the catalogue names one entry for each, in their order.
 */
import { UserInputError } from "../sim/errors.js";
import { BUG_IDS, type BugId } from "../zk/server/bug-id.js";

export interface BugEntry {
  /** "ZK-1154" — ZOOKEEPER-1154 in Apache's JIRA. */
  id: BugId;
  title: string;
  /** The scenario whose schedule triggers it. */
  scenario: string;
  /** The checker that catches it. */
  invariant: string;
  fixedIn: string;
}

const ENTRIES: Record<BugId, Omit<BugEntry, "id">> = {
  "ZK-335": {
    title: "pre-Zab-1.0: a new epoch is persisted nowhere until its first txn is logged, so it can be chosen twice",
    scenario: "bug-335",
    invariant: "zab.leadership",
    fixedIn: "3.4.0 (ZOOKEEPER-1081/1082)",
  },
  "ZK-1154": {
    title: "leader sends DIFF without checking the learner's last zxid is in its history",
    scenario: "bug-1154",
    invariant: "zab.prefix-consistency",
    fixedIn: "3.3.4 / 3.4.0",
  },
  "ZK-1208": {
    title: "closeSession does not mark the session closing at prep; a create prepped after it leaves an orphan ephemeral",
    scenario: "bug-1208",
    invariant: "scenario.expect",
    fixedIn: "3.3.4 / 3.4.0",
  },
  "ZK-1419": {
    title: "the election's vote comparison forgets epoch equality in its sid clause: not a total order, elections cycle",
    scenario: "bug-1419",
    invariant: "zab.liveness",
    fixedIn: "3.4.4",
  },
  "ZK-1549": {
    title: "a TRUNC leaves the snapshots above it (3.8.0 as released): the learner reloads a leader-elect's snapshot of uncommitted txns",
    scenario: "bug-1549",
    invariant: "zab.identical-trees",
    fixedIn: "open (zksim removes those snapshots by default)",
  },
  "ZK-2355": {
    title: "a DIFF learner takes the DIFF zxid as processed before applying the diff; an interrupted sync never applies it",
    scenario: "bug-2355",
    invariant: "zab.prefix-consistency",
    fixedIn: "3.4.11 / 3.5.4",
  },
  "ZK-2845": {
    title: "a server back in LOOKING keeps an in-memory tree that lags its txn log",
    scenario: "bug-2845",
    invariant: "zab.committed-durability",
    fixedIn: "3.4.12 / 3.5.4",
  },
  "ZK-3642": {
    title: "a learner keeps an unpersisted SNAP tree after an incomplete sync and advertises its zxid",
    scenario: "bug-3642",
    invariant: "zab.committed-durability",
    fixedIn: "3.5.10 / 3.6.3 / 3.7.0",
  },
  "ZK-3911": {
    title: "a DIFF learner ACKs NEWLEADER before logging the diff txns (logged only at UPTODATE)",
    scenario: "bug-3911",
    invariant: "zab.committed-durability",
    fixedIn: "3.5.9 / 3.6.3 / 3.7.0",
  },
  "ZK-4394": {
    title: "NEWLEADER clears the learner's proposal buffer; a COMMIT before UPTODATE dereferences its empty head",
    scenario: "bug-4394",
    invariant: "zab.flags",
    fixedIn: "3.9.3",
  },
  "ZK-4643": {
    title: "the learner writes currentEpoch at NEWLEADER before its synced txns are durable",
    scenario: "bug-4643",
    invariant: "zab.committed-durability",
    fixedIn: "3.9.3",
  },
  "ZK-4646": {
    title: "the learner logs the synced txns asynchronously at NEWLEADER: ACK(NEWLEADER) can precede their fsync",
    scenario: "bug-4646",
    invariant: "zab.committed-durability",
    fixedIn: "3.9.3",
  },
  "ZK-4685": {
    title: "the learner's sync thread ACKs a diff proposal before the NEWLEADER ACK; the leader ignores that learner",
    scenario: "bug-4685",
    invariant: "zab.flags",
    fixedIn: "3.9.3",
  },
  "ZK-4712": {
    title: "Follower.shutdown leaves the sync processor running: a queued proposal is logged after the peer went LOOKING",
    scenario: "bug-4712",
    invariant: "zab.prefix-consistency",
    fixedIn: "3.9.3",
  },
  "ZK-4785": {
    title: "a DIFF learner writes currentEpoch and ACKs NEWLEADER while its diff txns are only queued for logging",
    scenario: "bug-4785",
    invariant: "zab.committed-durability",
    fixedIn: "3.8.5 / 3.9.2",
  },
};

export const BUG_ZOO: readonly BugEntry[] = BUG_IDS.map((id) => ({ id, ...ENTRIES[id] }));

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
