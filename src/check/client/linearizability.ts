/**
 * client.linearizability: the client history of a run is linearizable with respect to the
 * ZooKeeper data tree (docs/zookeeper.md §6): writes always; reads as well when the run had a single
 * server, because a standalone server answers every read from the one tree the writes go to.
 * An ensemble's followers answer reads from a tree that may lag the leader, so there a read is
 * checked only when `sync` orders it: its session's last sync before it completed, and the read
 * must fit somewhere between that sync's invocation and its own completion (the sync brought
 * the server up to the leader's state at some point of the sync). ZooKeeper's sync is not a
 * true linearizable read — a leader that has lost its quorum but not yet noticed answers it —
 * so a sync whose reply zxid is of an older epoch than one already established orders nothing.
 * Other ensemble reads are left out (sequential consistency is checked elsewhere).
 *
 * Collects `client.invoke` / `client.complete` online and checks in `finish()` with
 * `checkLinearizable(history, zkModel())`. What it adds to the bare history:
 * - session expiries: each `zk.session.expire` becomes a closeSession operation of that
 *   session (ephemerals vanish), invoked at the expiry and completed at the first `zk.apply`
 *   of its closeSession txn — or never (indeterminate) if the txn was not applied;
 * - operations invoked before the first handshake carry session "0x0": they get the session
 *   their completion names, so their ephemerals belong to the right owner;
 * - calls the model does not describe (setACL, getACL, addWatch, removeWatches, multiRead,
 *   getEphemerals, whoAmI…) are left out: none of them changes what the model checks;
 * - nodes the server may remove by itself (containers, TTL nodes) are left out with every
 *   operation on them or below them, as the model keeps them forever;
 * - long or binary data is recorded by the client as a content digest that carries its length
 *   (see `zk/client/history.ts`), so values are compared and Stat.dataLength is checked.
 *
 * Budget: the search is bounded (`maxSteps`). Running out is *inconclusive*: by default not a
 * violation — a checker must not fail a correct run for lack of time — but counted in
 * `summary`; `inconclusiveIsViolation: true` reports it, named "inconclusive".
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type RunEnd, type Violation } from "../checker.js";
import { NO_SESSION, historyFromTrace, type ClientTraceEvent, type OpName, type Operation } from "../history/history.js";
import { checkLinearizable, zkModel } from "../linearizability/index.js";
import { isReapableMode, opKey, str } from "./trace-fields.js";

export interface LinearizabilityCheckerOptions {
  /** Model steps for the whole search (default 5 000 000). */
  maxSteps?: number;
  /** Report an exhausted budget as a violation (default false: counted in `summary`). */
  inconclusiveIsViolation?: boolean;
  /** Longest explanation kept in a violation message (default 600 characters). */
  maxMessageChars?: number;
}

export interface LinearizabilitySummary {
  checkedReads: boolean;
  operations: number;
  outcome: "linearizable" | "violation" | "inconclusive" | "malformed";
  steps: number;
}

const READ_OPS: ReadonlySet<string> = new Set<OpName>(["getData", "exists", "getChildren"]);

/** The op names the sequential model describes. */
const MODELLED: ReadonlySet<string> = new Set<OpName>(["create", "delete", "setData", "getData", "exists", "getChildren", "sync", "check", "multi", "closeSession"]);

/** The kinds it reads besides `zab.*` (which only tell it the servers form a quorum). */
const READS: ReadonlySet<string> = new Set(["client.invoke", "client.complete", "zk.server.start", "zk.session.expire", "zk.apply"]);

/** An event kept for the history, with the trace position of the event it came from. */
interface Recorded extends ClientTraceEvent {
  /** The trace event's index (an expiry's, for its synthetic closeSession); -1 for a synthetic completion. */
  index: number;
}

export class ClientLinearizabilityChecker implements Checker {
  readonly name = "client.linearizability";
  private readonly log = new ViolationLog(this.name);
  private readonly events: Recorded[] = [];
  /** Servers seen: standalone (`zk.server.start`); and whether any quorum peer spoke (`zab.*`). */
  private readonly standalone = new Set<string>();
  private sawQuorumPeer = false;
  /** `zab.leader.established`: when each epoch was established, in trace order. */
  private readonly established: { atUs: number; epoch: number }[] = [];
  /** Synthetic closeSession ops of expiring sessions, awaiting their txn. */
  private readonly expiring = new Map<string, { client: string; opId: string; atUs: number }[]>();
  /** When each closeSession txn (by zxid) was first applied anywhere. */
  private readonly closeFirstApplied = new Map<string, number>();
  private expiries = 0;
  private readonly options: Required<LinearizabilityCheckerOptions>;
  summary: LinearizabilitySummary | undefined;

