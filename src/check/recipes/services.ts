/**
 * Checkers for the "out of the box" uses, from `recipe.group` / `recipe.config` /
 * `recipe.naming` annotations and session facts:
 *
 * - `recipe.group`: a view never lists a member that never joined (by the end of the run); a fresh view (read after
 *   sync, with no fault under way) lists every member that joined, has not left, and whose
 *   session is alive (its closeSession not applied), and no other — except a member whose
 *   client was told its session expired before the close was applied: a server answers
 *   SESSIONEXPIRED as soon as its tracker drops the session (a leader resumed from a pause
 *   expires every session at once), while the ephemeral node stays until the quorum applies
 *   the close, so a fresh view may list that member or not (recipe-group-membership
 *   --generate seed 10868).
 * - `recipe.config`: each watcher session sees versions (`v<n>`) in non-decreasing order
 *   (a client never goes back in time); a fresh read after the last write sees the last write
 *   (or a later one whose outcome is unknown: its session died in flight, and it may have landed).
 * - `recipe.naming`: no name is assigned twice, and no request (tag) gets two names — neither
 *   two assignments, nor (when a fresh listing of the directory is annotated at the end) two
 *   nodes in the directory, one of them a leaked name nobody was given. (A create held on a
 *   cut link and applied only after the recipe's look-up would leave such a node too: the
 *   recipe cannot see it coming, and the checker reports it for what it is, a leaked name.)
 */
import type { Checker, RunEnd, Violation } from "../checker.js";
import { ViolationLog, type KindsOf } from "../checker.js";
import { NODE_AND_LINK_FAULT_KINDS } from "../../sim/trace-schema.js";
import type { TraceEvent } from "../../sim/trace.js";
import { SessionFates } from "./sessions.js";
import { guarded, nullableStringField, optionalBooleanField, optionalStringField, optionalStringListField, stringField, stringListField } from "../event-reader.js";

const GROUP_KINDS = ["recipe.group", "client.state", ...SessionFates.KINDS] as const;
type GroupKind = KindsOf<typeof GROUP_KINDS>;

export class GroupChecker implements Checker<GroupKind> {
  readonly name = "recipe.group";
  readonly kinds = GROUP_KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly fates = new SessionFates();
  /** group → member → session that joined it (while joined). */
  private readonly live = new Map<string, Map<string, string>>();
  /** group → member → session whose client was told it expired, its close not yet applied: listed or not. */
  private readonly doubtful = new Map<string, Map<string, string>>();
  private readonly everJoined = new Map<string, Set<string>>();
  /** Members seen in views, with the first event that showed each (checked at the end: a view may show a join whose reply is still on its way). */
  private readonly seen = new Map<string, Map<string, TraceEvent>>();

  onEvent(e: TraceEvent<GroupKind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<GroupKind>): void {
    const fate = this.fates.onEvent(e);
    if (fate?.kind === "session-ended") for (const s of fate.sessions) this.endSession(s);
    if (e.kind === "client.state" && stringField(e, "state") === "CLOSED" && optionalStringField(e, "cause") === "expired") this.toldExpired(stringField(e, "session"));
    if (e.kind !== "recipe.group") return;
    const group = stringField(e, "group");
    const event = stringField(e, "event");
    const live = this.live.get(group) ?? new Map<string, string>();
    this.live.set(group, live);
    const ever = this.everJoined.get(group) ?? new Set<string>();
    this.everJoined.set(group, ever);
    if (event === "joined") {
      const member = stringField(e, "member");
      live.set(member, stringField(e, "session"));
      this.doubtful.get(group)?.delete(member);
      ever.add(member);
    } else if (event === "left") {
      live.delete(stringField(e, "member"));
      this.doubtful.get(group)?.delete(stringField(e, "member"));
    } else if (event === "view") {
      const members = stringListField(e, "members");
      const seen = this.seen.get(group) ?? new Map<string, TraceEvent>();
      this.seen.set(group, seen);
      for (const m of members) if (!seen.has(m)) seen.set(m, e);
      if (optionalBooleanField(e, "fresh") === true) {
        const expected = [...live.keys()].sort();
        const doubtful = this.doubtful.get(group) ?? new Map<string, string>();
        const listed = [...members].filter((m) => !doubtful.has(m) || live.has(m)).sort();
        if (expected.join(",") !== listed.join(",")) this.log.add(e, `fresh view of ${group} at ${stringField(e, "client")} is [${members.join(", ")}], expected the live members [${expected.join(", ")}]`);
      }
    }
  }

