/**
 * The stepping interface: what a teaching UI needs from a run, the same for every protocol.
 *
 * A run is a seed, a protocol adapter and a list of interventions (the learner's actions as
 * data, each at a kernel event count). Everything the UI shows is a `Frame` of plain data — the
 * pending events with their book names, each node's protocol state, the recent trace, the
 * narration and the checkers' live verdicts — and every action is an `Intervention`, so the
 * same seed plus the same interventions re-executes to the same frame (that is how the UI goes
 * back in time: the kernel cannot snapshot closures).
 *
 * A protocol joins by writing one `ProtocolAdapter`: it builds the world for a seed, names the
 * messages and timers in the book's vocabulary, turns each node into a `NodeView`, narrates
 * trace events, and lists its checkers. Nothing else here knows any protocol.
 *
 * Invariants:
 * - positions are kernel event counts (`sim.eventCount`); an intervention at position p is
 *   applied after exactly p events, in list order, before the next event runs;
 * - a frame is a pure function of (adapter, seed, variant, interventions, position).
 */
import type { Simulator } from "../sim/simulator.js";
import type { TraceEvent, TraceKind } from "../sim/trace.js";
import type { PendingMessage } from "../sim/network.js";
import type { FaultAction } from "../sim/faults.js";
import type { Checker } from "../check/checker.js";

/**
 * A client operation the learner can start: ZooKeeper's writes and a read, or a commit
 * protocol's transaction (set `key` to `value` at every participant; those in `noVoteFrom`
 * cannot execute it and vote No).
 */
export type ClientOp =
  | { op: "create"; path: string; data: string; ephemeral?: boolean }
  | { op: "set"; path: string; data: string }
  | { op: "delete"; path: string }
  | { op: "get"; path: string }
  | { op: "txn"; key: string; value: string; noVoteFrom: string[] };

/** One learner action, as data (it goes into the replay file). */
export type Action =
  /** Deliver this pending message before anything else (a connection's head only: TCP is FIFO). */
  | { kind: "deliver"; msg: number }
  /** Lose this pending datagram (connections cannot lose one segment alone). */
  | { kind: "drop"; msg: number }
  /** Deliver this pending message `delayMs` later (on a connection, the ones behind it wait too). */
  | { kind: "delay"; msg: number; delayMs: number }
  /** Deliver this pending datagram twice. */
  | { kind: "duplicate"; msg: number }
  /** Fire this pending timer now. */
  | { kind: "fire"; timer: number }
  /**
   * Run this pending kernel event next, at its own time when that is later than now (the clock
   * moves there; what was due before it runs late): `m<id>` a message (a connection's head;
   * control segments too), `t<id>` a timer, `e<seq>` any other event by its queue sequence
   * number (a disk's fsync completion, its callback). The model checker's step (src/search/).
   */
  | { kind: "next"; ref: string }
  /** A fault: crash, restart, pause, resume, cut, partition, heal… */
  | { kind: "fault"; fault: FaultAction }
  /** A client starts an operation. */
  | ({ kind: "client"; client: string } & ClientOp);

export interface Intervention {
  /** Applied after exactly this many kernel events. */
  atEvent: number;
  action: Action;
}

/** A pending event of the run, as the UI lists it. */
export type PendingEvent =
  | {
      kind: "message";
      /** `m<id>`: the message id, stable across re-executions. */
      ref: string;
      msg: number;
      atUs: number;
      from: string;
      to: string;
      channel: "datagram" | "connection";
      /** The connection it travels on (connections only). */
      conn: number | undefined;
      /** ZooKeeper's (or the model's) own name of the message: PROPOSAL, fle.notification… */
      type: string;
      /** The book's name: PROPOSE, ACK, CEPOCH, vote… */
      book: string;
      /** A short detail (the zxid of a proposal…). */
      detail: string;
      /** Where it waits: in flight; held by a cut link; parked on a paused receiver. */
      state: "in-flight" | "held" | "parked";
      /** Connections: it is the next segment its receiver takes (only the head can go next). */
      head: boolean;
    }
  | {
      kind: "timer";
      /** `t<id>`: the timer id, stable across re-executions. */
      ref: string;
      timer: number;
      atUs: number;
      node: string;
      label: string;
      book: string;
      state: "due" | "parked";
    };

/** One node's protocol state in the book's terms, as plain data. */
export interface NodeView {
  id: string;
  status: "up" | "down" | "paused";
  /** The role in the book's words (leader, follower, looking, client…). */
  role: string;
  /** Labelled values in display order: ["epoch", "1"], ["last zxid", "0x100000003"]… */
  fields: [string, string][];
}

export interface Verdict {
  checker: string;
  ok: boolean;
  /** The first violation, when not ok. */
  message?: string;
  eventIndex?: number;
}

