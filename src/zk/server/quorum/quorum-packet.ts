/**
 * Quorum packets between the leader and its learners (`Leader.java` constants, docs/zookeeper.md
 * §7.2), as typed objects (the simulator carries objects; `kind` is the packet type name).
 * The book's ZAB vocabulary (CEPOCH = FOLLOWERINFO, NEWEPOCH = LEADERINFO, …) is the table
 * `QUORUM_PACKET_BOOK` in `zab-vocabulary.ts`.
 */
import type { Id, SessionId, Zxid } from "../../proto/records.js";
import type { RequestRecord } from "../../proto/packets.js";
import type { TxnEntry } from "../../proto/txn.js";
import type { DataTreeSnapshot } from "../data-tree.js";

export type QuorumPacket =
  /** zxid = acceptedEpoch << 32. */
  | { kind: "FOLLOWERINFO" | "OBSERVERINFO"; sid: number; zxid: Zxid }
  /** zxid = newEpoch << 32. */
  | { kind: "LEADERINFO"; zxid: Zxid }
  /** zxid = the learner's last logged zxid; epoch = its currentEpoch, or −1 when it had already accepted this epoch. */
  | { kind: "ACKEPOCH"; zxid: Zxid; epoch: number }
  | { kind: "DIFF" | "TRUNC"; zxid: Zxid }
  | { kind: "SNAP"; zxid: Zxid; snapshot: DataTreeSnapshot }
  | { kind: "PROPOSAL"; zxid: Zxid; entry: TxnEntry }
  | { kind: "COMMIT"; zxid: Zxid }
  | { kind: "INFORM"; zxid: Zxid; entry: TxnEntry }
  /** `config`: the leader's last seen config (3.5+, with reconfigEnabled), activated by the learner at UPTODATE. */
  | { kind: "NEWLEADER"; zxid: Zxid; config?: string }
  /** A reconfig committed: commit `zxid` and activate its config; `designatedLeader` leads from now on. */
  | { kind: "COMMITANDACTIVATE"; zxid: Zxid; designatedLeader: number }
  | { kind: "INFORMANDACTIVATE"; zxid: Zxid; entry: TxnEntry; designatedLeader: number }
  | { kind: "UPTODATE" }
  | { kind: "ACK"; zxid: Zxid }
  /** Leader → learner: zxid = last proposed. Learner → leader: its session touch table. */
  | { kind: "PING"; zxid: Zxid; touches?: [SessionId, number][] }
  /** A client write forwarded by a learner. */
  | { kind: "REQUEST"; sessionId: SessionId; cxid: number; type: number; record: RequestRecord; authInfo: Id[]; sessionTimeoutMs?: number }
  | { kind: "REVALIDATE"; sessionId: SessionId; timeoutMs: number; valid?: boolean }
  /** The leader's answer to a forwarded sync: everything proposed before it is committed. */
  | { kind: "SYNC"; sessionId: SessionId; cxid: number };

export const QUORUM_PORT = 2888;

export function epochZxid(epoch: number): Zxid {
  return BigInt(epoch) << 32n;
}
