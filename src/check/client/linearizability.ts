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
 * - every call the reference model describes is judged (zk-model.ts: the whole client API but
 *   the watch calls — addWatch, removeWatches — which the watch checkers judge);
 * - the ContainerManager's reaps: each `zk.container.reap` becomes a `reap` operation, invoked
 *   there and completed at the next `zk.apply` of an internal request (session 0: the
 *   deleteContainer, or the error txn of one that failed its prep) on that server (the leader
 *   applies its own proposals in order), ok or failed with that error — or never
 *   (indeterminate) if the server crashed or stopped leading first;
 * - `workload.zk-config` tells the model the servers' super digest, whether TTL nodes are
 *   allowed, and each client's address (its `ip` identity); without it, what these decide is
 *   open (the model accepts either answer);
 * - a session attached by two handles at once (a second process re-attached it with its id and
 *   password while the first still runs: zab-shared-session's episodes) has its non-read
 *   replies read as unknown once the second handle has used it. Both handles number their
 *   requests from the same cxid, and 3.8 matches a commit to the local pending write by session
 *   and cxid alone (`CommitProcessor`), so a server can answer one handle's write with the other
 *   handle's result (zab-shared-session seed 10075): the reply says nothing about its own op;
 * - long or binary data is recorded by the client as a content digest that carries its length
 *   (see `zk/client/history.ts`), so values are compared and Stat.dataLength is checked.
 *
 * Long runs (see linearizability/window.ts and docs/long-runs.md): once `windowOps` client
 * operations have been invoked since the last cut, the checker cuts the history at the next
 * instant no client operation is open and nothing indeterminate is left unsettled (or, past
 * `4 × windowOps`, carrying what is unsettled), judges that window, keeps only the states the
 * tree may be in at the cut, and forgets the window's events. A run shorter than one window is
 * checked whole, as before, with the history split into partitions.
 *
 * Budget: every search is bounded in model steps (`maxSteps`, per window) and in the memo's
 * size (`maxMemoChars`). Running out is *unknown*: not a violation — a checker must not fail a
 * correct run for lack of time — but reported by `unknowns()` with the stretch of time and the
 * reason, and counted in `summary`; `inconclusiveIsViolation: true` reports it as a violation
 * too, named "inconclusive".
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type RunEnd, type UnknownVerdict, type Violation } from "../checker.js";
import { NO_SESSION, historyFromTrace, type ClientTraceEvent, type OpName, type Operation } from "../history/history.js";
import { checkLinearizable, zkModel } from "../linearizability/index.js";
import { normalise } from "../linearizability/wgl.js";
import { DEFAULT_WINDOW_LIMITS, checkWindow, unsettledOps, windowLabel, type WindowStart } from "../linearizability/window.js";
import type { ZkTree } from "../linearizability/zk-tree.js";
import { malformedClientEvent, opKey, str } from "./trace-fields.js";
import { UNKNOWN_FACTS, type ServerFacts } from "../linearizability/zk-acl.js";
import type { SequentialModel } from "../linearizability/model.js";

export interface LinearizabilityCheckerOptions {
  /** Model steps for the whole search of a short run, or of one window of a long one (default 5 000 000). */
  maxSteps?: number;
  /** The memo's size limit per search, in key characters (default 2^25). */
  maxMemoChars?: number;
  /** Client operations invoked before the checker tries to cut a window (default 10 000). */
  windowOps?: number;
  /** The most states a window may end in (default 64). */
  maxEndStates?: number;
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
  /** Windows judged (0: the history was checked whole). */
  windows: number;
}

/** Reads of a server's tree: on an ensemble, judged only when a sync orders them. */
const READ_OPS: ReadonlySet<string> = new Set<OpName>(["getData", "exists", "getChildren", "getACL", "getAllChildrenNumber", "getEphemerals", "multiRead"]);

