/**
 * client.watch-triggers: every watch event a client receives is one the reference model's trigger
 * table gives the txn it came from (check/linearizability/zk-triggers.ts, docs/zookeeper.md §2.3):
 * the right type about the right node — NodeCreated only from a create of that node,
 * NodeChildrenChanged only from a create or delete of a child, nothing from setACL, check, a
 * failed write or a failed multi.
 *
 * How: each notification is tied to the txn its server applied right after sending it
 * (notification-txns.ts); the txn is identified from the history — a definite write by its reply
 * zxid (the txn's own; a zxid two completions claim is left out), an indeterminate one by its
 * session and xid, a closeSession by its session (its effects: every ephemeral the session may
 * have created), a reap by the ContainerManager's choice on that server, a failed txn by its error
 * — and the event's path is read as the server's (the handle's chroot put back, as Java strips it).
 * An event is judged once its txn is identified; notifications sent outside a txn (SetWatches'
 * catch-up after a reconnect) and txns the history cannot identify (an op whose client crashed
 * before any answer) are not judged. What the txn did to the tree is the linearizability
 * checker's to judge; which watches should have fired, client.watches and client.server-watches'.
 *
 * Bounded state (docs/long-runs.md): a txn at or below the durable floor (zab/durable-floor.ts:
 * every server has applied it, so every notification it fires has been sent) is forgotten —
 * its apply, the completion that named it, a reap's path, an indeterminate write matched to it,
 * and a closed session's ephemerals — unless a notification of it is still in flight, received
 * and not yet reported, or waiting to be judged. Nothing forgotten can be asked for again: a
 * server that applies a txn below the floor again (recovering its own log) has no client to
 * notify yet. Without this the checker kept every txn of the run, ~3 MB a virtual minute in
 * `soak-1h`.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type RunEnd, type Violation } from "../checker.js";
import { guarded, intField, nullableStringField, optionalStringField, stringField } from "../event-reader.js";
import { ByOp, OpTable, fieldsOf, serverPathOf, type Completion, type Invocation } from "../history/client-events.js";
import type { CreateModeName } from "../../zk/proto/records.js";
import { describeTriggers, triggers, type Effect, type NodeEventType } from "../linearizability/zk-triggers.js";
import { NotificationTxns, type NotifiedTxn } from "./notification-txns.js";
import { runOps, type OpReader } from "./run-ops.js";
import { isEphemeralMode, isSequentialMode } from "./znode-paths.js";
import { FLOOR_KINDS, FloorPruner, isFloorEvent } from "../zab/durable-floor.js";
import type { RunServices } from "../check-run.js";
import type { Zxid } from "../../zk/proto/records.js";

/**
 * The kinds it reads: the client's, the reaps, crashes and role changes that forget them, and the
 * messages and applies that attribute notifications (NotificationTxns).
 */
const KINDS = ["client.invoke", "client.complete", "client.connect", "client.state", "client.watch", "zk.container.reap", "crash", "zab.state", ...NotificationTxns.KINDS, ...FLOOR_KINDS] as const;
type Kind = KindsOf<typeof KINDS>;
/** The kinds it reads once the run hands its pruner the floor's. */
const ATTACHED_KINDS: readonly Kind[] = KINDS.filter((k) => !(FLOOR_KINDS as readonly string[]).includes(k));

const NODE_EVENTS: ReadonlySet<string> = new Set<NodeEventType>(["NodeCreated", "NodeDeleted", "NodeDataChanged", "NodeChildrenChanged"]);
const WRITES: ReadonlySet<string> = new Set(["create", "delete", "setData", "setACL", "multi"]);

/** An event waiting for its txn to be identified. */
interface Pending {
  at: RunEnd;
  client: string;
  session: string;
  type: NodeEventType;
  path: string;
  txn: NotifiedTxn;
}

/** What the history says a txn did. */
interface Identified {
  what: string;
  effects: Effect[];
}

/**
 * A definite write by its reply: what it did is worked out when a notification asks (most
 * writes fire none that is judged), then kept.
 */
interface DefiniteWrite {
  inv: Invocation;
  done: Completion;
  identified: Identified | undefined;
}

