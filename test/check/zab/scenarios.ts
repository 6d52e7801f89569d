/**
 * Whole synthetic runs shared by the ZAB checker tests: one correct run that exercises every
 * reset (restart + recovery, DIFF, SNAP, TRUNC of an uncommitted txn), and the §8 bug shapes.
 */
import { TraceBuilder, z } from "./trace-builder.js";

/**
 * Three servers. Epoch 1 (leader s3): (1,1), (1,2) everywhere; s1 restarts and catches up by
 * DIFF; s3 logs (1,4) alone and crashes. Epoch 2 (leader s2): (2,1); s3 restarts holding (1,4)
 * and is SNAP-synced past it; s2 logs (2,2) alone and crashes. Epoch 3 (leader s1): s2 restarts
 * holding (2,2) and is TRUNCated to (2,1); (3,1) everywhere. Then 45 quiet seconds.
 */
export function correctRun(): TraceBuilder {
  const t = new TraceBuilder().boot(1, 2, 3);
  t.elect(3, [1, 2], 1, z(0, 0), (f) => t.sync(f, 3, "DIFF", z(0, 0), z(0, 0)));
  t.broadcast(3, z(1, 1), "create /a", [3, 1, 2]);
  t.broadcast(3, z(1, 2), "create /b", [3, 1, 2]);
  // s1 restarts and is brought up to date with a DIFF.
  t.crash(1).broadcast(3, z(1, 3), "set /a", [3, 2]);
  t.restart(1).recovered(1, z(1, 2), 1).state(1, "LOOKING").phase(1, "ELECTION", 1);
  t.state(1, "FOLLOWING").phase(1, "DISCOVERY", 1).phase(1, "SYNCHRONIZATION", 1);
  t.sync(1, 3, "DIFF", z(1, 2), z(1, 3)).logTxn(1, z(1, 3), "set /a").deliver(1, z(1, 3), "set /a").digest(1, z(1, 3), "d:set /a");
  t.phase(1, "BROADCAST", 1);
  // s3 logs (1,4) alone and crashes: it was never committed.
  t.propose(3, 1, z(1, 4), "delete /b").logTxn(3, z(1, 4), "delete /b").crash(3);
  for (const s of [1, 2]) t.state(s, "LOOKING").phase(s, "ELECTION", 1);
  t.elect(2, [1], 2, z(1, 3), (f) => t.sync(f, 2, "DIFF", z(1, 3), z(1, 3)));
  t.broadcast(2, z(2, 1), "create /c", [2, 1]);
  // s3 comes back with (1,4); TRUNC cannot cross an epoch boundary, so it gets a SNAP.
  t.restart(3).recovered(3, z(1, 4), 1).state(3, "LOOKING").phase(3, "ELECTION", 1);
  t.state(3, "FOLLOWING").phase(3, "DISCOVERY", 2).phase(3, "SYNCHRONIZATION", 2);
  t.sync(3, 2, "SNAP", z(1, 4), z(2, 1)).snapLoad(3, z(2, 1)).zab("epoch.current", 3, { epoch: 2 }).phase(3, "BROADCAST", 2);
  // s2 logs (2,2) alone and crashes; s1 leads epoch 3 and truncates s2 back to (2,1).
  t.propose(2, 2, z(2, 2), "create /d").logTxn(2, z(2, 2), "create /d").crash(2);
  for (const s of [1, 3]) t.state(s, "LOOKING").phase(s, "ELECTION", 2);
  t.restart(2).recovered(2, z(2, 2), 2).state(2, "LOOKING").phase(2, "ELECTION", 2);
  t.elect(1, [3, 2], 3, z(2, 1), (f) => {
    if (f === 3) t.sync(3, 1, "DIFF", z(2, 1), z(2, 1));
    else t.sync(2, 1, "TRUNC", z(2, 2), z(2, 1)).truncate(2, z(2, 1));
  });
  t.broadcast(1, z(3, 1), "create /e", [1, 3, 2]);
  t.broadcast(1, z(3, 2), "set /e", [1, 3, 2]);
  return t.wait(45_000).tick();
}

