/**
 * What 2PC and 3PC share (book 2.1): the transactions a client asks a coordinator to run, the
 * timing every node uses, and how a node reads its log back after a crash.
 *
 * A transaction writes one key of a small keyed store at every participant (each participant is
 * one site holding its own copy of the key space). Values are strings or numbers.
 */
import { isTorn, type NodeContext } from "../../world/index.js";

export type Value = string | number;

/** A transaction as a client submits it. `noVoteFrom`: participants whose execution fails (they vote No). */
export interface TxnRequest {
  txn: string;
  key: string;
  value: Value;
  noVoteFrom: string[];
}

/** Timing shared by the coordinator, the participants and the clients (local clock, ms). */
export interface CommitTiming {
  /** The coordinator's wait for every vote (and, in 3PC, every preCommit Ack) before it aborts. */
  voteTimeoutMs: number;
  /** A participant's wait for the coordinator's next message after it voted Yes (or acked preCommit). */
  decisionTimeoutMs: number;
  /** Resend interval for messages not yet answered (datagrams may be lost). */
  retransmitMs: number;
  /** How long a participant running the termination protocol waits for its peers' answers. */
  terminationWaitMs: number;
  /** A client's resend interval for its transaction request. */
  clientRetryMs: number;
}

export const DEFAULT_TIMING: CommitTiming = {
  voteTimeoutMs: 500,
  decisionTimeoutMs: 1000,
  retransmitMs: 100,
  terminationWaitMs: 200,
  clientRetryMs: 500,
};

/**
 * Who an in-doubt participant asks: "coordinator" (the book's 2PC: only the coordinator knows)
 * or "cooperative" (the literature's cooperative termination protocol: the other participants too).
 */
export type Termination = "coordinator" | "cooperative";

/** The records of a log file, in order, with a torn tail (a crash mid-write) left out. */
export function readLog<R>(ctx: NodeContext, file: string): R[] {
  return ctx.disk.read(file).filter((r) => !isTorn(r)) as R[];
}

/** How long a node whose disk is full waits before it writes a log record again. */
export const LOG_RETRY_MS = 100;

/**
 * Appends a record to a log file and fsyncs it; `onDurable` runs once it would survive a crash.
 * On a full disk the append fails (ENOSPC): nothing is written, and the node writes the record
 * again every LOG_RETRY_MS until there is room — what it was about to do waits for the record,
 * as every step of these protocols waits for its log.
 */
export function logDurably(ctx: NodeContext, file: string, record: object, onDurable: () => void): void {
  if (!ctx.disk.append(file, record, recordBytes(record)).ok) {
    ctx.setTimerMs(LOG_RETRY_MS, () => logDurably(ctx, file, record, onDurable), "log-retry");
    return;
  }
  ctx.disk.fsync(file, onDurable);
}

/** A record's size on disk: a fixed header plus its text, enough to make fsync cost bytes. */
export function recordBytes(record: object): number {
  return 32 + JSON.stringify(record).length;
}
