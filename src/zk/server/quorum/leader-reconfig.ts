/**
 * The leader's side of dynamic reconfiguration (3.5+, docs/zookeeper.md §7.10), as functions
 * over plain data so that `leader.ts` keeps reading as ZAB:
 * - `reconfigTarget`: the configuration a reconfig txn carries (its SetDataTxn's data is the new
 *   config text, `version=` its zxid);
 * - `getDesignatedLeader`: who leads once the reconfig is committed — the leader itself if it is a
 *   voter of the new config, else the new-config voter that ACKed it and most of the proposals
 *   after it (3.8's `Leader.getDesignatedLeader`), so that few ops are dropped.
 */
import { OpCode } from "../../proto/op-code.js";
import type { Zxid } from "../../proto/records.js";
import type { TxnEntry } from "../../proto/txn.js";
import type { QuorumVerifier } from "./quorum-verifier.js";
import { parseConfigText, type ServerAddressing } from "./quorum-server-spec.js";

/** The config a reconfig txn installs, or undefined for any other txn (an error txn included). */
export function reconfigTarget(entry: TxnEntry, addressing: ServerAddressing): QuorumVerifier | undefined {
  if (entry.header.type !== OpCode.reconfig || entry.txn.kind !== "SetDataTxn" || entry.txn.data === null) return undefined;
  const parsed = parseConfigText(new TextDecoder().decode(entry.txn.data), 0n, addressing);
  return parsed.ok ? parsed.value : undefined;
}

/** What `getDesignatedLeader` reads of a proposal: the sids that ACKed it. */
export interface AckedProposal {
  zxid: Zxid;
  acks: ReadonlySet<number>;
}

/**
 * `getDesignatedLeader(reconfigProposal, zxid)`: `acks` are the reconfig's ACKs, `after` the
 * outstanding proposals that follow it in zxid order.
 */
export function getDesignatedLeader(myid: number, newQv: QuorumVerifier, acks: ReadonlySet<number>, after: readonly AckedProposal[]): number {
  if (newQv.isVoter(myid)) return myid;
  let candidates = [...acks].filter((sid) => sid !== myid && newQv.isVoter(sid)).sort((a, b) => a - b);
  let best = candidates[0];
  if (best === undefined) return myid; // impossible when a quorum of the new config ACKed
  for (const p of after) {
    candidates = candidates.filter((sid) => p.acks.has(sid));
    if (candidates.length === 0) return best;
    best = candidates[0]!;
    if (candidates.length === 1) return best;
  }
  return best;
}
