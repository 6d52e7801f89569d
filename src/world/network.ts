/**
 * Connections as a process sees them: TCP-like, FIFO and reliable while open. A connection
 * ends with a reason: `closed` (an orderly close by the peer), `reset` (the peer crashed, or an
 * error on the wire), `refused` (nobody listens there), `timeout` (the connect did not finish).
 * A partition tells nobody: the connection stays open and its messages stop, until a timeout
 * of the protocol's own notices.
 */

export type CloseReason = "closed" | "reset" | "refused" | "timeout";

/** One end of a connection: who is at either end, whether it is open, send, close. */
export interface Endpoint {
  readonly id: number;
  readonly localId: string;
  readonly remoteId: string;
  /** The address the remote end connected from, when it relays another's (serve's gateway). */
  readonly remoteAddress: string | undefined;
  readonly open: boolean;
  readonly closed: boolean;
  send(message: unknown): void;
  close(): void;
}

export interface ConnectionHandlers {
  onOpen?(endpoint: Endpoint): void;
  onMessage(endpoint: Endpoint, message: unknown): void;
  onClose?(endpoint: Endpoint, reason: CloseReason): void;
}

export interface ConnectOptions {
  /** Give up connecting after this long (default: the world's own connect timeout). */
  timeoutUs?: number;
  /**
   * The address the accepting side sees the connection come from, when the connecting node only
   * relays it (serve's gateway nodes pass on a real client's address); default: the node's own.
   */
  sourceAddress?: string;
}
