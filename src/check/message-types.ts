/**
 * The message types (a `send` or `deliver` event's `detail`) of the servers' own traffic, as
 * ZooKeeper names it: the quorum packets of Leader.java (FOLLOWERINFO … SYNC) and the election's
 * (FastLeaderElection's notifications, QuorumCnxManager's initial message). A client and a server
 * never exchange these: the readers of client traffic pass them by (`Checker.messageTypes`).
 */
export const SERVER_MESSAGE_TYPES: ReadonlySet<string> = new Set([
  "FOLLOWERINFO", "OBSERVERINFO", "LEADERINFO", "ACKEPOCH", "DIFF", "TRUNC", "SNAP", "NEWLEADER", "UPTODATE",
  "PROPOSAL", "ACK", "COMMIT", "INFORM", "COMMITANDACTIVATE", "INFORMANDACTIVATE", "PING", "REQUEST", "REVALIDATE", "SYNC",
  "fle.notification", "qcm.initial",
]);

/** Whether a message of `type` may be client traffic (any type but the servers' own). */
export function mayBeClientTraffic(type: string): boolean {
  return !SERVER_MESSAGE_TYPES.has(type);
}
