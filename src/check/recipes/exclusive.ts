/**
 * The shared shape of "at most one at a time" recipe guarantees (lock holders, elected
 * leaders), checked from annotations plus session facts:
 *
 * - safety: a role (hold, leadership) runs from a `grant` event to the first of an `end`
 *   event by the same session, that session's end (closeSession applied) or its node's crash.
 *   A grant while another live session's role is open is a violation; so is a grant to a
 *   session that had ended in its client's view (a stale follower may still grant it before it
 *   applies the closeSession: such a role ends at once). With `tokens`, successive grants carry
 *   growing tokens.
 * - the recipe's side: a role the holder still claims (no end event of its own) after its client
 *   was told its session expired (with `endsOnDisconnect`, or lost its connection) is a
 *   violation (claims.ts).
 * - liveness: at the end of a run that has been quiet (no fault) for `stallMs`, sessions still
 *   waiting for the role while nobody has it, with nothing happening to it for `stallMs`,
 *   mean the recipe is stuck.
 */
import type { Checker, KindsOf, RunEnd, Violation } from "../checker.js";
import { ViolationLog } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { SessionFates, fmtMs } from "./sessions.js";
import { guarded, optionalIntField, stringField, type FieldName } from "../event-reader.js";
import { ClaimsAfterExpiry } from "./claims.js";

/** The annotations of the recipes whose role is exclusive. */
type RoleKind = "recipe.lock" | "recipe.election";
const KINDS = ["recipe.lock", "recipe.election", ...SessionFates.KINDS, ...ClaimsAfterExpiry.KINDS] as const;
type Kind = KindsOf<typeof KINDS>;

export interface ExclusiveRoleSpec {
  /** Checker name. */
  name: string;
  /** Annotation kind. */
  kind: RoleKind;
  /** The field naming the instance (`lock`, `election`). */
  key: FieldName<TraceEvent<RoleKind>>;
  /** Words for messages: "held" / "led". */
  role: string;
  grant: readonly string[];
  end: readonly string[];
  wait: readonly string[];
  unwait: readonly string[];
  tokens: boolean;
  /** The role must end at its client's Disconnected too, not only at its expiry (claims.ts): an elected leader suspends. */
  endsOnDisconnect: boolean;
}

interface Role {
  client: string;
  session: string;
  token: number;
  atUs: number;
}

interface Instance {
  open: Map<string, Role>;
  waiting: Map<string, { client: string; atUs: number }>;
  lastToken: number;
  lastEventUs: number;
}

export const STALL_MS = 20_000;

export class ExclusiveRoleChecker implements Checker<Kind> {
  readonly name: string;
  readonly kinds: readonly Kind[];
  readonly log: ViolationLog;
  private readonly fates = new SessionFates();
  private readonly instances = new Map<string, Instance>();
  private readonly claims: ClaimsAfterExpiry;

  constructor(
    private readonly spec: ExclusiveRoleSpec,
    private readonly stallMs = STALL_MS,
  ) {
    this.name = spec.name;
    this.kinds = [spec.kind, ...SessionFates.KINDS, ...ClaimsAfterExpiry.KINDS];
    this.log = new ViolationLog(spec.name);
    this.claims = new ClaimsAfterExpiry({ kind: spec.kind, role: spec.role }, spec.endsOnDisconnect);
  }

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    for (const why of this.claims.judge(e.atUs)) this.log.add(e, why);
    if (e.kind === "client.state") return this.claims.onClientState(e);
    const fate = this.fates.onEvent(e);
    if (fate !== undefined) {
      const gone = (session: string, client: string) => (fate.kind === "session-ended" ? fate.sessions.includes(session) : client === fate.client);
      for (const inst of this.instances.values()) {
        for (const [s, r] of [...inst.open]) if (gone(s, r.client)) inst.open.delete(s);
        for (const [s, w] of [...inst.waiting]) if (gone(s, w.client)) inst.waiting.delete(s);
      }
      return;
    }
    if (e.kind !== this.spec.kind) return;
    const key = stringField(e, this.spec.key);
    const session = stringField(e, "session");
    const client = stringField(e, "client");
    const ev = stringField(e, "event");
    const inst = this.instance(key);
    inst.lastEventUs = e.atUs;
    if (this.spec.wait.includes(ev)) inst.waiting.set(session, { client, atUs: e.atUs });
    if (this.spec.unwait.includes(ev)) inst.waiting.delete(session);
    if (this.spec.end.includes(ev)) {
      inst.open.delete(session);
      this.claims.end(session, key);
    }
    if (this.spec.grant.includes(ev)) {
      inst.waiting.delete(session);
      this.claims.grant(session, client, key, e.atUs);
      this.onGrant(e, key, inst, { client, session, token: this.spec.tokens ? (optionalIntField(e, "token") ?? -1) : -1, atUs: e.atUs });
    }
  }

  private onGrant(e: TraceEvent, key: string, inst: Instance, role: Role): void {
    const { kind, role: verb } = this.spec;
    if (this.fates.isEnded(role.session)) {
      // A follower behind the closeSession may still grant it (ZooKeeper reads lag): that
      // stale claim is over at once, and only fencing can stop its holder (lock-fencing).
      // Claiming it once the client had seen its session's end is a recipe bug.
      if (this.fates.endedInViewOf(role.session)) this.log.add(e, `${role.client} claims ${kind} ${key} for session ${role.session}, which had already ended (its client had seen the closeSession): a dead session cannot hold it`);
      return;
    }
    for (const r of inst.open.values()) {
      if (r.session === role.session) continue;
      this.log.add(
        e,
        `more than one at a time on ${kind} ${key}: ${role.client} (session ${role.session}${this.spec.tokens ? `, token ${role.token}` : ""}) was granted it while ${r.client} (session ${r.session}${this.spec.tokens ? `, token ${r.token}` : ""}, ${verb} since ${fmtMs(r.atUs)}) still had it — that session was alive and had not given it up`,
      );
    }
    if (this.spec.tokens) {
      if (role.token <= inst.lastToken) this.log.add(e, `fencing tokens must grow: ${role.client} got token ${role.token} on ${key} after token ${inst.lastToken} was granted`);
      inst.lastToken = Math.max(inst.lastToken, role.token);
    }
    inst.open.set(role.session, role);
  }

  private instance(key: string): Instance {
    let inst = this.instances.get(key);
    if (inst === undefined) {
      inst = { open: new Map(), waiting: new Map(), lastToken: -1, lastEventUs: 0 };
      this.instances.set(key, inst);
    }
    return inst;
  }

  /** Who has the role now, per instance (for tests and reports). */
  holders(): Map<string, string[]> {
    return new Map([...this.instances].map(([k, i]) => [k, [...i.open.values()].map((r) => r.client)]));
  }

  finish(end?: RunEnd): Violation[] {
    if (end === undefined) return this.log.violations;
    for (const why of this.claims.finish()) this.log.add(end, why);
    this.fates.endAt(end.atUs);
    for (const [key, inst] of this.instances) {
      const idleMs = (this.fates.lastEventUs - inst.lastEventUs) / 1000;
      if (inst.waiting.size === 0 || inst.open.size > 0 || idleMs < this.stallMs || this.fates.quietMs() < this.stallMs) continue;
      const who = [...inst.waiting.values()].map((w) => `${w.client} (waiting since ${fmtMs(w.atUs)})`).join(", ");
      this.log.add(end, `${this.spec.kind} ${key} is stuck: ${who} wait with live sessions, nobody has it, and nothing happened to it for ${idleMs.toFixed(0)} ms of a quiet run`);
    }
    return this.log.violations;
  }
}
