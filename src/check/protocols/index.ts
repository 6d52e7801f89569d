/** The teaching protocols' checkers by name (listed in the registry, scenario/registry.ts). */
import type { Checker } from "../checker.js";
import { CommitAtomicityChecker } from "./commit-atomicity.js";
import { CommitBlockingChecker } from "./commit-blocking.js";
import { CommitDurabilityChecker } from "./commit-durability.js";
import { CommitValidityChecker } from "./commit-validity.js";
import { PaxosAgreementChecker } from "./paxos-agreement.js";
import { PaxosValidityChecker } from "./paxos-validity.js";
import { PaxosLearnedChosenChecker } from "./paxos-learned-chosen.js";
import { PaxosLivenessChecker } from "./paxos-liveness.js";
import { MultiPaxosSlotAgreementChecker } from "./multipaxos-slot-agreement.js";
import { MultiPaxosStateMachineChecker } from "./multipaxos-state-machine.js";
import { MultiPaxosLinearizableChecker } from "./multipaxos-linearizable.js";

/** 2PC and 3PC: atomicity, validity, decision durability and the blocking report. */
export const COMMIT_CHECKERS: ReadonlyArray<readonly [string, () => Checker]> = [
  ["commit.atomicity", () => new CommitAtomicityChecker()],
  ["commit.validity", () => new CommitValidityChecker()],
  ["commit.durability", () => new CommitDurabilityChecker()],
  ["commit.blocking", () => new CommitBlockingChecker()],
];

export const COMMIT_CHECKER_NAMES: readonly string[] = COMMIT_CHECKERS.map(([name]) => name);

/** Every teaching protocol's checker: the commit protocols', Paxos's and Multi-Paxos's. */
export const PROTOCOL_CHECKERS: ReadonlyArray<readonly [string, () => Checker]> = [
  ...COMMIT_CHECKERS,
  ["paxos.agreement", () => new PaxosAgreementChecker()],
  ["paxos.validity", () => new PaxosValidityChecker()],
  ["paxos.learned-chosen", () => new PaxosLearnedChosenChecker()],
  ["paxos.liveness", () => new PaxosLivenessChecker()],
  ["multipaxos.slot-agreement", () => new MultiPaxosSlotAgreementChecker()],
  ["multipaxos.state-machine-safety", () => new MultiPaxosStateMachineChecker()],
  ["multipaxos.linearizable", () => new MultiPaxosLinearizableChecker()],
];
