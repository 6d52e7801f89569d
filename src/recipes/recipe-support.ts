/**
 * What every recipe shares: the host it runs on (a client node's clock, promises and trace),
 * the error classes of "Building applications on ZooKeeper" (recoverable CONNECTIONLOSS, the
 * unrecoverable SESSIONEXPIRED), retries for idempotent operations, and sequential-name parsing.
 *
 * Invariants:
 * - Recipes are user-level async code: they touch the world only through the client handle
 *   and the host (node-local sleeps, deferreds, trace annotations). No real clock, no timers.
 * - A recoverable error (CONNECTIONLOSS, OPERATIONTIMEOUT) means "unknown": the op may or may
 *   not have happened. Only idempotent operations (reads, deletes of our own node, versioned
 *   writes whose success can be recognised) are retried blindly; everything else is resolved
 *   by reading first.
 * - SESSIONEXPIRED (and AUTHFAILED) ends the handle: recipes throw `SessionLostError` and the
 *   application, not the recipe, decides how to rebuild (a new handle, a new recipe object).
 */
import type { Deferred } from "../base/deferred.js";
import type { AnnotationKind, TraceAnnotations } from "../sim/trace-schema.js";
import type { ZooKeeper, WatchedEvent, Watcher } from "../zk/client/index.js";
import { KeeperException, toBytes } from "../zk/client/index.js";
import { Code } from "../zk/proto/error-code.js";
import { CreateMode, EventType, Ids, KeeperState } from "../zk/proto/records.js";

/** The client node a recipe runs on; a NodeContext fits. */
export interface RecipeHost {
  readonly id: string;
  annotate<K extends AnnotationKind>(kind: K, fields: TraceAnnotations[K]): void;
  /** The node's local clock (ms), for timeouts. */
  nowMs(): number;
  /** Node-local sleep: frozen while the node is paused, never resolves if it crashes. */
  sleepMs(ms: number): Promise<void>;
  deferred<T>(): Deferred<T>;
}

/** The session behind a handle expired (or its auth failed): the handle is dead. */
export class SessionLostError extends Error {
  override readonly name = "SessionLostError";
  constructor(readonly recipe: string, readonly code: string) {
    // Made after an await (a call failed SESSIONEXPIRED, whose KeeperException has no stack
    // either, or an Expired event came): its stack would hold the recipe's frame over the
    // simulator's microtask loop, and capturing it cost more than the rest of the recipe's step.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`${recipe}: session lost (${code}); make a new handle and a new recipe object`);
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** Backoff between retries of an op that failed with CONNECTIONLOSS (ms, node-local). */
export const RETRY_BACKOFF_MS = 50;

export function keeperCode(err: unknown): string {
  if (err instanceof KeeperException) return err.codeName;
  throw err;
}

/** CONNECTIONLOSS / OPERATIONTIMEOUT (and SESSIONMOVED, which was not executed): retry. */
export function isRecoverable(err: unknown): boolean {
  return err instanceof KeeperException && (err.code === Code.CONNECTIONLOSS || err.code === Code.OPERATIONTIMEOUT || err.code === Code.SESSIONMOVED);
}

export function isSessionFatal(err: unknown): boolean {
  return err instanceof KeeperException && (err.code === Code.SESSIONEXPIRED || err.code === Code.AUTHFAILED);
}

export function hasCode(err: unknown, code: number): boolean {
  return err instanceof KeeperException && err.code === code;
}

/**
 * Runs an idempotent op, retrying after recoverable errors; a dead session becomes
 * `SessionLostError`; anything else propagates.
 */
export async function retrying<T>(host: RecipeHost, recipe: string, op: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if (isSessionFatal(err)) throw new SessionLostError(recipe, keeperCode(err));
      if (!isRecoverable(err)) throw err;
    }
    await host.sleepMs(RETRY_BACKOFF_MS);
  }
}

/**
 * Deletes a node this client created (its ephemeral, its sequential child): retried through
 * CONNECTIONLOSS, and already gone (NONODE: a retry after a delete that did happen) is success.
 * With `sessionLostOk`, a lost session is success too — its ephemeral went with it.
 */
