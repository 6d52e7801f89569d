/** The teaching protocols' checkers by name (registered in scenario/builtins.ts). */
import type { Checker } from "../checker.js";
import { PaxosAgreementChecker } from "./paxos-agreement.js";
import { PaxosValidityChecker } from "./paxos-validity.js";
import { PaxosLearnedChosenChecker } from "./paxos-learned-chosen.js";
import { PaxosLivenessChecker } from "./paxos-liveness.js";
import { MultiPaxosSlotAgreementChecker } from "./multipaxos-slot-agreement.js";
import { MultiPaxosStateMachineChecker } from "./multipaxos-state-machine.js";
import { MultiPaxosLinearizableChecker } from "./multipaxos-linearizable.js";

export const PROTOCOL_CHECKERS: ReadonlyArray<readonly [string, () => Checker]> = [
  ["paxos.agreement", () => new PaxosAgreementChecker()],
  ["paxos.validity", () => new PaxosValidityChecker()],
  ["paxos.learned-chosen", () => new PaxosLearnedChosenChecker()],
  ["paxos.liveness", () => new PaxosLivenessChecker()],
  ["multipaxos.slot-agreement", () => new MultiPaxosSlotAgreementChecker()],
  ["multipaxos.state-machine-safety", () => new MultiPaxosStateMachineChecker()],
  ["multipaxos.linearizable", () => new MultiPaxosLinearizableChecker()],
];
