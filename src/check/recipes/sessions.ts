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
 * A closeSession need not be announced by any `zk.apply` before it takes effect: a leader that
 * proposed it and lost its role before a quorum acked, leaves it in its followers' logs, and the
 * next leader's tree takes in its whole log when it reloads (ZooKeeper's `loadData` /
 * `fastForwardDataBase`, no apply announced), and establishing the new epoch commits it
 * (`zab.leader.established {lastZxid}`; the replica log of check/zab follows the same rule).
 * So a session also ends when a leader whose log holds its expiry's closeSession (`zab.log` of
 * the txn the expiring leader proposed, `zab.propose`, not truncated since) is established with
 * a lastZxid at or past it: from then on every serving server's tree has lost its ephemerals.
 *
 * Uses only trace events (`zk.apply`, `zk.session.expire`, `zab.propose`, `zab.log`,
 * `zab.leader.established`, `zab.truncate`, `zab.recovered`, `zab.snap.load`,
 * `client.complete`, `crash`, fault events); shares no code with the server or the recipes.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { NODE_AND_LINK_FAULT_KINDS } from "../../sim/trace-schema.js";
import { optionalZxidField, stringField, txnRequestField, zxidField } from "../event-reader.js";
import { fieldsOf } from "../history/client-events.js";
import { parseZxidText } from "../zxid-text.js";

const FAULT_KIND_SET: ReadonlySet<string> = new Set(NODE_AND_LINK_FAULT_KINDS);

