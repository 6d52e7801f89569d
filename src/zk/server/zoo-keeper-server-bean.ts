/**
 * What a running server shows of itself to an operator, as 3.8 shows it through
 * `ZooKeeperServerBean` (JMX) and the dump methods behind the four-letter words
 * (`SessionTracker.dumpSessions`, `DataTree.getEphemerals`, `DataTree.dumpWatches`,
 * `ServerCnxn.dumpConnectionInfo`): plain values and read-only reports. `zksim serve` answers
 * `srvr`, `stat`, `mntr`, `cons`, `crst`, `dump`, `wchs`, `wchc`, `wchp` and `isro` from this view
 * only, never by reaching into the server's database or trackers.
 */
import type { SessionId, Zxid } from "../proto/records.js";
import type { ServerCnxn } from "./server-cnxn.js";
import type { ServerWatcher } from "./watch-manager.js";

/**
 * `SessionTracker.dumpSessions` as data: the leader's (or a standalone server's) expiry buckets,
 * or a learner's global sessions with their timeouts.
 */
export type SessionDump =
  | { kind: "expiry-buckets"; sessionCount: number; buckets: { expiryMs: number; sessions: SessionId[] }[] }
  | { kind: "global-sessions"; sessions: [SessionId, number][] };

/** One watch table (WatchManager's reports), read-only: by watcher, and by path, in insertion order. */
export interface WatchesReport {
  pathsByWatcher(): ReadonlyMap<ServerWatcher, ReadonlySet<string>>;
  watchedPaths(): ReadonlyMap<string, ReadonlySet<ServerWatcher>>;
}

export interface ZooKeeperServerBean {
  /** Running and answering requests (3.8's `isRunning`): otherwise the words say ZK_NOT_SERVING. */
  readonly isServing: boolean;
  readonly lastProcessedZxid: Zxid;
  readonly minSessionTimeoutMs: number;
  readonly maxSessionTimeoutMs: number;
  /** `ZKDatabase.getNodeCount`. */
  nodeCount(): number;
  /** `DataTree.approximateDataSize`. */
  approximateDataSize(): number;
  /** A four-letter word the server answers itself (`isro`: "ro" from a read-only server, else "rw"). */
  fourLetterWord(word: string): string;
  sessionDump(): SessionDump;
  /** `DataTree.getEphemerals`: each session that holds (or held) ephemerals, its paths in its set's order. */
  ephemerals(): [SessionId, string[]][];
  /** The data watches (`wchs`, `wchc`, `wchp` read this table, as 3.8's WatchCommand does). */
  dataWatches(): WatchesReport;
  /** `DataTree.getWatchCount`: (path, watcher) pairs of the data and the child watches. */
  watchCount(): number;
  /** Ms since it started serving, on its own clock (`mntr`'s zk_uptime). */
  uptimeMs(): number;
  /** The server's end of the client connection with this id, while it is open. */
  connection(id: number): ServerCnxn | undefined;
}
