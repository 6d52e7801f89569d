/**
 * `recipe.queue`: delivery and order of a distributed queue, from `recipe.queue` annotations,
 * against the guarantee each consumer declares (`delivery`):
 *
 * - no phantom: every taken item id was offered (acknowledged or of unknown outcome) by the
 *   end of the run (a take may precede the producer's reply), or its producer's client node
 *   crashed with the item's create sent (`client.invoke` of `<queue>/qn-[NN-]<id>-`) and no
 *   offer annotated: a crashed producer cannot say its create's outcome was unknown;
 * - no double delivery of one queue node: under `at-most-once` never; under `at-least-once`
 *   only when one of the hand-overs was `unsure` (its delete's reply was lost);
 * - no loss, once the application declares the queue `drained`: every acknowledged item id
 *   was taken, unless an at-most-once consumer reported dropping it, or a client node crashed
 *   after the item was acknowledged (a consumer that crashed between its delete and its `take`
 *   annotation took the item with no word of it — the recipe's take is at most once by design);
 * - FIFO order (non-priority queues): each consumer session takes nodes in increasing
 *   sequence order (sequence numbers are the queue's order and a consumer always takes the
 *   lowest it sees). A priority queue's order across priorities is `recipe.priority-queue`'s.
 * - liveness (a waiting consumer is eventually served): a consumer with a live session that
 *   finds the queue empty (`wait`) `stallMs` into a quiet run (no fault) is stuck if an item
 *   acknowledged at least `stallMs` before was neither taken nor dropped by then. Items offered
 *   before a client crash are not judged: a consumer that crashed between its delete and its
 *   `take` annotation took the item with no word of it.
 */
import type { Checker, Violation } from "../checker.js";
import { ViolationLog, type KindsOf } from "../checker.js";
import { STALL_MS } from "./exclusive.js";
import { SessionFates, fmtMs } from "./sessions.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded, intField, optionalBooleanField, optionalNumberField, optionalStringField, stringField } from "../event-reader.js";

interface Take {
  client: string;
  unsure: boolean;
  delivery: string;
}

interface QueueHistory {
  offered: Map<string, "ok" | "unknown">;
  /** Item id → when its offer was first acknowledged. */
  acknowledgedAtUs: Map<string, number>;
  /** A consumer was reported stuck on this queue (once per queue). */
  stuck: boolean;
  takenNodes: Map<string, Take[]>;
  takenIds: Set<string>;
  /** Item ids an at-most-once consumer reported dropping. */
  dropped: Set<string>;
  lastSeqBySession: Map<string, number>;
  priority: boolean;
  drained: TraceEvent | undefined;
  /** Items taken before any offer of them was annotated, with the take and its client. */
  unannounced: Map<string, { take: TraceEvent; client: string }>;
  /** Item ids whose producer's node crashed with their create invoked and no offer annotated. */
  crashedOffers: Set<string>;
}

/** A queue item's create path: `<queue>/qn-<id>-`, or `<queue>/qn-<NN>-<id>-` in a priority queue (the recipe's names). */
const ITEM_CREATE = /^(.*)\/qn-(?:\d{2}-)?([A-Za-z0-9._]+)-$/;

const KINDS = ["recipe.queue", "client.invoke", ...SessionFates.KINDS] as const;
type Kind = KindsOf<typeof KINDS>;

export class QueueChecker implements Checker<Kind> {
  readonly name = "recipe.queue";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly queues = new Map<string, QueueHistory>();
  private readonly fates = new SessionFates();
  /** The last crash of any node: an item offered before it may have been taken unannounced. */
  private lastCrashUs = -1;
  /** Nodes that ran a client (answered requests, or annotated the queue), and when nodes crashed. */
  private readonly clientNodes = new Set<string>();
  private readonly crashes: { node: string; atUs: number }[] = [];
  /** Client node → queue items whose create it invoked and whose offer it has not annotated yet. */
  private readonly pendingOffers = new Map<string, { queue: string; item: string }[]>();

