/**
 * `recipe.rwlock`: the shared lock's exclusion, from `recipe.rwlock` annotations and session
 * facts. A hold runs from `acquired` to the first of `released`, its session's end, or its
 * node's crash. A write grant while anyone else holds the lock, or a read grant while another
 * session holds it for writing, is a violation.
 */
import type { Checker, Violation } from "../checker.js";
import { ViolationLog, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { SessionFates } from "./sessions.js";
import { guarded, stringField } from "../event-reader.js";

interface Hold {
  client: string;
  mode: string;
}

const KINDS = ["recipe.rwlock", ...SessionFates.KINDS] as const;
type Kind = KindsOf<typeof KINDS>;

export class ReadWriteLockChecker implements Checker<Kind> {
  readonly name = "recipe.rwlock";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly fates = new SessionFates();
  /** lock → session → hold. */
  private readonly holds = new Map<string, Map<string, Hold>>();

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    const fate = this.fates.onEvent(e);
    if (fate !== undefined) {
      for (const l of this.holds.values()) for (const [s, h] of [...l]) if (fate.kind === "session-ended" ? fate.sessions.includes(s) : h.client === fate.client) l.delete(s);
      return;
    }
    if (e.kind !== "recipe.rwlock") return;
    const lock = stringField(e, "lock");
    const session = stringField(e, "session");
    const event = stringField(e, "event");
    const l = this.holds.get(lock) ?? new Map<string, Hold>();
    this.holds.set(lock, l);
    if (event === "released") l.delete(session);
    // A stale follower's grant to a session already closed elsewhere is over at once.
    if (event !== "acquired" || this.fates.isEnded(session)) return;
    const mode = stringField(e, "mode");
    const client = stringField(e, "client");
    for (const [s, h] of l) {
      if (s === session) continue;
      if (mode === "write" || h.mode === "write") this.log.add(e, `${lock}: ${client} got a ${mode} lock while ${h.client} (session ${s}) held a ${h.mode} lock`);
    }
    l.set(session, { client, mode });
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
