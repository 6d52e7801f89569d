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
 *   of its closeSession txn — or never (indeterminate) if the txn was not applied. An expiry
 *   by the leader of epoch e is known never to take effect, and leaves the history, once a
 *   txn of its session of a later epoch is applied without error (`neverCloses`);
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
import { ViolationLog, type Checker, type KindsOf, type RunEnd, type UnknownVerdict, type Violation } from "../checker.js";
import { guarded, intField, numberField, optionalBooleanField, optionalStringField, optionalZxidField, stringField, stringListField, txnRequestField, zxidField, type ViolationSink } from "../event-reader.js";
import { ByOp, OpTable, type Completion, type Invocation } from "../history/client-events.js";
import { HistoryBuilder, NO_SESSION, copyOperation, readAuth, readEstablished, type OpName, type Operation } from "../history/history.js";
import { checkLinearizable, zkModel } from "../linearizability/index.js";
import { normalise } from "../linearizability/wgl.js";
import { DEFAULT_WINDOW_LIMITS, checkWindow, unsettledOps, windowLabel, type WindowStart } from "../linearizability/window.js";
import type { ZkTree } from "../linearizability/zk-tree.js";
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

/**
 * The kinds it reads: the client's history and credentials, the servers' starts, expiries,
 * applies and reaps, the run's config, crashes, and the `zab.*` kinds every quorum peer writes
 * (which tell it the servers form a quorum; a server that stops leading reaps no more); the
 * leaders' proposals and the txn logs' appends, which say what may have entered a tree.
 */
const KINDS = [
  "client.invoke", "client.complete", "client.auth", "client.state", "zk.server.start", "zk.session.expire", "zk.apply", "zk.container.reap", "workload.zk-config", "crash",
  "zab.state", "zab.leader.established", "zab.role.ended", "zab.propose", "disk.append",
] as const;
type Kind = KindsOf<typeof KINDS>;

/** A synthetic closeSession of an expiring session, awaiting its txn. */
interface Expiring {
  op: Operation;
  atUs: number;
  /** The epoch its server led when it expired the session (undefined: not an established leader). */
  epoch: number | undefined;
}

/** A client op between its invocation and its completion. */
interface OpenOp {
  /** Its operation in the history (undefined: a call the model does not describe). */
  op: Operation | undefined;
  /** Its session had been used by another handle when it was invoked (`SharedSessions`). */
  shared: boolean;
}