export class WatchTriggersChecker implements Checker<Kind> {
  readonly name = "client.watch-triggers";
  readonly kinds = KINDS;
  readonly messageTypes = NotificationTxns.MESSAGE_TYPES;
  readonly log = new ViolationLog(this.name);
  /** Its operations: the run's table once attached (run-ops.ts). */
  private ops: OpReader = new OpTable(this.log);
  /** Which txn each notification came from: the run's, once attached (it then reads the messages for every reader). */
  private txns = new NotificationTxns(this.log);
  /** "client session" → the handle's chroot. */
  private readonly chroots = new Map<string, string>();
  /** Txn zxid → the first apply of it (op, session, cxid, err). */
  private readonly applied = new Map<string, { op: string; session: string; cxid: number; err: string | undefined }>();
  /** Txn zxid → what a definite write with that reply zxid did (null: two claim it). */
  private readonly byZxid = new Map<string, DefiniteWrite | null>();
  /** (session, xid) → an indeterminate write's request (no key text per lookup). */
  private readonly bySessionXid = new ByOp<Invocation>();
  /** Session → the ephemerals it may have created (exact names, and sequential prefixes). */
  private readonly ephemerals = new Map<string, { exact: Set<string>; prefixes: Set<string> }>();
  /** Server → the paths its ContainerManager chose, in order, not applied yet; and reap txns' paths. */
  private readonly reaping = new Map<string, string[]>();
  private readonly reaped = new Map<string, string>();
  private readonly pending: Pending[] = [];
  private readonly pruner = new FloorPruner((floorZxid) => this.prune(floorZxid));
  /** Attached: the run feeds the pruner (`attach`). */
  private followsFloor = false;

  /**
   * The run's durable floor, whose events the run hands the pruner: the checker then leaves them
   * out (its notification runs never wait on them: a server's notifications and its `zk.apply`
   * come in one step, NotificationTxns).
   */
  attach(run: RunServices): void {
    this.pruner.follow(run, this.log);
    this.followsFloor = true;
    this.ops = runOps(run, this.log);
    this.txns = NotificationTxns.ofRun(run, this.log);
    this.txns.messagesFed = true;
  }

  attachedKinds(): readonly Kind[] {
    return ATTACHED_KINDS;
  }

  onEvent(e: TraceEvent<Kind>): void {
    this.read(e);
    // Attached, the run hands the pruner the floor's events (none reaches this): no kind test per event.
    if (!this.followsFloor && isFloorEvent(e)) guarded(this.log, e, this.pruner, this.pruner.observe);
  }

  private read(e: TraceEvent<Kind>): void {
    this.txns.onEvent(e);
    switch (e.kind) {
      case "client.invoke": {
        this.txns.clientNode(e.node);
        const inv = this.ops.invoke(e);
        if (inv === undefined) return;
        if (inv.chroot !== undefined) this.chroots.set(`${inv.client} ${inv.session}`, inv.chroot);
        // An ephemeral create may take effect although its answer never comes (the client crashed
        // or paused past its session, the run ended): from its invocation on, the session's end may
        // delete it.
        this.notePossibleEphemerals(inv);
        return;
      }
      case "client.complete":
        return this.onComplete(e);
      case "client.connect":
      case "client.state":
        this.txns.clientNode(e.node);
        return;
      case "client.watch":
        return guarded(this.log, e, this, this.onWatch);
      case "zk.apply":
        return guarded(this.log, e, this, this.onApply);
      case "zk.container.reap":
        return guarded(this.log, e, this, this.onReap);
      // A crash, or a role change (a leader that steps down drops the requests in its
      // pipeline), forgets the choices not applied yet.
      case "crash":
      case "zab.state":
        this.reaping.delete(e.node);
        return;
    }
  }

  private onReap(e: TraceEvent<"zk.container.reap">): void {
    const path = stringField(e, "path");
    (this.reaping.get(e.node) ?? this.reaping.set(e.node, []).get(e.node)!).push(path);
  }

  private onComplete(e: TraceEvent<"client.complete">): void {
    const c = this.ops.complete(e);
    if (c === undefined) return;
    const { inv, done } = c;
    const session = done.session;
    if (inv.chroot !== undefined) this.chroots.set(`${inv.client} ${session}`, inv.chroot);
    this.noteEphemerals(inv, done, session);
    if (!WRITES.has(inv.op) || done.local) return;
    if (done.outcome === "unknown") {
      if (done.xid !== undefined) this.bySessionXid.set(session, done.xid, inv);
      return;
    }
    if (done.zxid === undefined) return;
    const zxid = `0x${done.zxid.toString(16)}`;
    const known = this.byZxid.get(zxid);
    this.byZxid.set(zxid, known !== undefined ? null : { inv, done, identified: undefined });
    if (this.pending.length > 0) this.judgeWaiting();
  }

