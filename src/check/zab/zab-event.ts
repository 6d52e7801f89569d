/**
 * Reading the server's `zab.*` trace annotations, for the ZAB checkers only.
 *
 * The checkers share no code with the server: they read the annotation fields through the
 * strict reader (`check/event-reader.ts`: zxids arrive as hex strings such as "0x100000002" and
 * are kept as `bigint`, never a lossy `number`; a malformed field is a violation) and name
 * servers the same way in every message: `s2 (sid 2)`, the node id and the ZooKeeper server id.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { TraceKind } from "../../sim/trace-schema.js";
import { ViolationLog, type Checker, type Violation } from "../checker.js";
import { MalformedEvent, optionalIntField, optionalStringField, reportMalformed } from "../event-reader.js";
import { zxidCounter, zxidEpoch, type Zxid } from "../../zk/proto/records.js";
import { FLOOR_KINDS, type FloorKind, type FloorPruner } from "./durable-floor.js";
import type { RunServices } from "../check-run.js";
import { TXN_KINDS, UNSHARED_TXN_FIELDS, type TxnFieldsReader } from "./txn-fields.js";

/** `0x200000001 (2,1)`: the hex form ZooKeeper logs, and the (epoch,counter) pair the papers use. */
export function formatZxid(zxid: Zxid): string {
  return `0x${zxid.toString(16)} (${zxidEpoch(zxid)},${zxidCounter(zxid)})`;
}

/** `s2 (sid 2)` from a zab annotation; the node id alone when the sid is missing. */
export function serverLabel(e: TraceEvent): string {
  const sid = optionalIntField(e, "sid");
  if (sid === undefined) return e.node || "world";
  return e.node ? `${e.node} (sid ${sid})` : `sid ${sid}`;
}

/** `#12 at 3.5ms`: where in the trace something happened, for messages about earlier events. */
export function at(e: { index: number; atUs: number }): string {
  return `#${e.index} at ${e.atUs / 1000}ms`;
}

/**
 * Node ids by ZooKeeper sid, learned from the annotations themselves (each carries both), so
 * that a field naming a server by sid (`zab.sync` leader, `zab.ack` from) can be resolved.
 */
export class ServerNames {
  private readonly nodeBySid = new Map<string, string>();
  private readonly labelByNode = new Map<string, string>();
  /** The sid each node last announced, as written (most events only repeat it). */
  private readonly sidByNode = new Map<string, number>();
  private lastNode: string | undefined;
  private lastSid: number | undefined;
  /** How many times what a sid names has changed (a node announcing a sid it had not): readers cache by it. */
  changes = 0;

  /** Learns the event's node and sid; throws `MalformedEvent` on a sid that is not an integer. */
  learn(e: TraceEvent): void {
    // Most events come from the server that spoke last, repeating its sid as a number: no
    // reader, no lookup then (every ZAB checker learns from every zab event it reads).
    const written = (e.fields as { sid?: unknown } | undefined)?.sid;
    if (written === this.lastSid && e.node === this.lastNode && written !== undefined) return;
    // Else, most often, a server already known repeating its sid (the servers take turns: each
    // logs and applies every txn): one lookup by node, no reader.
    if (typeof written === "number" && Number.isSafeInteger(written) && this.sidByNode.get(e.node) === written) return;
    const sid = optionalIntField(e, "sid");
    if (e.node === "" || sid === undefined) return;
    if (e.node === this.lastNode && sid === this.lastSid) return;
    this.lastNode = e.node;
    this.lastSid = sid;
    if (this.sidByNode.get(e.node) === sid) return;
    this.sidByNode.set(e.node, sid);
    this.changes++;
    this.nodeBySid.set(String(sid), e.node);
    this.labelByNode.set(e.node, serverLabel(e));
  }

  /** The node a sid (or node id) names, if it has been seen. */
  node(sidOrNode: string): string | undefined {
    if (this.labelByNode.has(sidOrNode)) return sidOrNode;
    return this.nodeBySid.get(sidOrNode);
  }

  label(node: string): string {
    return this.labelByNode.get(node) ?? node;
  }
}

/**
 * The two ends of a `zab.sync`. The annotation may come from either side: from the leader's
 * LearnerHandler (`node` = leader, field `learner` = the learner's sid) or from the learner
 * (`node` = learner, field `leader` = the leader's sid). Ends not yet seen are undefined.
 */
export function syncParties(e: TraceEvent<"zab.sync">, names: ServerNames): { leader: string | undefined; learner: string | undefined } {
  const learner = optionalStringField(e, "learner");
  if (learner !== undefined) return { leader: e.node, learner: names.node(learner) };
  const leader = optionalStringField(e, "leader");
  if (leader === undefined) throw new MalformedEvent(e, "learner", undefined, "the learner's sid (or the leader's, from a learner)");
  return { leader: names.node(leader), learner: e.node };
}

/** The announcements every ZAB checker reads, to learn each server's name. */
const NAME_KINDS = ["zab.state", "zab.phase"] as const;
type NameKind = (typeof NAME_KINDS)[number];

/**
 * The skeleton of a checker of `zab.*` events (and a few of other layers, e.g. "disk.append"):
 * every zab event teaches the server names, an event of its own kinds goes to `dispatch`, whose
 * throw on a malformed event is logged as a violation, and every event goes to the pruner, if the
 * checker forgets its state below the durable floor (durable-floor.ts).
 */
export abstract class ZabEventChecker<K extends TraceKind> implements Checker<K | NameKind | FloorKind> {
  readonly log: ViolationLog;
  protected readonly names = new ServerNames();
  /** Set by a checker that forgets its per-txn state below the durable floor, in its constructor. */
  protected pruner: FloorPruner | undefined = undefined;
  /** The zxid and txn of its txn events, read once a run for every reader (zab/txn-fields.ts). */
  protected txnFields: TxnFieldsReader = UNSHARED_TXN_FIELDS;
  private readonly own: ReadonlySet<TraceKind>;
  private kindList: readonly (K | NameKind | FloorKind)[] | undefined;

  /** `kinds`: the kinds `dispatch` handles; the state and phase announcements come too, so every server's name is learned. */
  constructor(
    readonly name: string,
    ownKinds: readonly K[],
  ) {
    this.log = new ViolationLog(name);
    this.own = new Set(ownKinds);
  }

  get kinds(): readonly (K | NameKind | FloorKind)[] {
    return (this.kindList ??= [...new Set<K | NameKind | FloorKind>([...(this.own as ReadonlySet<K>), ...NAME_KINDS, ...(this.pruner === undefined ? [] : FLOOR_KINDS)])]);
  }

  /** The run's durable floor, for a checker that prunes by it; the run's txn fields, for one that reads txn events. */
  attach(run: RunServices): void {
    this.pruner?.attach(run);
    if (TXN_KINDS.some((kind) => this.own.has(kind))) this.txnFields = run.txnFields();
  }

  onEvent(e: TraceEvent<K | NameKind | FloorKind>): void {
    // `guarded`, inlined: this runs for every zab event of every ZAB checker.
    try {
      if (e.kind.startsWith("zab.")) this.names.learn(e);
      if (this.isOwn(e)) this.dispatch(e);
      this.pruner?.observe(e);
    } catch (err) {
      reportMalformed(this.log, e, err);
    }
  }

  private isOwn(e: TraceEvent): e is TraceEvent<K> {
    return this.own.has(e.kind);
  }

  protected abstract dispatch(e: TraceEvent<K>): void;

  finish(): Violation[] {
    return this.log.violations;
  }
}