  constructor(options: LinearizabilityCheckerOptions = {}) {
    this.options = { maxSteps: options.maxSteps ?? 5_000_000, inconclusiveIsViolation: options.inconclusiveIsViolation ?? false, maxMessageChars: options.maxMessageChars ?? 600 };
  }

  accepts(kind: string): boolean {
    return READS.has(kind) || kind.startsWith("zab.");
  }

  onEvent(e: TraceEvent): void {
    if (e.kind === "client.invoke" || e.kind === "client.complete") {
      this.events.push({ kind: e.kind, atUs: e.atUs, node: e.node, fields: e.fields ?? {}, index: e.index });
    } else if (e.kind === "zk.server.start") {
      this.standalone.add(e.node);
    } else if (e.kind.startsWith("zab.")) {
      this.sawQuorumPeer = true;
      if (e.kind === "zab.leader.established" && typeof e.fields?.epoch === "number") this.established.push({ atUs: e.atUs, epoch: e.fields.epoch });
    } else if (e.kind === "zk.session.expire") {
      this.onExpire(e);
    } else if (e.kind === "zk.apply") {
      // The ground truth of unknown ops, for the report (the search does not read it).
      if (e.fields?.cxid !== undefined) this.events.push({ kind: e.kind, atUs: e.atUs, node: e.node, fields: e.fields, index: e.index });
      if (str(e.fields, "op") === "closeSession" && e.fields?.err === undefined) this.onCloseApplied(e);
    }
  }

  private onExpire(e: TraceEvent): void {
    const session = str(e.fields, "session");
    if (session === undefined) return;
    const fields = { client: `expiry@${e.node}`, session, opId: `expire-${++this.expiries}`, op: "closeSession", path: "" };
    this.events.push({ kind: "client.invoke", atUs: e.atUs, node: e.node, fields, index: e.index });
    const list = this.expiring.get(session) ?? [];
    list.push({ client: fields.client, opId: fields.opId, atUs: e.atUs });
    this.expiring.set(session, list);
  }

  /**
   * A closeSession txn applied: it completes the expiries of its session invoked before the txn
   * first took effect anywhere. An expiry invoked later (a deposed leader waking from a pause
   * expires a session the new leader closed long ago; its own txn is never committed) is not
   * completed by a learner applying the old txn late: it stays pending, outcome unknown.
   */
  private onCloseApplied(e: TraceEvent): void {
    const session = str(e.fields, "session");
    const zxid = str(e.fields, "zxid") ?? "";
    const firstUs = this.closeFirstApplied.get(zxid) ?? e.atUs;
    this.closeFirstApplied.set(zxid, firstUs);
    const pending = session === undefined ? undefined : this.expiring.get(session);
    if (session === undefined || pending === undefined) return;
    const later = pending.filter((p) => p.atUs > firstUs);
    if (later.length > 0) this.expiring.set(session, later);
    else this.expiring.delete(session);
    for (const { client, opId, atUs } of pending) {
      if (atUs > firstUs) continue;
      const fields = { client, session, opId, outcome: "ok", zxid: e.fields?.zxid };
      this.events.push({ kind: "client.complete", atUs: e.atUs, node: e.node, fields, index: -1 });
    }
  }

  /** Reads are checked only when one server answered everything. */
  get singleServer(): boolean {
    return !this.sawQuorumPeer && this.standalone.size <= 1;
  }

  finish(end: RunEnd = { index: 0, atUs: 0 }): Violation[] {
    const checkReads = this.singleServer;
    let history: Operation[];
    try {
      history = checkReads ? this.history() : this.syncOrdered(this.history());
    } catch (err) {
      this.summary = { checkedReads: checkReads, operations: 0, outcome: "malformed", steps: 0 };
      this.log.add(end, `malformed client history: ${(err as Error).message}`);
      return this.log.violations;
    }
    const result = checkLinearizable(history, zkModel(), { checkReads: true, maxSteps: this.options.maxSteps });
    if (result.ok) {
      this.summary = { checkedReads: checkReads, operations: history.length, outcome: "linearizable", steps: result.steps };
      return this.log.violations;
    }
    this.summary = { checkedReads: checkReads, operations: history.length, outcome: result.inconclusive ? "inconclusive" : "violation", steps: result.steps };
    if (result.inconclusive && !this.options.inconclusiveIsViolation) return this.log.violations;
    const first = [...result.minimalWindow].sort((a, b) => a.invokeUs - b.invokeUs)[0];
    const at = first === undefined ? undefined : this.invokedAt(`${first.client}/${first.opId}`);
    const what = result.inconclusive ? "inconclusive (search budget exhausted)" : `not linearizable (${checkReads ? "writes and reads" : "writes, and reads ordered by sync"})`;
    const text = `${what}, partition ${result.partition}: ${result.explanation}`;
    const max = this.options.maxMessageChars;
    this.log.add(at ?? end, text.length > max ? `${text.slice(0, max - 1)}…` : text);
    return this.log.violations;
  }