/** The op names the sequential model describes. */
const MODELLED: ReadonlySet<string> = new Set<OpName>([
  "create", "delete", "setData", "getData", "exists", "getChildren", "sync", "check", "multi", "multiRead",
  "setACL", "getACL", "getEphemerals", "getAllChildrenNumber", "whoAmI", "closeSession", "reap",
]);

/** The kinds it reads besides `zab.*` (which only tell it the servers form a quorum). */
const READS: ReadonlySet<string> = new Set(["client.invoke", "client.complete", "client.auth", "zk.server.start", "zk.session.expire", "zk.apply", "zk.container.reap", "workload.zk-config", "crash"]);

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
  /** Sessions attached by more than one handle, whose non-read replies are read as unknown. */
  private readonly sharedSessions = new SharedSessions();
  /** Requests whose first `zk.apply` the current window holds. */
  private readonly firstApplies = new FirstApplies();
  /** Per server, the reaps it chose whose deleteContainer it has not applied yet, oldest first. */
  private readonly reaping = new Map<string, { client: string; opId: string }[]>();
  private reaps = 0;
  /** What `workload.zk-config` said of the servers and clients (the model's facts). */
  private facts: ServerFacts = UNKNOWN_FACTS;
  private readonly options: Required<LinearizabilityCheckerOptions>;
  private windowsState: Windows | undefined;
  summary: LinearizabilitySummary | undefined;

  constructor(options: LinearizabilityCheckerOptions = {}) {
    this.options = {
      maxSteps: options.maxSteps ?? DEFAULT_WINDOW_LIMITS.maxSteps,
      maxMemoChars: options.maxMemoChars ?? DEFAULT_WINDOW_LIMITS.maxMemoChars,
      windowOps: options.windowOps ?? 10_000,
      maxEndStates: options.maxEndStates ?? DEFAULT_WINDOW_LIMITS.maxEnds,
      inconclusiveIsViolation: options.inconclusiveIsViolation ?? false,
      maxMessageChars: options.maxMessageChars ?? 600,
    };
  }

  /** The windows, and their model, made at the first use (after the run's config event). */
  private get windows(): Windows {
    return (this.windowsState ??= new Windows(this.options.windowOps, zkModel({ facts: this.facts })));
  }

  unknowns(): UnknownVerdict[] {
    return this.windows.unknown;
  }

  retained(): number {
    return this.events.length;
  }

  accepts(kind: string): boolean {
    return READS.has(kind) || kind.startsWith("zab.");
  }

  onEvent(e: TraceEvent): void {
    if (e.kind === "client.invoke" || e.kind === "client.complete") {
      const why = malformedClientEvent(e);
      if (why !== undefined) {
        // Reported, and the history is judged without it (its pair then reads as malformed too).
        this.log.add(e, `malformed trace event: ${why}`);
        return;
      }
      const fields = this.sharedSessions.read(e.kind, e.fields!);
      this.events.push({ kind: e.kind, atUs: e.atUs, node: e.node, fields, index: e.index });
      if (e.kind === "client.invoke") this.windows.invoked(fields);
      else if (this.windows.completed(fields)) this.tryCut(e);
    } else if (e.kind === "zk.server.start") {
      this.standalone.add(e.node);
    } else if (e.kind.startsWith("zab.")) {
      this.sawQuorumPeer = true;
      if (e.kind === "zab.leader.established" && typeof e.fields?.epoch === "number") this.established.push({ atUs: e.atUs, epoch: e.fields.epoch });
      // A server that stops leading applies no more of the deleteContainers it prepped in order.
      if (e.kind === "zab.role.ended" || e.kind === "zab.state") this.reaping.delete(e.node);
    } else if (e.kind === "zk.session.expire") {
      this.onExpire(e);
    } else if (e.kind === "zk.apply") {
      // The ground truth of unknown ops, for the report (the search does not read it): the first
      // apply of each request is the one the report reads, so the other servers' are not kept.
      if (e.fields?.cxid !== undefined && this.firstApplies.first(e.fields)) this.events.push({ kind: e.kind, atUs: e.atUs, node: e.node, fields: e.fields, index: e.index });
      const op = str(e.fields, "op");
      if (op === "closeSession" && e.fields?.err === undefined) this.onCloseApplied(e);
      // An internal request (session 0): a deleteContainer, or the error txn of one that failed its prep.
      else if (op === "deleteContainer" || (op === "error" && str(e.fields, "session") === "0x0")) this.onReapApplied(e);
    } else if (e.kind === "client.auth") {
      this.events.push({ kind: e.kind, atUs: e.atUs, node: e.node, fields: e.fields ?? {}, index: e.index });
    } else if (e.kind === "zk.container.reap") {
      this.onReap(e);
    } else if (e.kind === "workload.zk-config") {
      this.facts = factsOf(e.fields ?? {});
    } else if (e.kind === "crash") {
      this.reaping.delete(e.node);
    }
  }

  /** The ContainerManager chose a node: a `reap` op, pending until its deleteContainer is applied there. */
  private onReap(e: TraceEvent): void {
    const path = str(e.fields, "path");
    if (path === undefined) {
      this.log.add(e, `malformed trace event: zk.container.reap without a path (${JSON.stringify(e.fields)})`);
      return;
    }
    const fields: Record<string, unknown> = { client: `reap@${e.node}`, session: "0x0", opId: `reap-${++this.reaps}`, op: "reap", path, czxid: e.fields?.czxid, nowMs: e.fields?.nowMs };
    this.events.push({ kind: "client.invoke", atUs: e.atUs, node: e.node, fields, index: e.index });
    const list = this.reaping.get(e.node) ?? [];
    list.push({ client: String(fields.client), opId: String(fields.opId) });
    this.reaping.set(e.node, list);
  }

  /** The server that chose a reap applies its oldest pending deleteContainer: the reap's outcome. */
  private onReapApplied(e: TraceEvent): void {
    const pending = this.reaping.get(e.node);
    const next = pending?.shift();
    if (next === undefined) return;
    const err = str(e.fields, "err");
    const fields: Record<string, unknown> = { ...next, session: "0x0", outcome: err === undefined ? "ok" : "fail", zxid: e.fields?.zxid };
    if (err !== undefined) fields.err = err;
    this.events.push({ kind: "client.complete", atUs: e.atUs, node: e.node, fields, index: -1 });
  }

  private onExpire(e: TraceEvent): void {
    const session = str(e.fields, "session");
    if (session === undefined) {
      this.log.add(e, `malformed trace event: zk.session.expire without a session (${JSON.stringify(e.fields)})`);
      return;
    }
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
    if (this.windows.starts !== undefined || this.windows.lost) return this.finishWindows(end);
    const checkReads = this.singleServer;
    const judged = this.judgedHistory(this.events, end, 0);
    if (judged === undefined) return this.log.violations;
    const history = judged.ops;
    const result = checkLinearizable(history, this.windows.model, { checkReads: true, maxSteps: this.options.maxSteps, maxMemoChars: this.options.maxMemoChars });
    if (result.ok) {
      this.summary = { checkedReads: checkReads, operations: history.length, outcome: "linearizable", steps: result.steps, windows: 0 };
      return this.log.violations;
    }
    this.summary = { checkedReads: checkReads, operations: history.length, outcome: result.inconclusive ? "inconclusive" : "violation", steps: result.steps, windows: 0 };
    if (result.inconclusive) {
      this.windows.unknown.push({ checker: this.name, reason: result.explanation, fromMs: 0, toMs: end.atUs / 1000 });
      if (!this.options.inconclusiveIsViolation) return this.log.violations;
    }
    const first = [...result.minimalWindow].sort((a, b) => a.invokeUs - b.invokeUs)[0];
    const at = first === undefined ? undefined : this.invokedAt(`${first.client}/${first.opId}`);
    const what = result.inconclusive ? "inconclusive (search budget exhausted)" : `not linearizable (${checkReads ? "writes and reads" : "writes, and reads ordered by sync"})`;
    this.report(at ?? end, `${what}, partition ${result.partition}: ${result.explanation}`);
    return this.log.violations;
  }

  private report(at: RunEnd, text: string): void {
    const max = this.options.maxMessageChars;
    this.log.add(at, text.length > max ? `${text.slice(0, max - 1)}…` : text);
  }

  /**
   * A window's history as the search sees it, ids from `idBase` (and normalised, which also
   * validates it), or undefined (reported) when the trace is malformed.
   */
  private judgedHistory(events: readonly Recorded[], at: RunEnd, idBase: number): { ops: Operation[]; normalised: Operation[] } | undefined {
    const checkReads = this.singleServer;
    try {
      const ops = checkReads ? this.history(events) : this.syncOrdered(this.history(events));
      for (const op of ops) op.id += idBase;
      return { ops, normalised: normalise(ops) };
    } catch (err) {
      this.summary = { checkedReads: checkReads, operations: 0, outcome: "malformed", steps: 0, windows: this.windows.index };
      this.log.add(at, `malformed client history: ${(err as Error).message}`);
      this.windows.lose();
      return undefined;
    }
  }

  /**
   * At an instant no client op is open, with a window's worth of ops behind it: cut there if
   * nothing indeterminate is unsettled (or the window is too long to wait), judge the window,
   * keep its end states and forget its events (but the invocations of expiries not yet applied).
   */
  private tryCut(e: TraceEvent): void {
    const w = this.windows;
    const at = { index: e.index, atUs: e.atUs };
    const pending = new Set<unknown>([...this.expiring.values(), ...this.reaping.values()].flatMap((list) => list.map((p) => p.opId)));
    // Credentials outlive a window: every later op of their session carries them.
    const carriedEvents = this.events.filter((r) => r.kind === "client.auth" || (r.kind === "client.invoke" && (r.fields?.op === "closeSession" || r.fields?.op === "reap") && pending.has(r.fields?.opId)));
    const carriedOps = carriedEvents.filter((r) => r.kind === "client.invoke");
    const windowEvents = carriedOps.length === 0 ? this.events : this.events.filter((r) => !carriedOps.includes(r));
    if (w.lost) {
      this.forgetWindow(carriedEvents);
      w.cut(e.atUs, 0);
      return;
    }
    const history = this.judgedHistory(windowEvents, at, w.idBase);
    if (history === undefined) return;
    const model = w.model;
    const starts = w.starts ?? [{ state: model.init(), carried: [] }];
    if (!w.mustCut() && unsettledOps(history.normalised, starts.flatMap((s) => s.carried), model).length > 0) {
      w.postpone();
      return;
    }
    const label = windowLabel(w.index, w.startUs, e.atUs);
    const result = checkWindow(history.ops, starts, w.startsComplete, model, label, this.windowLimits(), true);
    w.steps += result.steps;
    w.operations += history.ops.length;
    this.judged(result, label, at, w.startUs);
    this.forgetWindow(carriedEvents);
    w.cut(e.atUs, history.ops.length);
  }

  /** After a cut: the window's events go, but the invocations of expiries not applied yet. */
  private forgetWindow(carried: readonly Recorded[]): void {
    this.events.length = 0;
    this.events.push(...carried);
    this.firstApplies.clear();
  }

  private windowLimits() {
    return { maxSteps: this.options.maxSteps, maxMemoChars: this.options.maxMemoChars, maxEnds: this.options.maxEndStates, minimize: true };
  }

  /** Takes in a window's result: the next starts, an unknown stretch, or the violation. */
  private judged(result: ReturnType<typeof checkWindow<ZkTree>>, label: string, at: RunEnd, fromUs: number): void {
    const w = this.windows;
    switch (result.kind) {
      case "ok":
        w.starts = result.ends;
        return;
      case "unknown":
        w.unknown.push({ checker: this.name, reason: result.reason, fromMs: fromUs / 1000, toMs: at.atUs / 1000 });
        if (this.options.inconclusiveIsViolation) this.report(at, `inconclusive, ${label}: ${result.reason}`);
        if (result.ends.length === 0) w.lose();
        else w.starts = result.ends;
        w.startsComplete = false;
        return;
      case "refuted": {
        const v = result.violation;
        const first = [...v.minimalWindow].sort((a, b) => a.invokeUs - b.invokeUs)[0];
        const where = first === undefined ? undefined : this.invokedAt(`${first.client}/${first.opId}`);
        this.report(where ?? at, `not linearizable (${this.singleServer ? "writes and reads" : "writes, and reads ordered by sync"}), ${label}: ${v.explanation}`);
        // The state after a refuted window is not known: nothing later can be judged.
        w.lose();
        w.refuted = true;
        return;
      }
    }
  }

  /** The end of a run checked in windows: the last window, from the states the others left. */
  private finishWindows(end: RunEnd): Violation[] {
    const w = this.windows;
    const checkReads = this.singleServer;
    const history = w.lost ? undefined : this.judgedHistory(this.events, end, w.idBase);
    if (history !== undefined) {
      const label = windowLabel(w.index, w.startUs, end.atUs);
      const result = checkWindow(history.ops, w.starts!, w.startsComplete, w.model, label, this.windowLimits(), false);
      w.steps += result.steps;
      w.operations += history.ops.length;
      this.judged(result, label, end, w.startUs);
      w.cut(end.atUs, history.ops.length);
    }
    if (w.lost && !w.refuted && w.lostAtUs !== undefined && w.lostAtUs < end.atUs) {
      w.unknown.push({ checker: this.name, reason: `not judged after ${w.lostAtUs / 1000} ms: no state the data tree could be in was known there`, fromMs: w.lostAtUs / 1000, toMs: end.atUs / 1000 });
    }
    if (this.summary?.outcome !== "malformed") {
      const outcome = w.refuted ? "violation" : w.unknown.length > 0 ? "inconclusive" : "linearizable";
      this.summary = { checkedReads: checkReads, operations: w.operations, outcome, steps: w.steps, windows: w.index };
    }
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
  private completedSessions(events: readonly Recorded[]): Map<string, string> {
    const sessions = new Map<string, string>();
    for (const e of events) {
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
  history(events: readonly Recorded[] = this.events): Operation[] {
    const ops = historyFromTrace(events);
    // Built only when an op was invoked before its client's first handshake (rare).
    let completed: Map<string, string> | undefined;
    for (const op of ops) {
      if (NO_SESSION.has(op.session) && op.opId !== undefined && op.op !== "reap") op.session = (completed ??= this.completedSessions(events)).get(`${op.client}/${op.opId}`) ?? op.session;
    }
    return ops.filter((op) => MODELLED.has(op.op));
  }
}

/** The model's facts from a `workload.zk-config` event: the super digest, extended types, client addresses. */
function factsOf(f: Record<string, unknown>): ServerFacts {
  const addresses = new Map<string, string>();
  for (const entry of Array.isArray(f.clients) ? f.clients : []) {
    const [node, address] = String(entry).split("=", 2);
    if (node !== undefined && address !== undefined) addresses.set(node, address);
  }
  const facts: ServerFacts = { known: true, extendedTypes: f.extendedTypesEnabled === true, addresses };
  if (typeof f.superDigest === "string") facts.superDigest = f.superDigest;
  return facts;
}


/** Which requests (session, cxid) have had an apply recorded. */
/**
 * Which sessions more than one client handle has used (each handle names its own `client`), and
 * the completions to read as unknown: a non-read op of such a session, invoked or completed
 * once a second handle had used it. Its reply may be the other handle's (same session, same cxid).
 */
class SharedSessions {
  private readonly handles = new Map<string, Set<string>>();
  /** Open op (client/opId) → its op name and whether its session was already shared when invoked. */
  private readonly open = new Map<string, { op: string; shared: boolean }>();

  read(kind: string, fields: Record<string, unknown>): Record<string, unknown> {
    const session = String(fields.session);
    const key = opKey(fields);
    if (kind === "client.invoke") {
      if (!NO_SESSION.has(session)) {
        let clients = this.handles.get(session);
        if (clients === undefined) this.handles.set(session, (clients = new Set()));
        clients.add(String(fields.client));
      }
      this.open.set(key, { op: String(fields.op), shared: this.isShared(session) });
      return fields;
    }
    const invoked = this.open.get(key);
    this.open.delete(key);
    if (invoked === undefined || READ_OPS.has(invoked.op) || fields.outcome === "unknown") return fields;
    if (!invoked.shared && !this.isShared(session)) return fields;
    const { xid: _xid, err: _err, result: _result, zxid: _zxid, ...rest } = fields;
    return { ...rest, outcome: "unknown" };
  }

  private isShared(session: string): boolean {
    return (this.handles.get(session)?.size ?? 0) > 1;
  }
}

class FirstApplies {
  private readonly seen = new Map<string, Set<string>>();

  /** True the first time a request's apply is seen (after `clear`). */
  first(f: Record<string, unknown>): boolean {
    const session = String(f.session);
    let cxids = this.seen.get(session);
    if (cxids === undefined) this.seen.set(session, (cxids = new Set()));
    const cxid = String(f.cxid);
    if (cxids.has(cxid)) return false;
    cxids.add(cxid);
    return true;
  }

  clear(): void {
    this.seen.clear();
  }
}

/**
 * The windowing state of one checker: how many client ops are open and were invoked since the
 * last cut, the states the tree may be in at that cut, and what could not be judged.
 */
class Windows {
  /** Open client ops, as "client/opId". */
  private readonly open = new Set<string>();
  private invokes = 0;
  private nextTryAt: number;
  /** Undefined until the first cut (then the run is checked in windows). */
  starts: WindowStart<ZkTree>[] | undefined;
  startsComplete = true;
  /** No state is known any more (a refuted or hopeless window, a malformed history). */
  lost = false;
  lostAtUs: number | undefined;
  refuted = false;
  index = 0;
  startUs = 0;
  idBase = 0;
  steps = 0;
  operations = 0;
  readonly unknown: UnknownVerdict[] = [];

  constructor(
    private readonly windowOps: number,
    readonly model: SequentialModel<ZkTree>,
  ) {
    this.nextTryAt = windowOps;
  }

  invoked(f: Record<string, unknown>): void {
    this.open.add(`${String(f.client)}/${String(f.opId)}`);
    this.invokes++;
  }

  /** True when this completion leaves no client op open and a window is due. */
  completed(f: Record<string, unknown>): boolean {
    this.open.delete(`${String(f.client)}/${String(f.opId)}`);
    return this.open.size === 0 && this.invokes >= this.nextTryAt;
  }

  /** Past four windows' worth of ops a cut carries what is unsettled instead of waiting. */
  mustCut(): boolean {
    return this.invokes >= 4 * this.windowOps;
  }

  /** Something indeterminate is unsettled: try again a little later. */
  postpone(): void {
    this.nextTryAt = this.invokes + Math.max(1, Math.floor(this.windowOps / 20));
  }

  cut(atUs: number, ops: number): void {
    if (this.lost) this.lostAtUs ??= atUs;
    this.index++;
    this.startUs = atUs;
    this.idBase += ops;
    this.invokes = 0;
    this.nextTryAt = this.windowOps;
  }

  lose(): void {
    this.lost = true;
    this.starts = undefined;
  }
}
