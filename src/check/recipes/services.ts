/**
 * Checkers for the "out of the box" uses, from `recipe.group` / `recipe.config` /
 * `recipe.naming` annotations and session facts:
 *
 * - `recipe.group`: a view never lists a member that never joined (by the end of the run); a fresh view (read after
 *   sync, with no fault under way) lists exactly the members that joined, have not left, and
 *   whose session is alive: its closeSession has not been applied, and its client has not
 *   been told it expired (a member that knows its session is gone is no member).
 * - `recipe.config`: each watcher session sees versions (`v<n>`) in non-decreasing order
 *   (a client never goes back in time); a fresh read after the last write sees the last write
 *   (or a later one whose outcome is unknown: its session died in flight, and it may have landed).
 * - `recipe.naming`: no name is assigned twice, and no request (tag) gets two names — neither
 *   two assignments, nor (when a fresh listing of the directory is annotated at the end) two
 *   nodes in the directory, one of them a leaked name nobody was given. (A create held on a
 *   cut link and applied only after the recipe's look-up would leave such a node too: the
 *   recipe cannot see it coming, and the checker reports it for what it is, a leaked name.)
 */
import type { Checker, Violation } from "../checker.js";
import { FAULT_KINDS, ViolationLog } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { SessionFates } from "./sessions.js";

export class GroupChecker implements Checker {
  readonly name = "recipe.group";
  private readonly log = new ViolationLog(this.name);
  private readonly fates = new SessionFates();
  /** group → member → session that joined it (while joined). */
  private readonly live = new Map<string, Map<string, string>>();
  private readonly everJoined = new Map<string, Set<string>>();
  /** Members seen in views, with the first event that showed each (checked at the end: a view may show a join whose reply is still on its way). */
  private readonly seen = new Map<string, Map<string, TraceEvent>>();

  accepts(kind: string): boolean {
    return kind === "recipe.group" || kind === "client.state" || SessionFates.reads(kind);
  }

  onEvent(e: TraceEvent): void {
    const fate = this.fates.onEvent(e);
    if (fate?.kind === "session-ended") this.endSession(fate.session);
    if (e.kind === "client.state" && e.fields?.state === "CLOSED" && e.fields.cause === "expired") this.endSession(String(e.fields.session));
    if (e.kind !== "recipe.group" || e.fields === undefined) return;
    const f = e.fields;
    const group = String(f.group);
    const live = this.live.get(group) ?? new Map<string, string>();
    this.live.set(group, live);
    const ever = this.everJoined.get(group) ?? new Set<string>();
    this.everJoined.set(group, ever);
    if (f.event === "joined") {
      live.set(String(f.member), String(f.session));
      ever.add(String(f.member));
    } else if (f.event === "left") {
      live.delete(String(f.member));
    } else if (f.event === "view") {
      const members = (f.members as string[]) ?? [];
      const seen = this.seen.get(group) ?? new Map<string, TraceEvent>();
      this.seen.set(group, seen);
      for (const m of members) if (!seen.has(m)) seen.set(m, e);
      if (f.fresh === true) {
        const expected = [...live.keys()].sort();
        if (expected.join(",") !== [...members].sort().join(",")) this.log.add(e, `fresh view of ${group} at ${String(f.client)} is [${members.join(", ")}], expected the live members [${expected.join(", ")}]`);
      }
    }
  }

  private endSession(session: string): void {
    for (const g of this.live.values()) for (const [m, s] of [...g]) if (s === session) g.delete(m);
  }

  finish(): Violation[] {
    for (const [group, seen] of this.seen) {
      const ever = this.everJoined.get(group) ?? new Set<string>();
      for (const [m, e] of seen) if (!ever.has(m)) this.log.add(e, `a view of ${group} listed ${m}, which never joined`);
    }
    return this.log.violations;
  }
}

function versionOf(value: unknown): number {
  const m = /^v(\d+)/.exec(String(value));
  return m === null ? -1 : Number(m[1]);
}

/**
 * How long after the last configuration write and the last fault a watch loop must have seen
 * that write: a reconnect, or a new session after an expiry, and one read, fit well inside it.
 */
export const CONFIG_CONVERGE_MS = 8_000;

/**
 * `recipe.config`: no watcher sees the configuration go back; a fresh read (sync first) after
 * the last write returns it; and the watch loops converge — a loop stopped at least
 * `CONFIG_CONVERGE_MS` after the last write and the last fault must have seen the last write.
 * "The last write" is the last acknowledged one, or any later one begun (`write-begin`) whose
 * outcome never came: the publisher's session died with it in flight, so it may have landed.
 * (One publisher writes v1, v2, … in turn; a write of a dead session cannot land after a later
 * acknowledged one.)
 */