export async function deleteOwnNode(host: RecipeHost, recipe: string, zk: ZooKeeper, node: string, sessionLostOk = false): Promise<void> {
  try {
    await retrying(host, recipe, async () => {
      try {
        await zk.delete(node, -1);
      } catch (err) {
        if (!hasCode(err, Code.NONODE)) throw err;
      }
    });
  } catch (err) {
    if (!sessionLostOk || !(err instanceof SessionLostError)) throw err;
  }
}

/**
 * The children of `dir` as a look-up after a create's CONNECTIONLOSS must read them: after a
 * sync. The lost create may have reached the leader and be proposed but not yet committed (its
 * quorum cut off, say): a plain read misses it, the retry creates a second node, and both
 * commit once the quorum is back. The leader answers a sync only after every proposal made
 * before it has committed, so the read that follows sees the lost create if it ever got that
 * far. (One still on its way to a server arrives after our session has moved to the new
 * connection's server and fails SESSIONMOVED.)
 */
export async function childrenAfterLoss(host: RecipeHost, recipe: string, zk: ZooKeeper, dir: string): Promise<string[]> {
  await retrying(host, recipe, () => zk.sync(dir));
  return retrying(host, recipe, () => zk.getChildren(dir));
}

/**
 * Creates our EPHEMERAL_SEQUENTIAL child `<dir>/<prefix>NNNNNNNNNN`, with the connection-loss
 * rule of "Building applications on ZooKeeper": after CONNECTIONLOSS the create may have
 * happened, so look (`childrenAfterLoss`) for a child carrying our (session-unique) prefix
 * before creating again. `blindRetry` skips that look — the known flaw, kept for canaries: it
 * can leave an orphan.
 */
