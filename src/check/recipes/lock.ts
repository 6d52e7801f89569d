/**
 * Checkers for the exclusive lock, from `recipe.lock` / `recipe.resource` annotations and the
 * session facts of the trace (never from the recipe's own objects):
 *
 * - `recipe.lock-mutex`: mutual exclusion among live holders. A hold runs from `acquired` to
 *   the first of `released` / `lost` by the holder, its session's end (closeSession applied)
 *   or its node's crash. Another `acquired` inside an open hold is a violation. Fencing
 *   tokens of successive grants strictly increase. Liveness: at the end of a run that has
 *   been quiet (no faults) for `stallMs`, clients still waiting with live sessions while
 *   nobody holds the lock and nothing happened to it for `stallMs` means the lock is stuck
 *   (e.g. an orphaned lock node from a blindly retried create). The logic is exclusive.ts.
 * - `recipe.lock-herd`: no herd effect. Watch notifications a lock client gets about the lock
 *   directory or another client's lock node (its own node excluded) must not exceed the
 *   number of lock nodes that went away (releases, abandoned attempts, ended sessions): each
 *   deletion wakes at most one waiter.
 * - `recipe.lock-fencing`: what fencing tokens can promise, and what writing without them
 *   breaks. A fenced resource accepts writes in token order: an accepted write that took effect
 *   (its `zxid`) after one with a larger token is a violation. The order is the zxids', not the
 *   annotations': a writer whose reply was lost learns only later that its write landed. A fenced write cannot promise more: a paused holder
 *   that wakes after its session expired can still write while the next holder holds the lock,
 *   and the resource accepts it if the next holder has not written yet (its token is the
 *   largest the resource has seen) — it is ordered before everything the next holder writes.
 *   An unfenced write has no such order: one that began after a newer token was granted is a
 *   violation (the old holder acted after losing the lock, and nothing stopped it).
 */