  /** Where the last invocation of an op (by its `client/opId` key) is in the trace. */
  private invokedAt(key: string): RunEnd | undefined {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i]!;
      if (e.kind === "client.invoke" && opKey(e.fields) === key) return { index: e.index, atUs: e.atUs };
    }
    return undefined;
  }

  /** The session each op's last trace completion names (op key → session). */
  private completedSessions(): Map<string, string> {
    const sessions = new Map<string, string>();
    for (const e of this.events) {
      const session = e.kind === "client.complete" && e.index >= 0 ? str(e.fields, "session") : undefined;
      if (session !== undefined) sessions.set(opKey(e.fields), session);
    }
    return sessions;
  }

  /**
   * An ensemble's history for the search: writes, and each read its session's last completed
   * sync orders, invoked (for the search) when that sync was; other reads are left out.
   */
  syncOrdered(ops: readonly Operation[]): Operation[] {
    const syncs = new Map<string, Operation[]>(); // session → its usable syncs, by completion
    for (const s of ops) {
      if (s.op !== "sync" || s.outcome !== "ok" || !this.currentEpoch(s)) continue;
      const list = syncs.get(`${s.client} ${s.session}`);
      if (list === undefined) syncs.set(`${s.client} ${s.session}`, [s]);
      else list.push(s);
    }
    for (const list of syncs.values()) list.sort((a, b) => a.completeUs! - b.completeUs!);
    const out: Operation[] = [];
    for (const op of ops) {
      if (!READ_OPS.has(op.op)) {
        out.push(op);
        continue;
      }
      // The session's last sync completed before the read began orders it.
      const list = syncs.get(`${op.client} ${op.session}`) ?? [];
      let last: Operation | undefined;
      for (const s of list) {
        if (s.completeUs! > op.invokeUs) break;
        last = s;
      }
      if (last !== undefined) out.push({ ...op, invokeUs: last.invokeUs });
    }
    return out;
  }

  /** The sync was answered from the newest epoch established by its completion (or no zxid to tell). */
  private currentEpoch(sync: Operation): boolean {
    if (sync.zxid === undefined) return false;
    const epoch = Number(sync.zxid >> 32n);
    return !this.established.some((x) => x.atUs <= sync.completeUs! && x.epoch > epoch);
  }

  /** The history the search sees (see the header for what is added and left out). */
  history(): Operation[] {
    const ops = historyFromTrace(this.events);
    const reapable = new Set<string>();
    // Built only when an op was invoked before its client's first handshake (rare).
    let completed: Map<string, string> | undefined;
    for (const op of ops) {
      if (NO_SESSION.has(op.session) && op.opId !== undefined) op.session = (completed ??= this.completedSessions()).get(`${op.client}/${op.opId}`) ?? op.session;
      for (const c of createsOf(op)) if (isReapableMode(c.mode)) reapable.add(c.path);
    }
    if (reapable.size === 0) return ops.filter((op) => MODELLED.has(op.op));
    const reapableList = [...reapable];
    const under = (p: string) => reapableList.some((r) => p === r || p.startsWith(r === "/" ? "/" : `${r}/`));
    return ops.filter((op) => MODELLED.has(op.op) && !under(op.path) && !(op.args.ops ?? []).some((s) => under(s.path)));
  }
}

/** The creates of an op (itself, or a multi's sub-ops) with their modes. */
function createsOf(op: Operation): { path: string; mode: unknown }[] {
  if (op.op === "create") return [{ path: op.path, mode: op.args.mode }];
  if (op.op === "multi") return (op.args.ops ?? []).filter((s) => s.op === "create").map((s) => ({ path: s.path, mode: s.args.mode }));
  return [];
}