export async function createOwnSequential(host: RecipeHost, recipe: string, zk: ZooKeeper, dir: string, prefix: string, blindRetry = false): Promise<string> {
  for (;;) {
    try {
      return await zk.create(`${dir}/${prefix}`, host.id, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
    } catch (err) {
      if (isSessionFatal(err)) throw new SessionLostError(recipe, keeperCode(err));
      if (!isRecoverable(err)) throw err;
    }
    if (blindRetry) continue;
    const children = await childrenAfterLoss(host, recipe, zk, dir);
    const mine = children.find((c) => c.startsWith(prefix));
    if (mine !== undefined) return `${dir}/${mine}`;
  }
}

/**
 * The children of `dir` in sequence order, with our session's orphans deleted and left out.
 * createOwnSequential's look-up after CONNECTIONLOSS cannot see a create that is applied *later*:
 * its request was in flight on the old connection and reaches a server only after we looked
 * (say, when a partition heals). That node carries our session prefix, our session keeps it
 * alive, and nobody else will delete it — a waiter queued behind it would wait forever. Any
 * child carrying `${sessionIdHex}-` other than `ours` is such an orphan. `only` keeps the
 * sequential children (a barrier's `ready` is not one).
 */
export async function childrenWithoutOrphans(
  host: RecipeHost,
  recipe: string,
  zk: ZooKeeper,
  dir: string,
  ours: string,
  options: { watcher?: Watcher; only?: (name: string) => boolean } = {},
): Promise<string[]> {
  const all = await retrying(host, recipe, () => zk.getChildren(dir, options.watcher));
  const children = bySequence(options.only === undefined ? all : all.filter(options.only));
  const prefix = `${zk.getSessionIdHex()}-`;
  const orphans = children.filter((c) => c !== ours && c.startsWith(prefix));
  for (const o of orphans) await deleteOwnNode(host, recipe, zk, `${dir}/${o}`);
  return orphans.length === 0 ? children : children.filter((c) => !orphans.includes(c));
}

/** Creates each missing persistent ancestor and `path` itself (NODEEXISTS is success). */
export async function ensurePath(zk: ZooKeeper, host: RecipeHost, recipe: string, path: string, data = ""): Promise<void> {
  const parts = path.split("/").filter((p) => p !== "");
  let at = "";
  for (let i = 0; i < parts.length; i++) {
    at += `/${parts[i]}`;
    const node = at;
    await retrying(host, recipe, async () => {
      try {
        await zk.create(node, i === parts.length - 1 ? data : "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      } catch (err) {
        if (!hasCode(err, Code.NODEEXISTS)) throw err;
      }
    });
  }
}

/** The 10-digit suffix ZooKeeper appends to a sequential node's name. */
export function sequenceOf(name: string): number {
  const n = sequenceOrMinusOne(name);
  if (n < 0) throw notSequential(name);
  return n;
}

/** `sequenceOf`, or −1 for a name without a 10-digit suffix. */
function sequenceOrMinusOne(name: string): number {
  // Digit by digit over the last ten characters (what /(\d{10})$/ matched): a RegExp exec was a
  // hot spot when sorting children.
  if (name.length < SEQUENCE_DIGITS) return -1;
  let n = 0;
  for (let i = name.length - SEQUENCE_DIGITS; i < name.length; i++) {
    const digit = name.charCodeAt(i) - 48; // "0"
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

const SEQUENCE_DIGITS = 10;
const notSequential = (name: string): Error => new Error(`not a sequential node name: ${name}`);
/** Up to this many names are sorted by insertion on their parsed sequences; more by `Array.sort`. */
const INSERTION_SORT_MAX = 32;

/** Sequential children in sequence order (ties cannot happen under one parent). */
export function bySequence(names: readonly string[]): string[] {
  const n = names.length;
  // Each name's sequence parsed once, not twice per comparison. Insertion sort is stable, as
  // Array.sort is: the same order. A list with a name that is not sequential (or a long one)
  // goes through Array.sort, whose comparison throws on it exactly as before.
  if (n >= 2 && n <= INSERTION_SORT_MAX) {
    const out = names.slice();
    const keys = new Array<number>(n);
    let ok = true;
    for (let i = 0; i < n && ok; i++) {
      keys[i] = sequenceOrMinusOne(out[i]!);
      ok = keys[i]! >= 0;
    }
    if (ok) {
      for (let i = 1; i < n; i++) {
        const key = keys[i]!;
        const name = out[i]!;
        let j = i - 1;
        for (; j >= 0 && keys[j]! > key; j--) {
          keys[j + 1] = keys[j]!;
          out[j + 1] = out[j]!;
        }
        keys[j + 1] = key;
        out[j + 1] = name;
      }
      return out;
    }
  }
  return [...names].sort((a, b) => sequenceOf(a) - sequenceOf(b));
}

/**
 * A one-shot watch as a promise: resolves with the first node event, or with a fatal session
 * event (Expired, Closed, AuthFailed). Disconnected / SyncConnected are ignored: the client
 * re-registers the watch on reconnect (SetWatches) and the server fires it if the node changed
 * meanwhile, so waiting on is right.
 */
export function watchOnce(host: RecipeHost): { watcher: Watcher; fired: Promise<WatchedEvent> } {
  const d = host.deferred<WatchedEvent>();
  let done = false;
  const watcher: Watcher = (e) => {
    if (done || (e.type === EventType.None && !isExpiredEvent(e))) return;
    done = true;
    d.resolve(e);
  };
  return { watcher, fired: d.promise };
}

export function isExpiredEvent(e: WatchedEvent): boolean {
  return e.type === EventType.None && (e.state === KeeperState.Expired || e.state === KeeperState.Closed || e.state === KeeperState.AuthFailed);
}

// One stateless decoder (non-streaming calls keep no state): constructing a TextDecoder per
// read was most of what decoding a small value cost.
const textDecoder = new TextDecoder();
/** UTF-8 of `s`, as the client sends string data (short ASCII by hand: the encoder's call cost twice that). */
export const encodeText = (s: string): Uint8Array => toBytes(s)!;
/** `b` decoded as UTF-8 ("" for null). (The decoder beats a JavaScript loop even on short ASCII.) */
export const decodeText = (b: Uint8Array | null): string => (b === null ? "" : textDecoder.decode(b));