  /** The ephemeral creates an invocation may make, by the path it asked for (a prefix when sequential). */
  private notePossibleEphemerals(inv: Invocation): void {
    if (inv.op !== "create" && inv.op !== "multi") return;
    for (const c of creates(inv, undefined)) {
      if (!isEphemeralMode(c.mode)) continue;
      let e = this.ephemerals.get(inv.session);
      if (e === undefined) this.ephemerals.set(inv.session, (e = { exact: new Set(), prefixes: new Set() }));
      if (isSequentialMode(c.mode)) e.prefixes.add(c.path);
      else e.exact.add(c.path);
    }
  }

  /** The ephemeral creates of a session (names it got, prefixes of those it may have got). */
  private noteEphemerals(inv: Invocation, done: Completion, session: string): void {
    if ((inv.op !== "create" && inv.op !== "multi") || done.outcome === "fail") return;
    for (const c of creates(inv, done)) {
      if (!isEphemeralMode(c.mode)) continue;
      let e = this.ephemerals.get(session);
      if (e === undefined) this.ephemerals.set(session, (e = { exact: new Set(), prefixes: new Set() }));
      if (c.name !== undefined) e.exact.add(c.name);
      else if (isSequentialMode(c.mode)) e.prefixes.add(c.path);
      else e.exact.add(c.path);
    }
  }

  private onApply(e: TraceEvent<"zk.apply">): void {
    const f = fieldsOf(e);
    const zxidText = f.zxid;
    const opText = f.op;
    const sessionText = f.session;
    const zxid = typeof zxidText === "string" ? zxidText : stringField(e, "zxid");
    const op = typeof opText === "string" ? opText : stringField(e, "op");
    const session = typeof sessionText === "string" ? sessionText : stringField(e, "session");
    // An internal request (session 0) of the server that chose reaps: the next of its choices.
    if (session === "0x0" && (op === "deleteContainer" || op === "error")) {
      const path = this.reaping.get(e.node)?.shift();
      if (path !== undefined && op === "deleteContainer" && !this.reaped.has(zxid)) this.reaped.set(zxid, path);
    }
    if (!this.applied.has(zxid)) this.applied.set(zxid, { op, session, cxid: intField(e, "cxid"), err: optionalStringField(e, "err") });
  }

  private onWatch(e: TraceEvent<"client.watch">): void {
    const txn = this.txns.take(e);
    const type = stringField(e, "type");
    const path = nullableStringField(e, "path");
    if (txn === undefined || path === null || !NODE_EVENTS.has(type)) return;
    const client = stringField(e, "client");
    const session = stringField(e, "session");
    // (No handle with a chroot yet, the common case: no key text made.)
    const chroot = this.chroots.size === 0 ? undefined : this.chroots.get(`${client} ${session}`);
    const serverPath = chroot === undefined ? path : path === "/" ? chroot : chroot + path;
    this.pending.push({ at: { index: e.index, atUs: e.atUs }, client, session, type: type as NodeEventType, path: serverPath, txn });
    this.judgeWaiting();
  }

  /** Judges the waiting events whose txn is identified now. */
  private judgeWaiting(): void {
    for (let i = 0; i < this.pending.length; ) {
      const p = this.pending[i]!;
      const what = this.identify(p.txn.zxid);
      if (what === undefined) {
        i++;
        continue;
      }
      this.pending.splice(i, 1);
      if (triggers(what.effects, p.type, p.path)) continue;
      this.log.add(
        p.at,
        `${p.client} (session ${p.session}) received ${p.type} ${p.path} from txn ${p.txn.zxid} on ${p.txn.server} (${what.what}), ` +
          `but that txn fires ${describeTriggers(what.effects)} (the trigger table, docs/zookeeper.md §2.3)`,
      );
    }
  }

