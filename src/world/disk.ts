/**
 * A node's disk as a process sees it: named files of records, each with a byte size, that
 * survive a crash of the process once fsynced. `fsync(file, onDone)` covers the writes issued
 * before it; `onDone` runs when they are durable. A crash loses exactly the writes not yet
 * fsynced, and the first of them may survive torn (`isTorn`): a prefix of a record, unreadable,
 * the way a partial sector write looks to a log reader. A full disk refuses a write with a typed
 * ENOSPC result, never an exception.
 */

export type DiskResult = { ok: true } | { ok: false; err: "ENOSPC" };

/** A record that was being written when the node crashed: only `keptBytes` of it made it. */
export class TornRecord {
  readonly torn = true;
  constructor(
    readonly keptBytes: number,
    readonly sizeBytes: number,
  ) {}
}

export function isTorn(record: unknown): record is TornRecord {
  return record instanceof TornRecord;
}

export interface NodeDisk {
  append(name: string, record: unknown, sizeBytes: number, label?: string): DiskResult;
  /** Replaces the whole file (a snapshot written at once). */
  replace(name: string, records: unknown[], sizes: number[]): DiskResult;
  /** Cuts the file to its first `keep` records (`RandomAccessFile.setLength`); a full disk never refuses it. */
  truncate(name: string, keep: number): void;
  remove(name: string): void;
  fsync(name: string, onDone?: () => void): void;
  /** The file's records as written so far (torn ones included after a crash). */
  read(name: string): readonly unknown[];
  exists(name: string): boolean;
  list(): string[];
  sizeOf(name: string): number;
}