  private endSession(session: string): void {
    for (const g of [...this.live.values(), ...this.doubtful.values()]) for (const [m, s] of [...g]) if (s === session) g.delete(m);
  }

  /** The client knows its session is gone; its node stays until the close is applied (endSession). */
  private toldExpired(session: string): void {
    for (const [group, g] of this.live) {
      for (const [m, s] of [...g]) {
        if (s !== session) continue;
        g.delete(m);
        const d = this.doubtful.get(group) ?? new Map<string, string>();
        this.doubtful.set(group, d);
        d.set(m, s);
      }
    }
  }

  finish(): Violation[] {
    for (const [group, seen] of this.seen) {
      const ever = this.everJoined.get(group) ?? new Set<string>();
      for (const [m, e] of seen) if (!ever.has(m)) this.log.add(e, `a view of ${group} listed ${m}, which never joined`);
    }
    return this.log.violations;
  }
}

const ANNOUNCED_KINDS = ["recipe.group"] as const;
type AnnouncedKind = KindsOf<typeof ANNOUNCED_KINDS>;

/**
 * `recipe.group-announced`: the group recipe announces what `recipe.group` judges. That checker
 * reads only the recipe's own annotations, so a run whose membership events vanished passes it
 * with nothing judged. The scripts that name this checker (recipe-group-membership,
 * recipe-services) end with a fresh view of the group (read after sync, `fresh`), which
 * `recipe.group` compares with the members that announced their join: a run without one lost
 * the recipe's history. State: one flag.
 */
export class GroupAnnouncedChecker implements Checker<AnnouncedKind> {
  readonly name = "recipe.group-announced";
  readonly kinds = ANNOUNCED_KINDS;
  readonly log = new ViolationLog(this.name);
  private freshView = false;

  onEvent(e: TraceEvent<AnnouncedKind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<AnnouncedKind>): void {
    if (stringField(e, "event") === "view" && optionalBooleanField(e, "fresh") === true) this.freshView = true;
  }

  finish(end?: RunEnd): Violation[] {
    if (!this.freshView) this.log.add(end ?? { index: 0, atUs: 0 }, "no fresh view of a group was announced: the group's membership history is missing, so recipe.group judged nothing");
    return this.log.violations;
  }
}

function versionOf(value: string | null): number {
  const m = /^v(\d+)/.exec(String(value));
  return m === null ? -1 : Number(m[1]);
}

/**
 * How long after the last configuration write and the last fault a watch loop must have seen
 * that write: a reconnect, or a new session after an expiry, and one read, fit well inside it.
 */
export const CONFIG_CONVERGE_MS = 8_000;

const CONFIG_KINDS = ["recipe.config", ...NODE_AND_LINK_FAULT_KINDS] as const;
type ConfigKind = KindsOf<typeof CONFIG_KINDS>;

/**
 * `recipe.config`: no watcher sees the configuration go back; a fresh read (sync first) after
 * the last write returns it; and the watch loops converge — a loop stopped at least
 * `CONFIG_CONVERGE_MS` after the last write and the last fault must have seen the last write.
 * "The last write" is the last acknowledged one, or any later one begun (`write-begin`) whose
 * outcome never came: the publisher's session died with it in flight, so it may have landed.
 * (One publisher writes v1, v2, … in turn; a write of a dead session cannot land after a later
 * acknowledged one.)
 */