export class ClientLinearizabilityChecker implements Checker<Kind> {
  readonly name = "client.linearizability";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  /** Reports a malformed client event, and marks the window's history as not judgeable. */
  private readonly malformed: ViolationSink = {
    add: (at, message) => {
      this.log.add(at, message);
      this.sawMalformed = true;
    },
  };
  private sawMalformed = false;
  private readonly pairs = new OpTable(this.malformed);
  /** The current window's operations, and where each was invoked in the trace (`invokedIndex[k]`: `builder.ops[k]`'s event). */
  private builder = new HistoryBuilder();
  private invokedIndex: number[] = [];
  /** The client ops not completed yet, by client and opId: one record each (see `OpenOp`). */
  private readonly openOps = new ByOp<OpenOp>();
  /** Servers seen: standalone (`zk.server.start`); and whether any quorum peer spoke (`zab.*`). */
  private readonly standalone = new Set<string>();
  private sawQuorumPeer = false;
  /** `zab.leader.established`: when each epoch was established, in trace order. */
  private readonly established: { atUs: number; epoch: number }[] = [];
  /** Synthetic closeSession ops of expiring sessions, awaiting their txn, by session. */
  private readonly expiring = new Map<string, Expiring[]>();
  /** When each closeSession txn (by zxid) was first applied anywhere. */
  private readonly closeFirstApplied = new Map<bigint, number>();
  /** The epoch each server leads, from its `zab.leader.established` until its role ends. */
  private readonly leaderEpoch = new Map<string, number>();
  /** Per session, the newest epoch of a txn of it applied without error (not its close). */
  private readonly sessionAliveEpoch = new Map<string, number>();
  /** Expiries known never to take effect (`neverCloses`): left out of the history. */
  private readonly neverClosed = new Set<Operation>();
  private expiries = 0;
  /** Sessions attached by more than one handle, whose non-read replies are read as unknown. */
  private readonly sharedSessions = new SharedSessions();
  /** Per server, the reaps it chose whose deleteContainer it has not applied yet, oldest first. */
  private readonly reaping = new Map<string, Operation[]>();
  /** Per server, the last zxid it applied (what its ContainerManager's next choice reads). */
  private readonly lastApplied = new Map<string, bigint>();
  private reaps = 0;
  /** What the servers did with the clients' requests, to settle unknown writes (`HistoryBuilder.settle`). */
  private readonly requests = new RequestLedger();
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
    return this.builder.ops.length;
  }

  onEvent(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "client.invoke":
        return this.onInvoke(e);
      case "client.complete":
        return this.onComplete(e);
      case "zk.server.start":
        this.standalone.add(e.node);
        return;
      case "zab.state":
      case "zab.role.ended":
        this.sawQuorumPeer = true;
        // A server that stops leading applies no more of the deleteContainers it prepped in order.
        this.reaping.delete(e.node);
        if (e.kind === "zab.role.ended") this.leaderEpoch.delete(e.node);
        return;
      case "zab.leader.established":
        this.sawQuorumPeer = true;
        return guarded(this.log, e, this, this.onEstablished);
      case "zab.propose":
        this.sawQuorumPeer = true;
        return guarded(this.malformed, e, this, this.onPropose);
      case "disk.append": {
        // A standalone server's txn log: a logged txn a restart replays enters the tree unannounced.
        const zxid = this.sawQuorumPeer ? undefined : optionalStringField(e, "record");
        if (zxid !== undefined) guarded(this.malformed, e, this, (ev) => this.requests.logged(zxidField(ev, "record")));
        return;
      }
      case "zk.session.expire":
        return guarded(this.malformed, e, this, this.onExpire);
      case "zk.apply":
        return guarded(this.malformed, e, this, this.onApply);
      case "client.auth":
        return guarded(this.malformed, e, this, this.onAuth);
      case "client.state":
        return guarded(this.malformed, e, this, this.onState);
      case "zk.container.reap":
        return guarded(this.malformed, e, this, this.onReap);
      case "workload.zk-config":
        return guarded(this.log, e, this, this.onConfig);
      case "crash":
        this.builder.crashed(e.node, e.atUs);
        this.reaping.delete(e.node);
        this.lastApplied.delete(e.node);
        this.leaderEpoch.delete(e.node);
        return;
    }
  }

  private onPropose(e: TraceEvent<"zab.propose">): void {
    this.requests.proposed(txnRequestField(e, "txn"));
  }

  private onState(e: TraceEvent<"client.state">): void {
    readEstablished(this.builder, e);
  }

  private onAuth(e: TraceEvent<"client.auth">): void {
    const a = readAuth(e);
    this.builder.auth.added(a.client, a.session, a.cred);
  }

  /** The model's facts: the super digest, extended types, client addresses. */
  private onConfig(e: TraceEvent<"workload.zk-config">): void {
    const addresses = new Map<string, string>();
    for (const entry of stringListField(e, "clients")) {
      const [node, address] = entry.split("=", 2);
      if (node !== undefined && address !== undefined) addresses.set(node, address);
    }
    const facts: ServerFacts = { known: true, extendedTypes: optionalBooleanField(e, "extendedTypesEnabled") === true, addresses };
    const superDigest = optionalStringField(e, "superDigest");
    if (superDigest !== undefined) facts.superDigest = superDigest;
    this.facts = facts;
  }

  /** The ContainerManager chose a node: a `reap` op, pending until its deleteContainer is applied there. */
  private onReap(e: TraceEvent<"zk.container.reap">): void {
    const czxid = optionalZxidField(e, "czxid");
    const args: Operation["args"] = { nowMs: numberField(e, "nowMs") };
    const seen = this.lastApplied.get(e.node);
    if (seen !== undefined) args.seenZxid = seen;
    if (czxid !== undefined) args.czxid = czxid;
    const op = this.builder.add({
      client: `reap@${e.node}`,
      session: "0x0",
      op: "reap",
      path: stringField(e, "path"),
      args,
      invokeUs: e.atUs,
      completeUs: undefined,
      outcome: "unknown",
      opId: `reap-${++this.reaps}`,
      node: e.node,
    });
    this.invokedIndex.push(e.index);
    const list = this.reaping.get(e.node) ?? [];
    list.push(op);
    this.reaping.set(e.node, list);
  }

  /** The server that chose a reap applies its oldest pending deleteContainer: the reap's outcome. */
  private onReapApplied(e: TraceEvent, zxid: bigint, err: string | undefined): void {
    const op = this.reaping.get(e.node)?.shift();
    if (op === undefined) return;
    this.builder.completed(op, { session: "0x0", outcome: err === undefined ? "ok" : "fail", err, zxid, result: undefined, local: false, xid: undefined, eventIndex: e.index, atUs: e.atUs });
  }

  private onInvoke(e: TraceEvent<"client.invoke">): void {
    const inv = this.pairs.invoke(e);
    if (inv === undefined) return;
    const shared = this.sharedSessions.invoked(inv);
    const op = this.builder.invoked(inv);
    if (op !== undefined) this.invokedIndex.push(e.index);
    const open = this.openOps.get(inv.client, inv.opId);
    this.windows.invoked(open === undefined);
    if (open === undefined) this.openOps.set(inv.client, inv.opId, { op, shared });
    else {
      // Invoked again while open: the second invocation's sharing (an op the model does not describe keeps the first's op).
      open.shared = shared;
      if (op !== undefined) open.op = op;
    }
  }

  private onComplete(e: TraceEvent<"client.complete">): void {
    const pair = this.pairs.complete(e);
    if (pair === undefined) return;
    const { inv } = pair;
    const open = this.openOps.take(inv.client, inv.opId);
    const done = open === undefined ? pair.done : this.sharedSessions.completed(inv, open.shared, pair.done);
    const op = open?.op;
    if (op !== undefined) {
      // Invoked before the first handshake: it belongs to the session its completion names.
      if (NO_SESSION.has(op.session)) op.session = done.session;
      this.builder.completed(op, done);
    }
    if (this.windows.completed(open !== undefined)) this.tryCut(e);
  }

  private onEstablished(e: TraceEvent<"zab.leader.established">): void {
    const epoch = intField(e, "epoch");
    this.established.push({ atUs: e.atUs, epoch });
    this.leaderEpoch.set(e.node, epoch);
  }

  /** An expiry: a closeSession op of its session, invoked now, completed when its txn is applied. */
  private onExpire(e: TraceEvent<"zk.session.expire">): void {
    const session = stringField(e, "session");
    const op = this.builder.add({
      client: `expiry@${e.node}`,
      session,
      op: "closeSession",
      path: "",
      args: {},
      invokeUs: e.atUs,
      completeUs: undefined,
      outcome: "unknown",
      opId: `expire-${++this.expiries}`,
    });
    this.invokedIndex.push(e.index);
    const expiring: Expiring = { op, atUs: e.atUs, epoch: this.leaderEpoch.get(e.node) };
    const alive = this.sessionAliveEpoch.get(session);
    if (expiring.epoch !== undefined && alive !== undefined && alive > expiring.epoch) {
      this.neverClosed.add(op);
      return;
    }
    const list = this.expiring.get(session) ?? [];
    list.push(expiring);
    this.expiring.set(session, list);
  }

  /**
   * The ground truth of unknown ops, for the report (the search does not read it); and a
   * closeSession txn, which completes the expiries of its session.
   */
  private onApply(e: TraceEvent<"zk.apply">): void {
    const session = stringField(e, "session");
    const zxid = zxidField(e, "zxid");
    const op = stringField(e, "op");
    const err = optionalStringField(e, "err");
    // A leader applies a txn of its own epoch once a quorum logged it; a standalone server once
    // its log is synced: such an apply is never taken back (a learner may apply one during its
    // sync that a later leader truncates).
    const epoch = Number(zxid >> 32n);
    const provesCommit = this.sawQuorumPeer ? this.leaderEpoch.get(e.node) === epoch : this.standalone.has(e.node);
    const cxid = intField(e, "cxid");
    this.lastApplied.set(e.node, zxid);
    this.builder.appliedTxn(session, cxid, zxid, op, err, e.atUs, provesCommit);
    this.requests.applied(session, cxid, zxid, !this.sawQuorumPeer);
    if (op === "closeSession" && err === undefined) this.onCloseApplied(e, session, zxid);
    else if (err === undefined && op !== "error" && session !== "0x0") this.neverCloses(session, epoch);
    // An internal request (session 0): a deleteContainer, or the error txn of one that failed its prep.
    else if (op === "deleteContainer" || (op === "error" && session === "0x0")) this.onReapApplied(e, zxid, err);
  }

  /**
   * A closeSession txn applied: it completes the expiries of its session invoked before the txn
   * first took effect anywhere. An expiry invoked later (a deposed leader waking from a pause
   * expires a session the new leader closed long ago; its own txn is never committed) is not
   * completed by a learner applying the old txn late: it stays pending, outcome unknown.
   */
  private onCloseApplied(e: TraceEvent, session: string, zxid: bigint): void {
    const firstUs = this.closeFirstApplied.get(zxid) ?? e.atUs;
    this.closeFirstApplied.set(zxid, firstUs);
    const pending = this.expiring.get(session);
    if (pending === undefined) return;
    const later = pending.filter((p) => p.atUs > firstUs);
    if (later.length > 0) this.expiring.set(session, later);
    else this.expiring.delete(session);
    for (const { op, atUs } of pending) {
      if (atUs > firstUs) continue;
      op.outcome = "ok";
      op.completeUs = e.atUs;
      op.zxid = zxid;
    }
  }

  /**
   * A txn of `session` applied without error in epoch E: every expiry of the session by the
   * leader of an earlier epoch e never takes effect. Its closeSession, if that leader proposed it
   * at all, has a zxid of epoch e, below this txn's; a `zk.apply` is a committed txn, and every
   * txn committed before it is in the history of E's leader, which applied it at its start (when
   * loading its log and syncing) — had the close been committed, that leader would no longer
   * know the session, and its PrepRequestProcessor would have turned this request into an error
   * txn (SESSIONEXPIRED). Not committed then, it never is: ZAB commits no txn of an epoch after a
   * later epoch's leader has committed without it. (An expiry ordered by the client's own
   * requests instead would misjudge a client that crashed and restarted, or re-attached.)
   */
  private neverCloses(session: string, epoch: number): void {
    if ((this.sessionAliveEpoch.get(session) ?? -1) < epoch) this.sessionAliveEpoch.set(session, epoch);
    const pending = this.expiring.get(session);
    if (pending === undefined) return;
    const left = pending.filter((p) => p.epoch === undefined || p.epoch >= epoch);
    for (const p of pending) if (!left.includes(p)) this.neverClosed.add(p.op);
    if (left.length > 0) this.expiring.set(session, left);
    else this.expiring.delete(session);
  }

  /** Reads are checked only when one server answered everything. */
  get singleServer(): boolean {
    return !this.sawQuorumPeer && this.standalone.size <= 1;
  }

  finish(end: RunEnd = { index: 0, atUs: 0 }): Violation[] {
    if (this.windows.starts !== undefined || this.windows.lost) return this.finishWindows(end);
    const checkReads = this.singleServer;
    const history = this.judgedHistory(true);
    if (history === undefined) return this.log.violations;
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
    const at = first === undefined ? undefined : this.whereInvoked(first);
    const what = result.inconclusive ? "inconclusive (search budget exhausted)" : `not linearizable (${checkReads ? "writes and reads" : "writes, and reads ordered by sync"})`;
    this.report(at ?? end, `${what}, partition ${result.partition}: ${result.explanation}`);
    return this.log.violations;
  }

  private report(at: RunEnd, text: string): void {
    const max = this.options.maxMessageChars;
    this.log.add(at, text.length > max ? `${text.slice(0, max - 1)}…` : text);
  }

  /**
   * The window's history as the search sees it (copies: the search may reorder and rewrite);
   * undefined when a malformed client event made it unjudgeable (reported where it was met): the
   * window and everything after it is not judged. (The check normalises it, which validates it.)
   */
  private judgedHistory(final: boolean): Operation[] | undefined {
    const checkReads = this.singleServer;
    if (this.sawMalformed) {
      this.summary = { checkedReads: checkReads, operations: 0, outcome: "malformed", steps: 0, windows: this.windows.index };
      this.windows.lose();
      return undefined;
    }
    const ops = checkReads ? this.history(final) : this.syncOrdered(this.history(final));
    return ops;
  }

  /**
   * At an instant no client op is open, with a window's worth of ops behind it: cut there if
   * nothing indeterminate is unsettled (or the window is too long to wait), judge the window,
   * keep its end states and forget its operations (but the expiries not yet applied).
   */
  private tryCut(e: TraceEvent): void {
    const w = this.windows;
    const at = { index: e.index, atUs: e.atUs };
    if (w.lost) {
      this.forgetWindow();
      w.cut(e.atUs);
      return;
    }
    const history = this.judgedHistory(false);
    if (history === undefined) return;
    const model = w.model;
    const starts = w.starts ?? [{ state: model.init(), carried: [] }];
    if (!w.mustCut() && unsettledOps(normalise(history), starts.flatMap((s) => s.carried), model).length > 0) {
      w.postpone();
      return;
    }
    const label = windowLabel(w.index, w.startUs, e.atUs);
    const result = checkWindow(history, starts, w.startsComplete, model, label, this.windowLimits(), true);
    w.steps += result.steps;
    w.operations += history.length;
    this.judged(result, label, at, w.startUs);
    this.forgetWindow();
    w.cut(e.atUs);
  }

  /**
   * After a cut: the window's operations go, but the expiries and reaps not applied yet, which
   * open the next window (ids go on from where this window's ended); credentials outlive a
   * window (every later op of their session carries them).
   */
  private forgetWindow(): void {
    const carried = [...[...this.expiring.values()].flatMap((list) => list.map((p) => p.op)), ...[...this.reaping.values()].flat()];
    const invokedIndex: number[] = [];
    for (const op of carried) invokedIndex.push(this.invokedIndex[this.builder.ops.indexOf(op)]!);
    const next = new HistoryBuilder(this.builder.nextId, this.builder.auth);
    for (const op of carried) next.carry(op);
    this.builder = next;
    this.invokedIndex = invokedIndex;
    this.neverClosed.clear(); // none is carried: they left with the window
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
        const where = first === undefined ? undefined : this.whereInvoked(first);
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
    const history = w.lost ? undefined : this.judgedHistory(true);
    if (history !== undefined) {
      const label = windowLabel(w.index, w.startUs, end.atUs);
      const result = checkWindow(history, w.starts!, w.startsComplete, w.model, label, this.windowLimits(), false);
      w.steps += result.steps;
      w.operations += history.length;
      this.judged(result, label, end, w.startUs);
      w.cut(end.atUs);
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

  /** Where an op of the search (a copy, same id) was invoked in the trace. */
  private whereInvoked(op: Operation): RunEnd | undefined {
    const ops = this.builder.ops;
    for (let k = 0; k < ops.length; k++) if (ops[k]!.id === op.id) return { index: this.invokedIndex[k]!, atUs: ops[k]!.invokeUs };
    return undefined;
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

  /**
   * The history the search sees (see the header for what is added and left out), as copies, the
   * unknown writes the servers' trace settles settled (`final`: the run is over, so a request no
   * server took in by now never takes effect).
   */
  history(final = true): Operation[] {
    const ops = this.builder.build();
    const settled = this.builder.settle(final ? (session, cxid) => this.requests.mayHaveEntered(session, cxid, this.sawQuorumPeer) : undefined);
    const out: Operation[] = [];
    for (let k = 0; k < ops.length; k++) {
      const op = ops[k]!;
      const s = settled.get(op);
      if (this.neverClosed.has(op) || s === "never") continue;
      const copy = copyOperation(op);
      if (s !== undefined) {
        copy.outcome = s.outcome;
        copy.completeUs = s.completeUs;
        copy.zxid = s.zxid;
        if (s.err !== undefined) copy.err = s.err;
      }
      out.push(copy);
    }
    return out;
  }
}

/**
 * What may have taken a client's request into some server's tree without a `zk.apply` of it: on
 * an ensemble, a leader's proposal of it (`zab.propose` names the request as session and cxid;
 * every txn in any log or tree began as one — a learner's log and its sync come from a leader's,
 * a restart replays its own); on standalone servers, any txn appended to a log (`disk.append`'s
 * zxid) that no server has applied, which a restart would replay unannounced.
 */
class RequestLedger {
  /**
   * Session (as `zk.apply` names it) → the cxids a leader proposed that no server has applied
   * yet. Only these matter: an applied request is settled by its apply (`HistoryBuilder.settle`
   * asks about requests no server applied), so an apply forgets its proposal and the map holds
   * only the txns in flight.
   */
  private readonly proposedUnapplied = new Map<string, Set<number>>();
  private readonly appliedZxids = new Set<bigint>();
  private readonly loggedUnapplied = new Set<bigint>();

  /** A `zab.propose`'s request (its txn digest names it). */
  proposed({ session, cxid }: { session: string; cxid: number }): void {
    let cxids = this.proposedUnapplied.get(session);
    if (cxids === undefined) this.proposedUnapplied.set(session, (cxids = new Set()));
    cxids.add(cxid);
  }

  logged(zxid: bigint): void {
    if (!this.appliedZxids.has(zxid)) this.loggedUnapplied.add(zxid);
  }

  /** A `zk.apply` of request (session, cxid) at `zxid`; `standalone`: no quorum peer seen. */
  applied(session: string, cxid: number, zxid: bigint, standalone: boolean): void {
    const cxids = this.proposedUnapplied.get(session);
    if (cxids !== undefined && cxids.delete(cxid) && cxids.size === 0) this.proposedUnapplied.delete(session);
    if (!standalone) return;
    this.appliedZxids.add(zxid);
    this.loggedUnapplied.delete(zxid);
  }

  /** Whether request (session, cxid), which no server applied, may have entered a tree without a `zk.apply` of it. */
  mayHaveEntered(session: string, cxid: number, quorum: boolean): boolean {
    if (!quorum) return this.loggedUnapplied.size > 0;
    if (!/^0x[0-9a-f]+$/.test(session)) return true;
    return this.proposedUnapplied.get(session)?.has(cxid) ?? false;
  }
}

/**
 * Which sessions more than one client handle has used (each handle names its own `client`), and
 * the completions to read as unknown: a non-read op of such a session, invoked or completed
 * once a second handle had used it. Its reply may be the other handle's (same session, same cxid).
 */
class SharedSessions {
  private readonly handles = new Map<string, Set<string>>();

  /** An invocation: whether its session was already shared then (its open op keeps the answer). */
  invoked(inv: Invocation): boolean {
    if (!NO_SESSION.has(inv.session)) {
      let clients = this.handles.get(inv.session);
      if (clients === undefined) this.handles.set(inv.session, (clients = new Set()));
      clients.add(inv.client);
    }
    return this.isShared(inv.session);
  }

  /** The completion as the history reads it: unknown, without its reply, when the reply may be another handle's. */
  completed(inv: Invocation, sharedWhenInvoked: boolean, done: Completion): Completion {
    if (READ_OPS.has(inv.op) || done.outcome === "unknown") return done;
    if (!sharedWhenInvoked && !this.isShared(done.session)) return done;
    return { ...done, outcome: "unknown", err: undefined, result: undefined, zxid: undefined, xid: undefined };
  }

  private isShared(session: string): boolean {
    return (this.handles.get(session)?.size ?? 0) > 1;
  }
}


/**
 * The windowing state of one checker: how many client ops are open and were invoked since the
 * last cut, the states the tree may be in at that cut, and what could not be judged.
 */
class Windows {
  /** Client ops open (the checker's `openOps`). */
  private openCount = 0;
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
  steps = 0;
  operations = 0;
  readonly unknown: UnknownVerdict[] = [];

  constructor(
    private readonly windowOps: number,
    readonly model: SequentialModel<ZkTree>,
  ) {
    this.nextTryAt = windowOps;
  }

  /** A client op invoked (`opened`: not already open under its client and opId). */
  invoked(opened: boolean): void {
    if (opened) this.openCount++;
    this.invokes++;
  }

  /** True when this completion (`closed`: of an open op) leaves no client op open and a window is due. */
  completed(closed: boolean): boolean {
    if (closed) this.openCount--;
    return this.openCount === 0 && this.invokes >= this.nextTryAt;
  }

  /** Past four windows' worth of ops a cut carries what is unsettled instead of waiting. */
  mustCut(): boolean {
    return this.invokes >= 4 * this.windowOps;
  }

  /** Something indeterminate is unsettled: try again a little later. */
  postpone(): void {
    this.nextTryAt = this.invokes + Math.max(1, Math.floor(this.windowOps / 20));
  }

  cut(atUs: number): void {
    if (this.lost) this.lostAtUs ??= atUs;
    this.index++;
    this.startUs = atUs;
    this.invokes = 0;
    this.nextTryAt = this.windowOps;
  }

  lose(): void {
    this.lost = true;
    this.starts = undefined;
  }
}
