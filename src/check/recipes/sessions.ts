/**
 * Session fate as the trace tells it, for recipe checkers: when a session ended (its
 * closeSession txn was first applied anywhere — expiry or an explicit close; ephemerals go
 * with it) and when a client node crashed (a crashed process cannot act). Recipe guarantees
 * such as mutual exclusion hold among *live* sessions; these end times bound a holder's claim.
 *
 * A session's end reaches its client late: a follower that has not applied the closeSession yet
 * still answers the client's reads. `endedInViewOf` tells whether the client had already seen
 * the end — a reply with a zxid at or past the closeSession's — and so could have known.
 *
 * Uses only trace events (`zk.apply`, `zk.session.expire`, `client.complete`, `crash`, fault
 * events); shares no code with the server or the recipes.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { NODE_AND_LINK_FAULT_KINDS } from "../../sim/trace-schema.js";
import { optionalZxidField, stringField, zxidField } from "../event-reader.js";

const FAULT_KIND_SET: ReadonlySet<string> = new Set(NODE_AND_LINK_FAULT_KINDS);

export class SessionFates {
  /** Session hex → time its closeSession was first applied. */
  readonly endedAtUs = new Map<string, number>();
  /** Session hex → zxid of its closeSession. */
  private readonly endedZxid = new Map<string, bigint>();
  /** Session hex → the highest zxid its client has seen in a reply. */
  private readonly lastZxidSeen = new Map<string, bigint>();
  /** Sessions the leader's tracker expired (the closeSession may still be in flight). */
  readonly expired = new Set<string>();
  /** Time of the last fault-like event (crash, partition, heal, pause…). */
  lastFaultUs = 0;
  /** The end of the run (its last event's time), once `endAt` has been told it. */
  lastEventUs = 0;

  /** The kinds `onEvent` reads: a recipe checker reads these and its own. */
  static readonly KINDS = [...NODE_AND_LINK_FAULT_KINDS, "start", "client.complete", "zk.session.expire", "zk.apply"] as const;

  /** The run ended at `atUs` (its last event, of any kind). */
  endAt(atUs: number): void {
    if (atUs > this.lastEventUs) this.lastEventUs = atUs;
  }

  /**
   * Feeds one event. Returns what it means for recipes: a session ended, a client crashed,
   * or nothing. Throws `MalformedEvent` on a field it needs that is missing or malformed.
   */
  onEvent(e: TraceEvent): { kind: "session-ended"; session: string } | { kind: "client-crashed"; client: string } | undefined {
    if (FAULT_KIND_SET.has(e.kind)) this.lastFaultUs = e.atUs;
    if (e.kind === "crash") return { kind: "client-crashed", client: e.node };
    if (e.kind === "client.complete") {
      const z = optionalZxidField(e, "zxid");
      if (z === undefined) return undefined;
      const s = stringField(e, "session");
      if (z > (this.lastZxidSeen.get(s) ?? -1n)) this.lastZxidSeen.set(s, z);
      return undefined;
    }
    if (e.kind === "zk.session.expire") {
      this.expired.add(stringField(e, "session"));
      this.lastFaultUs = e.atUs;
      return undefined;
    }
    if (e.kind === "zk.apply" && stringField(e, "op") === "closeSession") {
      const s = stringField(e, "session");
      const z = zxidField(e, "zxid");
      if (this.endedAtUs.has(s)) return undefined;
      this.endedAtUs.set(s, e.atUs);
      this.endedZxid.set(s, z);
      return { kind: "session-ended", session: s };
    }
    return undefined;
  }

  isEnded(session: string): boolean {
    return this.endedAtUs.has(session);
  }

  /** The session has ended and its client had seen a reply at or past its closeSession. */
  endedInViewOf(session: string): boolean {
    const end = this.endedZxid.get(session);
    return end !== undefined && (this.lastZxidSeen.get(session) ?? -1n) >= end;
  }

  /** Virtual ms since the last fault, at the end of the run. */
  quietMs(): number {
    return (this.lastEventUs - this.lastFaultUs) / 1000;
  }
}

export function fmtMs(us: number): string {
  return `${(us / 1000).toFixed(1)} ms`;
}
