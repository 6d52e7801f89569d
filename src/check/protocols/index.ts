/** The teaching protocols' checkers by name (registered in scenario/builtins.ts). */
import type { Checker } from "../checker.js";
import { PaxosAgreementChecker } from "./paxos-agreement.js";
import { PaxosValidityChecker } from "./paxos-validity.js";
import { PaxosLearnedChosenChecker } from "./paxos-learned-chosen.js";
import { PaxosLivenessChecker } from "./paxos-liveness.js";

export const PAXOS_PROTOCOL_CHECKERS: ReadonlyArray<readonly [string, () => Checker]> = [
  ["paxos.agreement", () => new PaxosAgreementChecker()],
  ["paxos.validity", () => new PaxosValidityChecker()],
  ["paxos.learned-chosen", () => new PaxosLearnedChosenChecker()],
  ["paxos.liveness", () => new PaxosLivenessChecker()],
];