export class ConfigChecker implements Checker {
  readonly name = "recipe.config";
  private readonly log = new ViolationLog(this.name);
  private readonly lastSeen = new Map<string, number>();
  /**
   * Per config: the last acknowledged version, when writing last happened, and the versions
   * begun after it and never acknowledged.
   */
  private readonly writes = new Map<string, { version: number; atUs: number; unknown: Set<number> }>();
  private lastFaultUs = -Infinity;

  accepts(kind: string): boolean {
    return kind === "recipe.config" || FAULT_KINDS.has(kind);
  }

  onEvent(e: TraceEvent): void {
    if (FAULT_KINDS.has(e.kind)) {
      this.lastFaultUs = e.atUs;
      return;
    }
    if (e.kind !== "recipe.config" || e.fields === undefined) return;
    const f = e.fields;
    const config = String(f.config);
    const v = versionOf(f.value);
    let written = this.writes.get(config);
    if (written === undefined) this.writes.set(config, (written = { version: -1, atUs: -Infinity, unknown: new Set() }));
    if (f.event === "write-begin") {
      written.unknown.add(v);
      written.atUs = e.atUs;
      return;
    }
    if (f.event === "write") {
      if (v > written.version) {
        written.version = v;
        written.atUs = e.atUs;
      }
      for (const u of written.unknown) if (u <= v) written.unknown.delete(u);
      return;
    }
    const isLast = (x: number) => x === written.version || written.unknown.has(x);
    if (f.event === "stopped") {
      const quietUs = e.atUs - Math.max(written.atUs, this.lastFaultUs);
      if (written.version >= 0 && quietUs >= CONFIG_CONVERGE_MS * 1000 && !isLast(v)) {
        this.log.add(
          e,
          `the watch loop of ${String(f.client)} (session ${String(f.session)}) on ${config} stopped at ${v < 0 ? "no value" : `v${v}`}, ${(quietUs / 1000).toFixed(0)} ms after the last write (v${written.version}) and the last fault: watchers must converge on the last written value`,
        );
      }
      return;
    }
    if (f.event !== "seen") return;
    const key = `${config} ${String(f.session)}`;
    const prev = this.lastSeen.get(key) ?? -1;
    if (v < prev) this.log.add(e, `${String(f.client)} (session ${String(f.session)}) saw ${config} go back from v${prev} to v${v}`);
    this.lastSeen.set(key, Math.max(prev, v));
    if (f.fresh === true && !isLast(v)) this.log.add(e, `a fresh read of ${config} at ${String(f.client)} returned v${v}, but the last write was v${written.version}`);
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}

export class NamingChecker implements Checker {
  readonly name = "recipe.naming";
  private readonly log = new ViolationLog(this.name);
  private readonly names = new Map<string, string>();
  private readonly tags = new Map<string, string>();

  accepts(kind: string): boolean {
    return kind === "recipe.naming";
  }

  onEvent(e: TraceEvent): void {
    if (e.kind !== "recipe.naming" || e.fields === undefined) return;
    if (e.fields.event === "listed") return this.onListed(e, e.fields);
    if (e.fields.event !== "assigned") return;
    const f = e.fields;
    const name = `${String(f.dir)}/${String(f.name)}`;
    const tag = `${String(f.dir)}/${String(f.tag)}`;
    const prev = this.names.get(name);
    if (prev !== undefined) this.log.add(e, `name ${name} was assigned twice (to ${prev} and ${String(f.client)})`);
    this.names.set(name, String(f.client));
    const prevName = this.tags.get(tag);
    if (prevName !== undefined && prevName !== name) this.log.add(e, `request ${tag} got two names: ${prevName} and ${name}`);
    this.tags.set(tag, name);
  }

  /** A fresh listing: a request (the name minus ZooKeeper's 10-digit suffix) with two nodes holds two names. */
  private onListed(e: TraceEvent, f: Record<string, unknown>): void {
    const dir = String(f.dir);
    const byTag = new Map<string, string[]>();
    for (const n of (f.names as string[] | undefined) ?? []) {
      const tag = n.replace(/\d{10}$/, "");
      byTag.set(tag, [...(byTag.get(tag) ?? []), n]);
    }
    for (const [tag, names] of byTag) {
      if (names.length < 2) continue;
      const assigned = this.tags.get(`${dir}/${tag}`);
      const leaked = names.filter((n) => `${dir}/${n}` !== assigned);
      this.log.add(e, `request ${dir}/${tag} holds ${names.length} names in the directory (${names.join(", ")}); ${assigned === undefined ? "none was assigned" : `only ${assigned} was assigned, ${leaked.join(", ")} leaked`}`);
    }
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