import type { Checker, RunEnd, Violation } from "../checker.js";
import { ViolationLog, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { SessionFates } from "./sessions.js";
import { booleanField, guarded, intField, optionalStringField, optionalZxidField, stringField } from "../event-reader.js";
import { ExclusiveRoleChecker, type ExclusiveRoleSpec } from "./exclusive.js";

export const LOCK_MUTEX: ExclusiveRoleSpec = {
  name: "recipe.lock-mutex",
  kind: "recipe.lock",
  key: "lock",
  role: "held",
  grant: ["acquired"],
  end: ["released", "lost"],
  wait: ["waiting"],
  unwait: ["abandoned"],
  tokens: true,
  endsOnDisconnect: false,
};

/** Mutual exclusion, growing tokens, and no stuck lock (see exclusive.ts). */
export class LockMutexChecker extends ExclusiveRoleChecker {
  constructor(stallMs?: number) {
    super(LOCK_MUTEX, stallMs);
  }
}

const HERD_KINDS = ["recipe.lock", "client.watch", ...SessionFates.KINDS] as const;
type HerdKind = KindsOf<typeof HERD_KINDS>;

export class LockHerdChecker implements Checker<HerdKind> {
  readonly name = "recipe.lock-herd";
  readonly kinds = HERD_KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly fates = new SessionFates();
  private readonly dirs = new Map<string, { notifications: number; deletions: number; acquisitions: number; sessions: Set<string> }>();

  onEvent(e: TraceEvent<HerdKind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<HerdKind>): void {
    const fate = this.fates.onEvent(e);
    if (fate?.kind === "session-ended") for (const s of fate.sessions) for (const d of this.dirs.values()) if (d.sessions.has(s)) d.deletions++;
    if (e.kind === "recipe.lock") {
      const d = this.dir(stringField(e, "lock"));
      d.sessions.add(stringField(e, "session"));
      const event = stringField(e, "event");
      if (event === "acquired") d.acquisitions++;
      if (event === "released" || event === "abandoned") d.deletions++;
      return;
    }
    if (e.kind !== "client.watch") return;
    // A state-only notification (no path) is not news of a node.
    const path = optionalStringField(e, "path");
    if (path === undefined) return;
    const session = stringField(e, "session");
    for (const [dir, d] of this.dirs) {
      if (!d.sessions.has(session)) continue;
      if (path !== dir && !isUnder(path, dir)) continue;
      if (isUnder(path, dir) && isOwnNode(path, dir, session)) continue; // news of its own node
      d.notifications++;
    }
  }

  private dir(name: string) {
    let d = this.dirs.get(name);
    if (d === undefined) {
      d = { notifications: 0, deletions: 0, acquisitions: 0, sessions: new Set() };
      this.dirs.set(name, d);
    }
    return d;
  }

  /** Watch notifications per acquisition, by lock directory (the herd metric). */
  metrics(): Map<string, { notifications: number; acquisitions: number; deletions: number }> {
    return new Map([...this.dirs].map(([k, d]) => [k, { notifications: d.notifications, acquisitions: d.acquisitions, deletions: d.deletions }]));
  }

  finish(end?: RunEnd): Violation[] {
    if (end === undefined) return this.log.violations;
    for (const [dir, d] of this.dirs) {
      if (d.notifications <= d.deletions) continue;
      this.log.add(
        end,
        `herd effect on ${dir}: lock clients got ${d.notifications} watch notifications for ${d.acquisitions} acquisitions and ${d.deletions} lock-node deletions — each deletion should wake at most one waiter (its successor)`,
      );
    }
    return this.log.violations;
  }
}

/** `path` starts with `dir` + "/" (no text made per notification). */
function isUnder(path: string, dir: string): boolean {
  return path.length > dir.length && path.charCodeAt(dir.length) === 47 && path.startsWith(dir);
}

/** `path` (under `dir`) starts with `dir/<session>-`: a lock node of that session. */
function isOwnNode(path: string, dir: string, session: string): boolean {
  const at = dir.length + 1;
  return path.startsWith(session, at) && path.charCodeAt(at + session.length) === 45;
}

interface AcceptedWrite {
  zxid: bigint;
  token: number;
  client: string;
}

const FENCING_KINDS = ["recipe.lock", "recipe.resource"] as const;
type FencingKind = KindsOf<typeof FENCING_KINDS>;

export class LockFencingChecker implements Checker<FencingKind> {
  readonly name = "recipe.lock-fencing";
  readonly kinds = FENCING_KINDS;
  readonly log = new ViolationLog(this.name);
  /** Largest token granted so far (one lock guards the resources of a run: tokens of different locks do not compare). */
  private maxGranted = -1;
  private readonly begun = new Map<string, number>();
  /** Per resource, the accepted writes as (zxid where it took effect, token), by zxid, and the one with the largest token. */
  private readonly accepted = new Map<string, { writes: AcceptedWrite[]; largest: AcceptedWrite | undefined }>();

  onEvent(e: TraceEvent<FencingKind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<FencingKind>): void {
    if (e.kind === "recipe.lock") {
      if (stringField(e, "event") === "acquired") this.maxGranted = Math.max(this.maxGranted, intField(e, "token"));
      return;
    }
    const resource = stringField(e, "resource");
    const client = stringField(e, "client");
    const token = intField(e, "token");
    const outcome = stringField(e, "outcome");
    const key = `${resource} ${client} ${token}`;
    if (outcome === "begin") {
      this.begun.set(key, this.maxGranted);
      return;
    }
    if (outcome !== "accepted") return;
    const grantedBefore = this.begun.get(key) ?? this.maxGranted;
    this.begun.delete(key);
    if (!booleanField(e, "fenced") && token < grantedBefore) {
      this.log.add(e, `${resource} accepted a stale unfenced write from ${client} with token ${token}, though token ${grantedBefore} had been granted before the write began: the old holder acted after losing the lock, and nothing ordered its write`);
    }
    const zxid = optionalZxidField(e, "zxid");
    let r = this.accepted.get(resource);
    if (r === undefined) this.accepted.set(resource, (r = { writes: [], largest: undefined }));
    const writes = r.writes;
    // Without a zxid (an older trace), the write is taken to have landed last.
    const at = zxid ?? (writes.length > 0 ? writes[writes.length - 1]!.zxid + 1n : 0n);
    const write = { zxid: at, token, client };
    // Nearly always the write took effect after every earlier one: then only the largest token so far can be out of order.
    const inOrder = writes.length === 0 || writes[writes.length - 1]!.zxid < at;
    const earlierLarger = inOrder ? (r.largest !== undefined && r.largest.token > token ? [r.largest] : []) : writes.filter((w) => w.zxid < at && w.token > token);
    const laterSmaller = inOrder ? [] : writes.filter((w) => w.zxid > at && w.token < token);
    for (const w of earlierLarger) this.log.add(e, `${resource} accepted token ${token} from ${write.client} after accepting token ${w.token} from ${w.client}: writes went back in token order (0x${at.toString(16)} after 0x${w.zxid.toString(16)})`);
    for (const w of laterSmaller) this.log.add(e, `${resource} accepted token ${w.token} from ${w.client} after accepting token ${token} from ${write.client}: writes went back in token order (0x${w.zxid.toString(16)} after 0x${at.toString(16)})`);
    writes.push(write);
    if (!inOrder) writes.sort((a, b) => (a.zxid < b.zxid ? -1 : a.zxid > b.zxid ? 1 : 0));
    if (r.largest === undefined || token > r.largest.token) r.largest = write;
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
