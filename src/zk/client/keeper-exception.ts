/**
 * `KeeperException`: how the client library reports every ZooKeeper result code that is not
 * OK (`KeeperException.Code`, docs/zookeeper.md §1.5), whether the server answered it or the client
 * produced it (CONNECTIONLOSS, SESSIONEXPIRED after the handle died, AUTHFAILED).
 *
 * Invariants:
 * - `code` is a ZooKeeper wire number and `codeName` its name from `error-code.ts`.
 * - Misuse that the Java client rejects with `IllegalArgumentException` before anything is
 *   sent (an invalid path, a TTL on a non-TTL mode, an unknown create mode) is reported as a
 *   KeeperException with code BADARGUMENTS and `clientSide = true`, so callers handle one
 *   typed error and can still tell "the server never saw it" apart.
 * - A failed `multi` carries the full result list in `results` (Java `getResults()`); the
 *   code is the first sub-result whose code is not OK.
 */
import { Code, codeName, isRecoverable, isSessionFatal } from "../proto/error-code.js";
import type { OpResult } from "./op.js";

export class KeeperException extends Error {
  override readonly name = "KeeperException";
  readonly codeName: string;

  constructor(
    readonly code: number,
    readonly path?: string,
    readonly results?: OpResult[],
    /** True when the client refused the call without contacting a server. */
    readonly clientSide = false,
    detail?: string,
  ) {
    // An error the server answered is made where the reply is delivered, far from the caller's
    // await: its stack would hold only kernel frames, and capturing one is most of the cost of
    // a failed call. Client-side refusals are made at the call site and keep their stack.
    const stackTraceLimit = Error.stackTraceLimit;
    if (!clientSide) Error.stackTraceLimit = 0;
    const name = codeName(code);
    super(`KeeperErrorCode = ${name}${path === undefined ? "" : ` for ${path}`}${detail === undefined ? "" : `: ${detail}`}`);
    Error.stackTraceLimit = stackTraceLimit;
    this.codeName = name;
  }

  /** CONNECTIONLOSS / OPERATIONTIMEOUT: the session may be fine; the op may or may not have happened. */
  get recoverable(): boolean {
    return isRecoverable(this.code);
  }

  /** SESSIONEXPIRED / AUTHFAILED: the handle is dead; make a new one. */
  get sessionFatal(): boolean {
    return isSessionFatal(this.code);
  }
}

export function isKeeperException(err: unknown): err is KeeperException {
  return err instanceof KeeperException;
}

/** The client-side rejection of an argument the Java client throws IllegalArgumentException for. */
export function badArguments(path: string | undefined, detail: string): KeeperException {
  return new KeeperException(Code.BADARGUMENTS, path, undefined, true, detail);
}
