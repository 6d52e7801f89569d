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

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    script: "acl",
    step: "whoAmI b",
    reason:
      "the ip identity is the simulated address of serve's gateway node (10.0.0.x), not the real peer's 127.0.0.1: inside the simulation every real connection to one server comes from that server's gateway node (docs/serve.md, known gaps)",
  },
  {
    script: "super-digest",
    step: "whoAmI super",
    reason: "the ip identity is serve's gateway address (10.0.0.x), not 127.0.0.1, as in acl/whoAmI b; the super and digest ids match",
  },
];