  constructor(private readonly stallMs = STALL_MS) {}

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    if (e.kind === "client.invoke") {
      const m = stringField(e, "op") === "create" ? ITEM_CREATE.exec(optionalStringField(e, "path") ?? "") : null;
      if (m !== null) {
        const pending = this.pendingOffers.get(e.node) ?? [];
        pending.push({ queue: m[1]!, item: m[2]! });
        this.pendingOffers.set(e.node, pending);
      }
      return;
    }
    if (e.kind !== "recipe.queue") {
      if (e.kind === "crash") {
        this.lastCrashUs = e.atUs;
        this.crashes.push({ node: e.node, atUs: e.atUs });
        // The crashed producer's creates in doubt: they may have made a node no annotation will announce.
        for (const p of this.pendingOffers.get(e.node) ?? []) this.queue(p.queue).crashedOffers.add(p.item);
        this.pendingOffers.delete(e.node);
      }
      if (e.kind === "client.complete") this.clientNodes.add(e.node);
      this.fates.onEvent(e);
      return;
    }
    this.clientNodes.add(e.node);
    const name = stringField(e, "queue");
    const event = stringField(e, "event");
    const q = this.queue(name);
    switch (event) {
      case "offer": {
        const item = stringField(e, "item");
        const ok = stringField(e, "outcome") === "ok";
        if ((optionalNumberField(e, "priority") ?? 0) !== 0) q.priority = true;
        if (ok || !q.offered.has(item)) q.offered.set(item, ok ? "ok" : "unknown");
        if (ok && !q.acknowledgedAtUs.has(item)) q.acknowledgedAtUs.set(item, e.atUs);
        const pending = this.pendingOffers.get(e.node);
        if (pending !== undefined) this.pendingOffers.set(e.node, pending.filter((p) => p.queue !== name || p.item !== item));
        return;
      }
      case "wait":
        return this.onWait(e, name, q);
      case "take":
        return this.onTake(e, name, q);
      case "dropped":
        q.dropped.add(stringField(e, "item"));
        return;
      case "drained":
        q.drained = e;
        return;
      default:
        return;
    }
  }

  private onTake(e: TraceEvent, name: string, q: QueueHistory): void {
    const item = stringField(e, "item");
    const node = stringField(e, "node");
    const take: Take = { client: stringField(e, "client"), unsure: optionalBooleanField(e, "unsure") === true, delivery: stringField(e, "delivery") };
    const priority = optionalNumberField(e, "priority");
    // Checked at the end: a consumer may take an item before its producer hears the create's reply.
    if (!q.offered.has(item) && !q.unannounced.has(item)) q.unannounced.set(item, { take: e, client: take.client });
    const before = q.takenNodes.get(node) ?? [];
    for (const t of before) {
      const allowed = take.delivery === "at-least-once" && t.delivery === "at-least-once" && (take.unsure || t.unsure);
      if (!allowed) this.log.add(e, `${name} node ${node} (item ${item}) was delivered twice: to ${t.client} and to ${take.client}, and neither hand-over was an unsure at-least-once one`);
    }
    before.push(take);
    q.takenNodes.set(node, before);
    q.takenIds.add(item);
    if (q.priority || (priority !== undefined && priority !== 0)) {
      q.priority = true;
      return;
    }
    const session = stringField(e, "session");
    const seq = intField(e, "seq");
    const last = q.lastSeqBySession.get(session);
    if (last !== undefined && seq <= last) this.log.add(e, `FIFO order broken on ${name}: ${take.client} (session ${session}) took sequence ${seq} after sequence ${last}`);
    q.lastSeqBySession.set(session, seq);
  }

  /** A consumer found the queue empty: stuck if, well into a quiet run, an item acknowledged long before is still untaken. */
  private onWait(e: TraceEvent, name: string, q: QueueHistory): void {
    const session = stringField(e, "session");
    if (q.stuck || this.fates.isEnded(session) || (e.atUs - this.fates.lastFaultUs) / 1000 < this.stallMs) return;
    const due = e.atUs - this.stallMs * 1000;
    const untaken = [...q.acknowledgedAtUs].filter(([id, atUs]) => atUs <= due && atUs > this.lastCrashUs && !q.takenIds.has(id) && !q.dropped.has(id));
    if (untaken.length === 0) return;
    q.stuck = true;
    const [first, atUs] = untaken[0]!;
    this.log.add(
      e,
      `${name} is stuck: ${stringField(e, "client")} (session ${session}) found it empty ${((e.atUs - this.fates.lastFaultUs) / 1000).toFixed(0)} ms into a quiet run, though ${untaken.length} acknowledged item(s) were never taken (${first} since ${fmtMs(atUs)}${untaken.length > 1 ? ", …" : ""})`,
    );
  }

  private queue(name: string): QueueHistory {
    let q = this.queues.get(name);
    if (q === undefined) {
      q = { offered: new Map(), acknowledgedAtUs: new Map(), stuck: false, takenNodes: new Map(), takenIds: new Set(), dropped: new Set(), lastSeqBySession: new Map(), priority: false, drained: undefined, unannounced: new Map(), crashedOffers: new Set() };
      this.queues.set(name, q);
    }
    return q;
  }

  finish(): Violation[] {
    for (const [name, q] of this.queues) {
      for (const [item, u] of q.unannounced) {
        if (!q.offered.has(item) && !q.crashedOffers.has(item)) this.log.add(u.take, `${u.client} took item ${item} from ${name}, but no producer ever offered item ${item}`);
      }
      if (q.drained === undefined) continue;
      const lost = [...q.offered].filter(([id, outcome]) => outcome === "ok" && !q.takenIds.has(id)).map(([id]) => id);
      const lastClientCrashUs = Math.max(-1, ...this.crashes.filter((c) => this.clientNodes.has(c.node)).map((c) => c.atUs));
      const unexplained = lost.filter((id) => !q.dropped.has(id) && q.acknowledgedAtUs.get(id)! > lastClientCrashUs);
      if (unexplained.length > 0) {
        this.log.add(q.drained, `${name} was declared drained, but ${unexplained.length} acknowledged item(s) were never taken: ${unexplained.slice(0, 8).join(", ")}${unexplained.length > 8 ? ", …" : ""}`);
      }
    }
    return this.log.violations;
  }
}
