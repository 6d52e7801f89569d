/**
 * `recipe.rwlock`: the shared lock's exclusion, from `recipe.rwlock` annotations and session
 * facts. A hold runs from `acquired` to the first of `released`, its session's end, or its
 * node's crash. A write grant while anyone else holds the lock, or a read grant while another
 * session holds it for writing, is a violation.
 */
import type { Checker, Violation } from "../checker.js";
import { ViolationLog } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { SessionFates } from "./sessions.js";
import { checked, guarded, stringField } from "../event-reader.js";

interface Hold {
  client: string;
  mode: string;
}

export class ReadWriteLockChecker implements Checker {
  readonly name = "recipe.rwlock";
  readonly log = new ViolationLog(this.name);
  private readonly fates = new SessionFates();
  /** lock → session → hold. */
  private readonly holds = new Map<string, Map<string, Hold>>();

  accepts(kind: string): boolean {
    return kind === "recipe.rwlock" || SessionFates.reads(kind);
  }

  onEvent(e: TraceEvent): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent): void {
    const fate = this.fates.onEvent(e);
    if (fate !== undefined) {
      for (const l of this.holds.values()) for (const [s, h] of [...l]) if (fate.kind === "session-ended" ? s === fate.session : h.client === fate.client) l.delete(s);
      return;
    }
    const c = checked(e);
    if (c.kind !== "recipe.rwlock") return;
    const lock = stringField(c, "lock");
    const session = stringField(c, "session");
    const event = stringField(c, "event");
    const l = this.holds.get(lock) ?? new Map<string, Hold>();
    this.holds.set(lock, l);
    if (event === "released") l.delete(session);
    // A stale follower's grant to a session already closed elsewhere is over at once.
    if (event !== "acquired" || this.fates.isEnded(session)) return;
    const mode = stringField(c, "mode");
    const client = stringField(c, "client");
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
