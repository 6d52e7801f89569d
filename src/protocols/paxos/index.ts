/** Single-decree Paxos (book 2.2): proposers, acceptors and learners on the kernel's datagrams. */
export { PaxosAcceptor, ACCEPTOR_FILE, type AcceptorConfig, type AcceptorVariant } from "./acceptor.js";
export { PaxosProposer, PROPOSER_FILE, type ProposerConfig, type ProposerPhase, type ProposerVariant } from "./proposer.js";
export { PaxosLearner, LEARNER_FILE, type LearnerConfig, type LearnerVariant } from "./learner.js";
export { ballotOf, majority, roundOf, type PaxosMessage, type PaxosValue } from "./messages.js";
export type { PaxosTraceEvents } from "./trace-events.js";

/** The broken twins (`--variant`): each must be caught by the Paxos checkers. */
export const PAXOS_VARIANTS = ["correct", "promise-before-fsync", "ignore-promised-values", "announce-once", "learn-unwritten"] as const;
export type PaxosVariant = (typeof PAXOS_VARIANTS)[number];
