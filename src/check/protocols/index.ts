/** The teaching protocols' checkers by name (listed in the registry, scenario/registry.ts). */
import type { Checker } from "../checker.js";
import { CommitAtomicityChecker } from "./commit-atomicity.js";
import { CommitBlockingChecker } from "./commit-blocking.js";
import { CommitDurabilityChecker } from "./commit-durability.js";
import { CommitValidityChecker } from "./commit-validity.js";
import { CommitLivenessChecker } from "./commit-liveness.js";
import { PaxosAgreementChecker } from "./paxos-agreement.js";
import { PaxosValidityChecker } from "./paxos-validity.js";
import { PaxosLearnedChosenChecker } from "./paxos-learned-chosen.js";
import { PaxosLearnedDurableChecker } from "./paxos-learned-durable.js";
import { PaxosLivenessChecker } from "./paxos-liveness.js";
import { MultiPaxosSlotAgreementChecker } from "./multipaxos-slot-agreement.js";
import { MultiPaxosStateMachineChecker } from "./multipaxos-state-machine.js";
import { MultiPaxosLinearizableChecker } from "./multipaxos-linearizable.js";
import { MultiPaxosLivenessChecker } from "./multipaxos-liveness.js";

/** 2PC and 3PC: atomicity, validity, decision durability and the blocking report (the stepping UI's invariants). */
export const COMMIT_CHECKERS: ReadonlyArray<readonly [string, () => Checker]> = [
  ["commit.atomicity", () => new CommitAtomicityChecker()],
  ["commit.validity", () => new CommitValidityChecker()],
  ["commit.durability", () => new CommitDurabilityChecker()],
  ["commit.blocking", () => new CommitBlockingChecker()],
];

export const COMMIT_CHECKER_NAMES: readonly string[] = COMMIT_CHECKERS.map(([name]) => name);

/** After the faults end, every transaction finishes (judged only at the end of a quiet run, so the stepping UI leaves it out). */
export const COMMIT_LIVENESS: readonly [string, () => Checker] = ["commit.liveness", () => new CommitLivenessChecker()];

/** Every teaching protocol's checker: the commit protocols', Paxos's and Multi-Paxos's. */
export const PROTOCOL_CHECKERS: ReadonlyArray<readonly [string, () => Checker]> = [
  ...COMMIT_CHECKERS,
  COMMIT_LIVENESS,
  ["paxos.agreement", () => new PaxosAgreementChecker()],
  ["paxos.validity", () => new PaxosValidityChecker()],
  ["paxos.learned-chosen", () => new PaxosLearnedChosenChecker()],
  ["paxos.learned-durable", () => new PaxosLearnedDurableChecker()],
  ["paxos.liveness", () => new PaxosLivenessChecker()],
  ["multipaxos.slot-agreement", () => new MultiPaxosSlotAgreementChecker()],
  ["multipaxos.state-machine-safety", () => new MultiPaxosStateMachineChecker()],
  ["multipaxos.linearizable", () => new MultiPaxosLinearizableChecker()],
  ["multipaxos.liveness", () => new MultiPaxosLivenessChecker()],
];
