/**
 * Differences between `zksim serve` and a real ZooKeeper 3.8.0 that the conformance suite has
 * found and that are explained rather than fixed, each with its reason (docs/conformance.md).
 * A difference not listed here fails the suite.
 */
export interface KnownDifference {
  script: string;
  step: string;
  reason: string;
}

const MNTR_ORDER =
  "3.8.0 printed zk_num_alive_connections before zk_avg_latency on this ensemble (after writes: per-namespace and per-learner summaries present) and after it on the fresh ensemble src/serve/mntr-keys.ts was recorded from; every other key and its place match. Probably the Java hash map's size decides the two keys' order; not modelled yet (docs/serve.md, not done yet)";

// The ip identity's differences are gone since serve passes a real client's address into the
// simulation. A difference found later is listed here.
export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  { script: "leader-crash", step: "mntr keys of the leader, in 3.8.0's order", reason: MNTR_ORDER },
  { script: "leader-crash", step: "mntr keys of a follower, in 3.8.0's order", reason: MNTR_ORDER },
];
