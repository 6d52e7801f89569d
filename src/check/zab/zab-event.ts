/**
 * Reading the server's `zab.*` trace annotations, for the ZAB checkers only.
 *
 * The checkers share no code with the server: they parse the annotation fields themselves
 * (zxids arrive as hex strings such as "0x100000002" and are kept as `bigint`, never a lossy
 * `number`) and name servers the same way in every message: `s2 (sid 2)`, the node id and the
 * ZooKeeper server id. A malformed annotation is itself reported (a `MalformedZabEvent` thrown
 * while reading a field is turned into a violation by `guarded`), because a checker that
 * silently skips what it cannot read proves nothing.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation } from "../checker.js";
import { parseZxidText } from "../zxid-text.js";
import { zxidCounter, zxidEpoch, type Zxid } from "../../zk/proto/records.js";

export class MalformedZabEvent extends Error {
  constructor(e: TraceEvent, field: string) {
    super(`malformed ${e.kind} event on ${e.node || "world"}: field "${field}" = ${JSON.stringify(String(e.fields?.[field]))}`);
  }
}

/** A zxid field: hex string (the annotation format), decimal string, bigint or safe integer. */
export function zxidField(e: TraceEvent, field: string): Zxid {
  const v = e.fields?.[field];
  if (typeof v === "string") {
    const z = parseZxidText(v);
    if (z !== undefined) return z;
  }
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  throw new MalformedZabEvent(e, field);
}

/** An integer field (epoch, sid): number, bigint or numeric string. */
export function intField(e: TraceEvent, field: string): number {
  const v = e.fields?.[field];
  if (typeof v === "number" && Number.isSafeInteger(v)) return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string" && /^-?[0-9]+$/.test(v)) return Number(v);
  throw new MalformedZabEvent(e, field);
}

export function stringField(e: TraceEvent, field: string): string {
  const v = e.fields?.[field];
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  throw new MalformedZabEvent(e, field);
}

export function optionalStringField(e: TraceEvent, field: string): string | undefined {
  const v = e.fields?.[field];
  return v === undefined || v === null ? undefined : String(v);
}

/** `0x200000001 (2,1)`: the hex form ZooKeeper logs, and the (epoch,counter) pair the papers use. */
export function formatZxid(zxid: Zxid): string {
  return `0x${zxid.toString(16)} (${zxidEpoch(zxid)},${zxidCounter(zxid)})`;
}

/** `s2 (sid 2)` from a zab annotation; the node id alone when the sid is missing. */
export function serverLabel(e: TraceEvent): string {
  const sid = e.fields?.sid;
  if (sid === undefined || sid === null) return e.node || "world";
  return e.node ? `${e.node} (sid ${String(sid)})` : `sid ${String(sid)}`;
}

/** `#12 at 3.5ms`: where in the trace something happened, for messages about earlier events. */
export function at(e: { index: number; atUs: number }): string {
  return `#${e.index} at ${e.atUs / 1000}ms`;
}

/**
 * Runs one event's handler; a malformed annotation becomes a violation instead of an exception
 * that would abort the whole run. Any other exception is a checker bug and propagates.
 */
export function guarded(log: ViolationLog, e: TraceEvent, handle: (e: TraceEvent) => void): void {
  try {
    handle(e);
  } catch (err) {
    reportMalformed(log, e, err);
  }
}

/** What `guarded` does with an error: a malformed event is a violation; anything else, a bug, propagates. */
export function reportMalformed(log: ViolationLog, e: TraceEvent, err: unknown): void {
  if (!(err instanceof MalformedZabEvent)) throw err;
  log.add(e, err.message);
}

/**
 * Node ids by ZooKeeper sid, learned from the annotations themselves (each carries both), so
 * that a field naming a server by sid (`zab.sync` leader, `zab.ack` from) can be resolved.
 */
export class ServerNames {
  private readonly nodeBySid = new Map<string, string>();
  private readonly labelByNode = new Map<string, string>();
  /** The sid each node last announced, as written (most events only repeat it). */
  private readonly sidByNode = new Map<string, unknown>();
  private lastNode: string | undefined;
  private lastSid: unknown;

  learn(e: TraceEvent): void {
    const sid = e.fields?.sid;
    if (e.node === "" || sid === undefined) return;
    // Most events come from the server that spoke last, repeating its sid: no lookup then.
    if (e.node === this.lastNode && sid === this.lastSid) return;
    this.lastNode = e.node;
    this.lastSid = sid;
    if (this.sidByNode.get(e.node) === sid) return;
    this.sidByNode.set(e.node, sid);
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
export function syncParties(e: TraceEvent, names: ServerNames): { leader: string | undefined; learner: string | undefined } {
  const learner = optionalStringField(e, "learner");
  if (learner !== undefined) return { leader: e.node, learner: names.node(learner) };
  const leader = optionalStringField(e, "leader");
  if (leader === undefined) throw new MalformedZabEvent(e, "learner");
  return { leader: names.node(leader), learner: e.node };
}

/**
 * The skeleton of a checker that reads only `zab.*` events: every one teaches the server names,
 * then goes to `dispatch`, whose throw on a malformed event is logged as a violation.
 */
export abstract class ZabEventChecker implements Checker {
  protected readonly log: ViolationLog;
  protected readonly names = new ServerNames();

  /**
   * `kinds`: the `zab.*` kinds `dispatch` handles, when it leaves some out (the busy per-txn
   * ones); the state and phase announcements still come, so every server's name is learned.
   */
  constructor(
    readonly name: string,
    private readonly kinds?: ReadonlySet<string>,
  ) {
    this.log = new ViolationLog(name);
  }

  accepts(kind: string): boolean {
    if (this.kinds !== undefined) return this.kinds.has(kind) || kind === "zab.state" || kind === "zab.phase";
    return kind.startsWith("zab.");
  }

  onEvent(e: TraceEvent): void {
    if (!e.kind.startsWith("zab.")) return;
    this.names.learn(e);
    // `guarded`, inlined: this runs for every zab event of every ZAB checker.
    try {
      this.dispatch(e);
    } catch (err) {
      reportMalformed(this.log, e, err);
    }
  }

  protected abstract dispatch(e: TraceEvent): void;

  finish(): Violation[] {
    return this.log.violations;
  }
}
