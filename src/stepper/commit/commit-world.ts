/**
 * The world of the 2PC and 3PC stepping adapters: the teaching models of src/protocols/ (a
 * coordinator `co`, participants p1…p3, clients c1 and c2 over datagrams) with the commit
 * checkers live. Clients start with no plan: the learner (or a lesson's setup) submits each
 * transaction (`txn c1 x 1`, optionally with participants that vote No).
 *
 * Node names are short on purpose: the space-time strip gives each node a 4-column lane.
 *
 * Variants: 2PC "standard" (an in-doubt participant asks the coordinator only, as the book
 * has it), "cooperative" (it asks the other participants too) and the broken twins of
 * two-phase-commit/messages.ts; 3PC "standard" (timeout rules with the termination protocol)
 * and the twins of three-phase-commit/messages.ts.
 */
import { Simulator } from "../../sim/simulator.js";
import type { NodeContext } from "../../sim/node-context.js";
import { UserInputError } from "../../sim/errors.js";
import { subscribeCheckers, type Checker } from "../../check/checker.js";
import { COMMIT_CHECKERS } from "../../check/protocols/index.js";
import { NoDeliveryAcrossCutChecker } from "../../check/kernel/no-delivery-across-cut.js";
import { DEFAULT_TIMING } from "../../protocols/atomic-commit/config.js";
import { CommitClient } from "../../protocols/atomic-commit/client.js";
import { TwoPhaseCoordinator } from "../../protocols/two-phase-commit/coordinator.js";
import { TwoPhaseParticipant } from "../../protocols/two-phase-commit/participant.js";
import { TWO_PC_VARIANTS, type TwoPcVariant } from "../../protocols/two-phase-commit/messages.js";
import { ThreePhaseCoordinator } from "../../protocols/three-phase-commit/coordinator.js";
import { ThreePhaseParticipant } from "../../protocols/three-phase-commit/participant.js";
import { THREE_PC_VARIANTS, type ThreePcVariant } from "../../protocols/three-phase-commit/messages.js";
import type { ClientOp, World } from "../types.js";

export type CommitProtocol = "2pc" | "3pc";

export const COORDINATOR = "co";
export const PARTICIPANTS = ["p1", "p2", "p3"] as const;
export const CLIENTS = ["c1", "c2"] as const;

export const COMMIT_VARIANTS: Record<CommitProtocol, readonly string[]> = {
  "2pc": ["standard", "cooperative", ...TWO_PC_VARIANTS],
  "3pc": ["standard", ...THREE_PC_VARIANTS],
};

export interface CommitWorld extends World {
  readonly protocol: CommitProtocol;
  readonly coordinator: string;
  readonly participants: readonly string[];
  readonly clientIds: readonly string[];
  readonly clients: Map<string, CommitClient>;
  /** Each sent message's type by id (a drop event records only why it was lost). */
  readonly messageTypes: Map<number, string>;
  /** Each sent vote's value by message id: the book names a vote Yes or No. */
  readonly votes: Map<number, "Yes" | "No">;
}

/** The vote a participant of the world is sending right now (its send event is traced inside `send`). */
interface Sending {
  vote: "Yes" | "No" | undefined;
}

/**
 * A participant's context that notes the value of each vote it sends, for the book's names (a
 * vote is Yes or No; the trace records only the message type). It changes nothing the
 * participant does.
 */
function votesNoted(ctx: NodeContext, sending: Sending): NodeContext {
  return new Proxy(ctx, {
    get(target, key) {
      if (key === "send") {
        return (to: string, payload: unknown) => {
          const p = payload as { kind?: unknown; vote?: unknown };
          sending.vote = p.kind === "vote" ? (p.vote === "yes" ? "Yes" : "No") : undefined;
          try {
            target.send(to, payload);
          } finally {
            sending.vote = undefined;
          }
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export function buildCommitWorld(protocol: CommitProtocol, seed: number, variant: string): CommitWorld {
  const sim = new Simulator({ seed });
  const sending: Sending = { vote: undefined };
  const participants = [...PARTICIPANTS];
  const twin = variant === "standard" || variant === "cooperative" ? undefined : variant;
  sim.addNode(COORDINATOR, (ctx) =>
    protocol === "2pc" ? new TwoPhaseCoordinator(ctx, participants, DEFAULT_TIMING, twin as TwoPcVariant | undefined) : new ThreePhaseCoordinator(ctx, participants, DEFAULT_TIMING),
  );
  for (const id of participants) {
    const peers = participants.filter((p) => p !== id);
    sim.addNode(id, (plain) => {
      const ctx = votesNoted(plain, sending);
      return protocol === "2pc"
        ? new TwoPhaseParticipant(ctx, COORDINATOR, peers, DEFAULT_TIMING, variant === "cooperative" ? "cooperative" : "coordinator", 0, twin as TwoPcVariant | undefined)
        : new ThreePhaseParticipant(ctx, COORDINATOR, peers, DEFAULT_TIMING, 0, twin as ThreePcVariant | undefined);
    });
  }
  const clients = new Map<string, CommitClient>();
  for (const id of CLIENTS) {
    sim.addNode(id, (ctx) => {
      const c = new CommitClient(ctx, protocol, COORDINATOR, [], DEFAULT_TIMING.clientRetryMs);
      clients.set(id, c);
      return c;
    });
  }
  const checkers: Checker[] = [...COMMIT_CHECKERS.map(([, make]) => make()), new NoDeliveryAcrossCutChecker()];
  subscribeCheckers(sim.trace, checkers);
  const messageTypes = new Map<number, string>();
  const votes = new Map<number, "Yes" | "No">();
  sim.trace.subscribe(
    (e) => {
      if (e.id === undefined || e.detail === undefined) return;
      messageTypes.set(e.id, e.detail);
      if (e.detail === "vote" && sending.vote !== undefined) votes.set(e.id, sending.vote);
    },
    ["send"],
  );
  for (const id of [COORDINATOR, ...participants, ...CLIENTS]) sim.start(id);
  return { sim, protocol, coordinator: COORDINATOR, participants, clientIds: CLIENTS, clients, messageTypes, votes, liveCheckers: checkers };
}

/** Starts a transaction from a client (UserInputError for anything but a transaction of a live client). */
export function submitTxn(world: CommitWorld, client: string, op: ClientOp): void {
  if (op.op !== "txn") throw new UserInputError(`${world.protocol}: clients run transactions (txn ${client} KEY VALUE [no p1,p2]), not ${op.op}`);
  const c = world.clients.get(client);
  if (c === undefined || !world.clientIds.includes(client)) throw new UserInputError(`no client "${client}" (clients: ${world.clientIds.join(", ")})`);
  const status = world.sim.node(client).status;
  if (status !== "up") throw new UserInputError(`client ${client} is ${status}`);
  const unknown = op.noVoteFrom.filter((p) => !world.participants.includes(p));
  if (unknown.length > 0) throw new UserInputError(`txn: ${unknown.join(", ")} is not a participant (participants: ${world.participants.join(", ")})`);
  if (!/^[A-Za-z0-9_.-]{1,16}$/.test(op.key)) throw new UserInputError(`txn: key "${op.key}" must be 1–16 letters, digits, _ . -`);
  c.submit({ atMs: world.sim.node(client).context!.nowMs(), key: op.key, value: op.value, noVoteFrom: op.noVoteFrom });
}