/**
 * A protocol's own pane below the nodes, as lines of text: what one node line cannot show
 * (Paxos: each ballot's promises and acceptances across the acceptors; Multi-Paxos: the log,
 * slot by slot, on every replica). At most `PANEL_ROWS` lines, the newest last.
 */
export interface Panel {
  title: string;
  lines: string[];
}

export const PANEL_ROWS = 3;

/**
 * Whose a message is, for the space-time strip: the protocol's own messages (always drawn), a
 * client's traffic (drawn on request), or background chatter such as heartbeats (never drawn).
 */
export type Traffic = "protocol" | "client" | "background";

/** One recent trace event, for the space-time strip and the narration. */
export interface RecentEvent {
  event: TraceEvent;
  /** The narration line, when the adapter has one for it. */
  narration: string | undefined;
  /** Book name of a message event (send, deliver, drop, hold, duplicate). */
  book: string | undefined;
  /** Message events: whose traffic it is. */
  traffic: Traffic | undefined;
  /** A decisive event (a commit, a decision, a value chosen…): marked in the narration, the last one pinned. */
  decisive: boolean;
}

export interface Frame {
  protocol: string;
  seed: number;
  variant: string | undefined;
  /** Steps taken on the current branch since the session's start (the UI's "step N"; negative before the start). */
  step: number;
  /** How many steps from the start the branch's recorded future holds (step < steps: the learner went back). */
  steps: number;
  branch: number;
  branches: number;
  position: number;
  /** The index of the last trace event (−1 before the first): the "event N" a violation names too. */
  lastEvent: number;
  nowUs: number;
  nodes: NodeView[];
  pending: PendingEvent[];
  /** The last trace events, oldest first; `stepFrom` is the trace index where the last step began. */
  recent: RecentEvent[];
  stepFrom: number;
  verdicts: Verdict[];
  /** The protocol's own pane, when its adapter draws one. */
  panel?: Panel;
  /** The lesson's goal, when the session has one; `reachedAt`: the trace index where it was reached. */
  goal: { reached: boolean; text: string; reachedAt?: number } | undefined;
}

/**
 * A lesson's goal, judged from the trace as the run goes (a fresh one per re-execution, so
 * going back un-reaches a goal reached later).
 */
export interface GoalWatch<K extends TraceKind = TraceKind> {
  /** The kinds it reads. */
  readonly kinds: readonly K[];
  onEvent(event: TraceEvent<K>): void;
  /** Reached, and what to say about it (the outcome's explanation, or what is still missing). */
  status(): { reached: boolean; text: string };
}

/** A built world: the simulator plus what the adapter keeps to answer questions about it. */
export interface World {
  readonly sim: Simulator;
  /** Checkers whose `finish()` only returns what they found so far (safe to call at any time). */
  readonly liveCheckers: readonly Checker[];
}

export interface ProtocolAdapter<W extends World = World> {
  /** The `zksim learn` name: zab, paxos, multipaxos, 2pc, 3pc. */
  readonly protocol: string;
  readonly title: string;
  /** Variants the adapter accepts (`--variant`), the first being the default. */
  readonly variants: readonly string[];
  /** Builds a fresh world for a seed: nodes, checkers subscribed, nothing run yet. */
  build(seed: number, variant: string): W;
  /** True once the world is ready for the learner (an elected leader, connected clients…). */
  ready(world: W): boolean;
  /** The book's name and a short detail of a message. */
  bookName(message: PendingMessage, world: W): { book: string; detail: string };
  /** The book's name of a timer, from its label. */
  timerName(label: string): string;
  /** Every node's state, in display order. */
  nodeViews(world: W): NodeView[];
  /** The protocol's own pane (optional). */
  panel?(world: W): Panel;
  /** Book name of a traced message type (sends and deliveries carry only the type). */
  bookOfType(type: string): string | undefined;
  /**
   * The book's name of one sent message, by its id, where the type alone cannot tell (ZAB's ACK
   * of NEWLEADER is ACK-LD; a 2PC vote is Yes or No); undefined: `bookOfType` says it.
   */
  bookOfSent?(msg: number, type: string, world: W): string | undefined;
  /** Whose a message type is (default: the protocol's when it has a book name, a client's otherwise). */
  trafficOf?(type: string): Traffic;
  /** The events a learner must not miss: a commit, a decision, a value chosen, a leader established… */
  isDecisive?(event: TraceEvent): boolean;
  /** One narration line for a trace event in the book's vocabulary, or undefined (not worth a line). */
  narrate(event: TraceEvent, world: W): string | undefined;
  /**
   * What-if: what an action did in a run-ahead fork, in the book's terms ("s3's log is cut back
   * from … to …"), comparing the frames before and after. Verdict changes are reported for
   * every protocol by the stepper itself.
   */
  threats?(before: Frame, after: Frame): string[];
  /** Starts a client operation (UserInputError if the adapter has no such client). */
  clientAction(world: W, client: string, op: ClientOp): void;
}