export class ConfigChecker implements Checker<ConfigKind> {
  readonly name = "recipe.config";
  readonly kinds = CONFIG_KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly lastSeen = new Map<string, number>();
  /**
   * Per config: the last acknowledged version, when writing last happened, and the versions
   * begun after it and never acknowledged.
   */
  private readonly writes = new Map<string, { version: number; atUs: number; unknown: Set<number> }>();
  private lastFaultUs = -Infinity;

  onEvent(e: TraceEvent<ConfigKind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<ConfigKind>): void {
    if (e.kind !== "recipe.config") {
      this.lastFaultUs = e.atUs;
      return;
    }
    const config = stringField(e, "config");
    const event = stringField(e, "event");
    const client = stringField(e, "client");
    const session = stringField(e, "session");
    const v = versionOf(nullableStringField(e, "value"));
    let written = this.writes.get(config);
    if (written === undefined) this.writes.set(config, (written = { version: -1, atUs: -Infinity, unknown: new Set() }));
    if (event === "write-begin") {
      written.unknown.add(v);
      written.atUs = e.atUs;
      return;
    }
    if (event === "write") {
      if (v > written.version) {
        written.version = v;
        written.atUs = e.atUs;
      }
      for (const u of written.unknown) if (u <= v) written.unknown.delete(u);
      return;
    }
    const isLast = (x: number) => x === written.version || written.unknown.has(x);
    if (event === "stopped") {
      const quietUs = e.atUs - Math.max(written.atUs, this.lastFaultUs);
      if (written.version >= 0 && quietUs >= CONFIG_CONVERGE_MS * 1000 && !isLast(v)) {
        this.log.add(
          e,
          `the watch loop of ${client} (session ${session}) on ${config} stopped at ${v < 0 ? "no value" : `v${v}`}, ${(quietUs / 1000).toFixed(0)} ms after the last write (v${written.version}) and the last fault: watchers must converge on the last written value`,
        );
      }
      return;
    }
    if (event !== "seen") return;
    const key = `${config} ${session}`;
    const prev = this.lastSeen.get(key) ?? -1;
    if (v < prev) this.log.add(e, `${client} (session ${session}) saw ${config} go back from v${prev} to v${v}`);
    this.lastSeen.set(key, Math.max(prev, v));
    if (optionalBooleanField(e, "fresh") === true && !isLast(v)) this.log.add(e, `a fresh read of ${config} at ${client} returned v${v}, but the last write was v${written.version}`);
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}

const NAMING_KINDS = ["recipe.naming"] as const;
type NamingKind = KindsOf<typeof NAMING_KINDS>;

export class NamingChecker implements Checker<NamingKind> {
  readonly name = "recipe.naming";
  readonly kinds = NAMING_KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly names = new Map<string, string>();
  private readonly tags = new Map<string, string>();

  onEvent(e: TraceEvent<NamingKind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<NamingKind>): void {
    const event = stringField(e, "event");
    if (event === "listed") return this.onListed(e);
    if (event !== "assigned") return;
    const dir = stringField(e, "dir");
    const client = stringField(e, "client");
    const name = `${dir}/${stringField(e, "name")}`;
    const tag = `${dir}/${stringField(e, "tag")}`;
    const prev = this.names.get(name);
    if (prev !== undefined) this.log.add(e, `name ${name} was assigned twice (to ${prev} and ${client})`);
    this.names.set(name, client);
    const prevName = this.tags.get(tag);
    if (prevName !== undefined && prevName !== name) this.log.add(e, `request ${tag} got two names: ${prevName} and ${name}`);
    this.tags.set(tag, name);
  }

  /** A fresh listing: a request (the name minus ZooKeeper's 10-digit suffix) with two nodes holds two names. */
  private onListed(e: TraceEvent): void {
    const dir = stringField(e, "dir");
    const byTag = new Map<string, string[]>();
    for (const n of optionalStringListField(e, "names") ?? []) {
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