/**
 * ZOOKEEPER-1154: s1 leads epoch 1 and logs (1,4), which nobody else receives; all crash; s2
 * leads epoch 2 and commits (2,1); s1 restarts with (1,4) and the leader sends a DIFF without
 * checking that (1,4) is in its history, so s1 keeps it and then delivers (2,1).
 */
export function zk1154(): TraceBuilder {
  const t = new TraceBuilder().boot(1, 2, 3);
  t.elect(1, [2, 3], 1, z(0, 0), (f) => t.sync(f, 1, "DIFF", z(0, 0), z(0, 0)));
  for (let c = 1; c <= 3; c++) t.broadcast(1, z(1, c), `txn ${c}`, [1, 2, 3]);
  t.propose(1, 1, z(1, 4), "txn 4").logTxn(1, z(1, 4), "txn 4");
  t.crash(1).crash(2).crash(3);
  for (const s of [2, 3]) t.restart(s).recovered(s, z(1, 3), 1).state(s, "LOOKING").phase(s, "ELECTION", 1);
  t.elect(2, [3], 2, z(1, 3), (f) => t.sync(f, 2, "DIFF", z(1, 3), z(1, 3)));
  t.broadcast(2, z(2, 1), "txn 2.1", [2, 3]);
  t.restart(1).recovered(1, z(1, 4), 1).state(1, "LOOKING").state(1, "FOLLOWING").phase(1, "SYNCHRONIZATION", 2);
  t.sync(1, 2, "DIFF", z(1, 4), z(2, 1)).logTxn(1, z(2, 1), "txn 2.1").deliver(1, z(2, 1), "txn 2.1");
  return t;
}

/**
 * ZOOKEEPER-4785 (same shape as 3911/4643/4646): s3 leads epoch 1; (1,1), (1,2) committed
 * everywhere; s1 shut down; (1,3) committed by s2, s3; s2 shut down; s1 restarts and syncs with
 * s3 for epoch 2 by DIFF with (1,3), writes currentEpoch=2 and ACKs NEWLEADER — s3 establishes
 * epoch 2 — but (1,3) never reaches s1's disk; s3 shut down; s1 restarts with (1,2); s2 restarts
 * with (1,3); s1 (currentEpoch 2) beats s2 (currentEpoch 1), establishes epoch 3 without (1,3)
 * and truncates s2 to (1,2).
 */
export function zk4785(): TraceBuilder {
  const t = new TraceBuilder().boot(1, 2, 3);
  t.elect(3, [1, 2], 1, z(0, 0), (f) => t.sync(f, 3, "DIFF", z(0, 0), z(0, 0)));
  t.broadcast(3, z(1, 1), "create /a", [3, 1, 2]);
  t.broadcast(3, z(1, 2), "create /b", [3, 1, 2]);
  t.crash(1).broadcast(3, z(1, 3), "create /c", [3, 2]).crash(2);
  t.restart(1).recovered(1, z(1, 2), 1).state(1, "LOOKING").state(3, "LOOKING");
  t.elect(3, [1], 2, z(1, 3), () => t.sync(1, 3, "DIFF", z(1, 2), z(1, 3)).deliver(1, z(1, 3), "create /c"));
  t.crash(3).crash(1).restart(1).recovered(1, z(1, 2), 2).restart(2).recovered(2, z(1, 3), 1);
  for (const s of [1, 2]) t.state(s, "LOOKING").phase(s, "ELECTION", 2);
  t.elect(1, [2], 3, z(1, 2), () => t.sync(2, 1, "TRUNC", z(1, 3), z(1, 2)).truncate(2, z(1, 2)));
  t.broadcast(1, z(3, 1), "create /d", [1, 2]);
  return t;
}