/** What an event means for recipes: sessions ended (their ephemerals are gone), or a client crashed. */
export type SessionFate = { kind: "session-ended"; sessions: readonly string[] } | { kind: "client-crashed"; client: string };

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
  static readonly KINDS = [
    ...NODE_AND_LINK_FAULT_KINDS, "start", "client.complete", "zk.session.expire", "zk.apply",
    "zab.propose", "zab.log", "zab.leader.established", "zab.truncate", "zab.recovered", "zab.snap.load",
  ] as const;
  /** Server → sessions its tracker expired whose closeSession it has not proposed yet. */
  private readonly expiring = new Map<string, Set<string>>();
  /** Txn digest of an expiry's closeSession proposal → its session and zxid (until the session ends). */
  private readonly closeProposals = new Map<string, { session: string; zxid: bigint }>();
  /** Server → zxid → session: the expiry closeSessions its log durably holds, of sessions not yet ended (no entry for a server that holds none). */
  private readonly loggedCloses = new Map<string, Map<bigint, string>>();

  /** The run ended at `atUs` (its last event, of any kind). */
  endAt(atUs: number): void {
    if (atUs > this.lastEventUs) this.lastEventUs = atUs;
  }

  /**
   * Feeds one event. Returns what it means for recipes: sessions ended, a client crashed,
   * or nothing. Throws `MalformedEvent` on a field it needs that is missing or malformed.
   */
  onEvent(e: TraceEvent): SessionFate | undefined {
    if (FAULT_KIND_SET.has(e.kind)) this.lastFaultUs = e.atUs;
    if (e.kind === "crash") return { kind: "client-crashed", client: e.node };
    if (e.kind === "client.complete") {
      // Read by name, well-formed values as they are (the strict readers for anything else).
      const f = fieldsOf(e);
      const zxidText = f.zxid;
      const z = typeof zxidText === "string" ? (parseZxidText(zxidText) ?? zxidField(e, "zxid")) : optionalZxidField(e, "zxid");
      if (z === undefined) return undefined;
      const sessionText = f.session;
      const s = typeof sessionText === "string" ? sessionText : stringField(e, "session");
      if (z > (this.lastZxidSeen.get(s) ?? -1n)) this.lastZxidSeen.set(s, z);
      return undefined;
    }
    if (e.kind === "zk.session.expire") {
      const s = stringField(e, "session");
      this.expired.add(s);
      this.lastFaultUs = e.atUs;
      if (!this.endedAtUs.has(s)) this.expiringOn(e.node).add(s);
      return undefined;
    }
    if (e.kind === "zk.apply" && applyOp(e) === "closeSession") {
      const s = stringField(e, "session");
      if (this.endedAtUs.has(s)) return undefined;
      this.end(s, e.atUs, zxidField(e, "zxid"));
      return { kind: "session-ended", sessions: [s] };
    }
    switch (e.kind) {
      case "zab.propose": {
        // The expiring leader's next proposal of the session is its closeSession (a closing
        // session's own requests fail at prep; an expiry's close has cxid 0). Nearly every
        // proposal comes with no expiry pending: then there is nothing to read.
        const pending = this.expiring.get(e.node);
        if (pending === undefined || pending.size === 0) return undefined;
        const { session, cxid } = txnRequestField(e, "txn");
        if (cxid !== 0 || !pending.delete(session)) return undefined;
        this.closeProposals.set(stringField(e, "txn"), { session, zxid: zxidField(e, "zxid") });
        return undefined;
      }
      case "zab.log": {
        // Nothing to follow while no expiry's close is proposed or logged on this node (the
        // common case: every txn; a node's logged closes are dropped once none is left).
        if (this.closeProposals.size === 0 && this.loggedCloses.get(e.node) === undefined) return undefined;
        const zxid = zxidField(e, "zxid");
        const close = this.closeProposals.get(stringField(e, "txn"));
        if (close !== undefined && close.zxid === zxid) this.loggedOn(e.node).set(zxid, close.session);
        else this.forgetLogged(e.node, zxid); // another txn at that zxid replaced it
        return undefined;
      }
      case "zab.truncate":
        this.dropLoggedAbove(e.node, zxidField(e, "zxid"));
        return undefined;
      case "zab.recovered":
        this.dropLoggedAbove(e.node, zxidField(e, "lastZxid"));
        return undefined;
      case "zab.snap.load":
        // The log and tree become the sync leader's: what this one logged no longer tells.
        this.loggedCloses.delete(e.node);
        return undefined;
      case "zab.leader.established": {
        const lastZxid = zxidField(e, "lastZxid");
        const ended: string[] = [];
        for (const [zxid, s] of this.loggedCloses.get(e.node) ?? []) {
          if (zxid > lastZxid || this.endedAtUs.has(s)) continue;
          this.end(s, e.atUs, zxid);
          ended.push(s);
        }
        return ended.length > 0 ? { kind: "session-ended", sessions: ended } : undefined;
      }
      default:
        return undefined;
    }
  }

  private end(session: string, atUs: number, zxid: bigint): void {
    this.endedAtUs.set(session, atUs);
    this.endedZxid.set(session, zxid);
    for (const pending of this.expiring.values()) pending.delete(session);
    for (const [digest, close] of this.closeProposals) if (close.session === session) this.closeProposals.delete(digest);
    for (const [node, logged] of this.loggedCloses) {
      for (const [zxid, s] of logged) if (s === session) logged.delete(zxid);
      if (logged.size === 0) this.loggedCloses.delete(node);
    }
  }

  /** Forgets the close `node` logged at `zxid`, and the node's entry once it holds none. */
  private forgetLogged(node: string, zxid: bigint): void {
    const logged = this.loggedCloses.get(node);
    if (logged === undefined) return;
    logged.delete(zxid);
    if (logged.size === 0) this.loggedCloses.delete(node);
  }

  private expiringOn(node: string): Set<string> {
    let set = this.expiring.get(node);
    if (set === undefined) this.expiring.set(node, (set = new Set()));
    return set;
  }

  private loggedOn(node: string): Map<bigint, string> {
    let map = this.loggedCloses.get(node);
    if (map === undefined) this.loggedCloses.set(node, (map = new Map()));
    return map;
  }

  private dropLoggedAbove(node: string, zxid: bigint): void {
    const logged = this.loggedCloses.get(node);
    if (logged === undefined) return;
    for (const z of [...logged.keys()]) if (z > zxid) logged.delete(z);
    if (logged.size === 0) this.loggedCloses.delete(node);
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

/** A `zk.apply`'s op (read by name; the strict reader when it is not text). */
function applyOp(e: TraceEvent<"zk.apply">): string {
  const op = fieldsOf(e).op;
  return typeof op === "string" ? op : stringField(e, "op");
}

export function fmtMs(us: number): string {
  return `${(us / 1000).toFixed(1)} ms`;
}