  /** What the txn did, as far as the history tells; undefined when it cannot be told (yet). */
  private identify(zxid: string): Identified | undefined {
    const a = this.applied.get(zxid);
    if (a === undefined) return undefined;
    if (a.err !== undefined || a.op === "error") return { what: `a failed ${a.op} (${a.err ?? "error txn"})`, effects: [] };
    if (a.op === "createSession" || a.op === "setACL" || a.op === "check") return { what: a.op, effects: [] };
    if (a.op === "closeSession") return { what: `the end of session ${a.session}`, effects: this.sessionEnd(a.session) };
    if (a.op === "deleteContainer") {
      const path = this.reaped.get(zxid);
      return path === undefined ? undefined : { what: `the reap of ${path}`, effects: [{ kind: "delete", path, sequential: false, named: true }] };
    }
    const definite = this.byZxid.get(zxid);
    if (definite === null) return undefined;
    if (definite !== undefined) {
      const { inv, done } = definite;
      return (definite.identified ??= { what: `${inv.op} ${inv.path} by ${inv.client}`, effects: done.outcome === "ok" ? effectsOf(inv, done) : [] });
    }
    const inv = this.bySessionXid.get(a.session, a.cxid);
    return inv === undefined ? undefined : { what: `${inv.op} ${inv.path} by ${inv.client} (no answer)`, effects: effectsOf(inv, undefined) };
  }

  /** Forgets the txns at or below the floor that no notification still needs (see the header). */
  private prune(floorZxid: Zxid): void {
    const held = new Set<string>(this.pending.map((p) => p.txn.zxid));
    this.txns.heldZxids(held);
    const forgettable = (zxid: string) => !held.has(zxid) && BigInt(zxid) <= floorZxid;
    for (const [zxid, a] of this.applied) {
      if (!forgettable(zxid)) continue;
      this.applied.delete(zxid);
      this.bySessionXid.take(a.session, a.cxid);
      if (a.op === "closeSession" && a.err === undefined) this.ephemerals.delete(a.session);
    }
    for (const zxid of this.byZxid.keys()) if (forgettable(zxid)) this.byZxid.delete(zxid);
    for (const zxid of this.reaped.keys()) if (forgettable(zxid)) this.reaped.delete(zxid);
  }

  private sessionEnd(session: string): Effect[] {
    const e = this.ephemerals.get(session);
    if (e === undefined) return [];
    return [
      ...[...e.exact].map((path): Effect => ({ kind: "delete", path, sequential: false, named: true })),
      ...[...e.prefixes].map((path): Effect => ({ kind: "delete", path, sequential: true, named: false })),
    ];
  }

  finish(): Violation[] {
    this.judgeWaiting();
    return this.log.violations;
  }

  retained(): number {
    return this.pending.length + this.applied.size + this.byZxid.size + this.bySessionXid.size;
  }
}

/** The creates of an op (itself, or a multi's parts) with server paths and, when known, the name each got. */
function creates(inv: Invocation, done: Completion | undefined): { path: string; mode: CreateModeName | undefined; name: string | undefined }[] {
  if (inv.op === "create") {
    const name = done?.result?.path !== undefined ? serverPathOf(inv, done.result.path, true) : undefined;
    return [{ path: serverPathOf(inv, inv.path), mode: inv.args.mode, name }];
  }
  if (inv.op !== "multi") return [];
  const results = done?.result?.results ?? [];
  const out: { path: string; mode: CreateModeName | undefined; name: string | undefined }[] = [];
  (inv.args.ops ?? []).forEach((s, i) => {
    if (s.op !== "create") return;
    out.push({ path: serverPathOf(inv, s.path), mode: s.args.mode, name: results[i]?.path });
  });
  return out;
}

/** What a write did (all of it: a txn that applied succeeded), from its request and, when known, its answer. */
function effectsOf(inv: Invocation, done: Completion | undefined): Effect[] {
  const parts: { op: string; path: string; mode: CreateModeName | undefined }[] =
    inv.op === "multi" ? (inv.args.ops ?? []).map((s) => ({ op: s.op, path: s.path, mode: s.args.mode })) : [{ op: inv.op, path: inv.path, mode: inv.args.mode }];
  const made = creates(inv, done);
  let c = 0;
  const out: Effect[] = [];
  for (const s of parts) {
    const path = serverPathOf(inv, s.path);
    switch (s.op) {
      case "create": {
        const m = made[c++];
        out.push({ kind: "create", path: m?.name ?? path, sequential: isSequentialMode(s.mode), named: m?.name !== undefined });
        break;
      }
      case "delete":
        out.push({ kind: "delete", path: inv.op !== "multi" && s.path === "/" ? "/" : path, sequential: false, named: true });
        break;
      case "setData":
        out.push({ kind: "setData", path });
        break;
    }
  }
  return out;
}
