/**
 * `recipe.revocation`: a revocable shared lock honours revocation requests, from
 * `recipe.rwlock` and `recipe.revoke` annotations, pause/resume events and session facts.
 * (Read/write compatibility among live holders is `recipe.rwlock`'s job, on the same events.)
 *
 * - Honoured in time: once the owner of a lock node has seen the request on it (`seen`) and
 *   holds the lock (`acquired` of that node), it gives the lock up within `honourMs` — counting
 *   only time its process was running (a paused process cannot act; paused past its session
 *   timeout, it loses the lock with its session). The hold ends at `released`, the session's
 *   end or the node's crash; ending later than the bound, or not at all by the end of the run,
 *   is a violation.
 * - The revoker gets through: a writer that requested revocation (`requested`) and at the end
 *   of a run quiet for `stallMs` still waits for the lock, with a live session and a request
 *   at least `stallMs` old, is stuck.
 */
import type { Checker, RunEnd, Violation } from "../checker.js";
import { ViolationLog, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { SessionFates, fmtMs } from "./sessions.js";
import { STALL_MS } from "./exclusive.js";
import { guarded, stringField } from "../event-reader.js";

/** How long a holder may take to give the lock up after seeing the request (running time). */
export const HONOUR_MS = 1000;

interface Hold {
  client: string;
  session: string;
  node: string;
  acquiredAtUs: number;
  /** When the honour clock started: the later of `seen` and `acquired`. */
  clockFromUs?: number;
  /** The client's total paused time when the clock started. */
  pausedAtClockUs?: number;
}

/** Paused time per client node, to count a holder's running time only. */
class PausedTime {
  static readonly KINDS = ["pause", "resume", "crash"] as const;
  private readonly totalUs = new Map<string, number>();
  private readonly since = new Map<string, number>();

  onEvent(e: TraceEvent): void {
    if (e.kind === "pause") this.since.set(e.node, e.atUs);
    if ((e.kind === "resume" || e.kind === "crash") && this.since.has(e.node)) {
      this.totalUs.set(e.node, this.at(e.node, e.atUs));
      this.since.delete(e.node);
    }
  }

  /** Total paused µs of `node` up to `atUs` (not before the last event seen). */
  at(node: string, atUs: number): number {
    const since = this.since.get(node);
    return (this.totalUs.get(node) ?? 0) + (since !== undefined ? atUs - since : 0);
  }
}

const KINDS = ["recipe.rwlock", "recipe.revoke", ...PausedTime.KINDS, ...SessionFates.KINDS] as const;
type Kind = KindsOf<typeof KINDS>;

export class RevocationChecker implements Checker<Kind> {
  readonly name = "recipe.revocation";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly fates = new SessionFates();
  private readonly paused = new PausedTime();
  /** `lock session` → the session's hold on that lock. */
  private readonly holds = new Map<string, Hold>();
  /** Lock node → when its owner saw the request, before it held the lock. */
  private readonly seenWhileWaiting = new Map<string, number>();
  /** `lock session` → a writer that requested revocation and has not got the lock yet. */
  private readonly revokers = new Map<string, { lock: string; client: string; session: string; atUs: number }>();

  constructor(
    private readonly honourMs = HONOUR_MS,
    private readonly stallMs = STALL_MS,
  ) {}

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    this.paused.onEvent(e);
    const fate = this.fates.onEvent(e);
    if (fate !== undefined) {
      const gone = (session: string, client: string) => (fate.kind === "session-ended" ? fate.sessions.includes(session) : client === fate.client);
      for (const [k, h] of [...this.holds]) if (gone(h.session, h.client)) this.endHold(e, k, h, fate.kind === "session-ended" ? "its session ended" : "its node crashed");
      for (const [k, r] of [...this.revokers]) if (gone(r.session, r.client)) this.revokers.delete(k);
      return;
    }
    if (e.kind === "recipe.rwlock") this.onLockEvent(e);
    if (e.kind === "recipe.revoke") this.onRevokeEvent(e);
  }

  private onLockEvent(e: TraceEvent): void {
    const session = stringField(e, "session");
    const event = stringField(e, "event");
    const key = `${stringField(e, "lock")} ${session}`;
    if (event === "acquired" || event === "abandoned") this.revokers.delete(key);
    if (event === "released") {
      const h = this.holds.get(key);
      if (h !== undefined) this.endHold(e, key, h, "it released the lock");
    }
    // A stale follower's grant to a session already closed elsewhere is over at once.
    if (event !== "acquired" || this.fates.isEnded(session)) return;
    const node = stringField(e, "node");
    const hold: Hold = { client: stringField(e, "client"), session, node, acquiredAtUs: e.atUs };
    this.holds.set(key, hold);
    if (this.seenWhileWaiting.has(node)) this.startClock(hold, e.atUs);
    this.seenWhileWaiting.delete(node);
  }

  private onRevokeEvent(e: TraceEvent): void {
    const session = stringField(e, "session");
    const lock = stringField(e, "lock");
    const event = stringField(e, "event");
    const key = `${lock} ${session}`;
    if (event === "requested" && !this.revokers.has(key)) this.revokers.set(key, { lock, client: stringField(e, "client"), session, atUs: e.atUs });
    if (event !== "seen") return;
    const node = stringField(e, "node");
    const hold = this.holds.get(key);
    if (hold !== undefined && hold.node === node) {
      if (hold.clockFromUs === undefined) this.startClock(hold, e.atUs);
    } else {
      this.seenWhileWaiting.set(node, e.atUs);
    }
  }

  private startClock(hold: Hold, atUs: number): void {
    hold.clockFromUs = atUs;
    hold.pausedAtClockUs = this.paused.at(hold.client, atUs);
  }

  /** Running ms of the holder since its honour clock started. */
  private runningMs(h: Hold, atUs: number): number {
    return (atUs - h.clockFromUs! - (this.paused.at(h.client, atUs) - h.pausedAtClockUs!)) / 1000;
  }

  private endHold(e: TraceEvent, key: string, h: Hold, how: string): void {
    this.holds.delete(key);
    if (h.clockFromUs === undefined) return;
    const ms = this.runningMs(h, e.atUs);
    if (ms > this.honourMs) {
      this.log.add(e, `${h.client} was asked to give up ${h.node} (it knew at ${fmtMs(h.clockFromUs)}) and kept it for ${ms.toFixed(0)} ms of running time, past the ${this.honourMs} ms bound, until ${how}`);
    }
  }

  finish(end?: RunEnd): Violation[] {
    if (end === undefined) return this.log.violations;
    this.fates.endAt(end.atUs);
    for (const h of this.holds.values()) {
      if (h.clockFromUs === undefined) continue;
      const ms = this.runningMs(h, end.atUs);
      if (ms > this.honourMs) this.log.add(end, `${h.client} was asked to give up ${h.node} (it knew at ${fmtMs(h.clockFromUs)}) and still held it at the end, ${ms.toFixed(0)} ms of running time later`);
    }
    const quiet = this.fates.quietMs() >= this.stallMs;
    for (const r of this.revokers.values()) {
      if (!quiet || (end.atUs - r.atUs) / 1000 < this.stallMs) continue;
      this.log.add(end, `${r.client} (session ${r.session}) asked the readers of ${r.lock} to give up at ${fmtMs(r.atUs)} and still waited for the write lock at the end of a quiet run`);
    }
    return this.log.violations;
  }
}
