/**
 * `recipe.priority-queue`: the order a priority queue can honestly promise, from the client
 * histories (`client.invoke` / `client.complete` of the consumers' sync, getChildren and
 * delete) and the producers' `recipe.queue` offers — never from the queue's own choice.
 *
 * The guarantee. A consumer takes an item X it chose from a children list: its session's last
 * getChildren(dir) answered ok before the take (call it G). The take is in order unless some
 * item Y of strictly higher priority (a lower `priority` number) was
 * - acknowledged as enqueued (its offer annotated `ok`: the producer's create returned, or its
 *   look-up after CONNECTIONLOSS found the node) before the consumer *invoked* the last sync of
 *   the queue directory its session completed before G, and
 * - still in the queue when G answered: nobody had begun a delete of Y's node before then.
 *
 * Why exactly this, given ZooKeeper and unknown outcomes:
 * - Reads are not linearizable: a follower may answer getChildren from a state that lacks a
 *   create another client already saw acknowledged. A sync of the directory, completed before
 *   the read, brings the consumer's server up to the leader's state at the sync (the project's
 *   linearizability checker orders synced reads the same way), so only offers acknowledged
 *   before the sync was invoked are owed. A read with no sync before it in its session is owed
 *   nothing across clients, and is not judged.
 * - A delete of Y begun before G answered may have been applied before the read (its outcome
 *   may even be unknown, CONNECTIONLOSS): Y may rightly be missing from G.
 * - An offer of unknown outcome (the session died with the create in doubt) is owed nothing.
 * - Items of equal priority promise no order across consumers; each consumer's sequence order
 *   within a priority is not judged here.
 */
import type { Checker, Violation } from "../checker.js";
import { ViolationLog, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded, optionalNumberField, optionalStringField, stringField } from "../event-reader.js";

interface Offered {
  node: string;
  priority: number;
  acked: TraceEvent;
}

/** A session's last children list of a directory: the read that answered it and what it owes. */
interface ChildrenRead {
  /** The invoke of the last sync of the directory the session completed before the read. */
  sync: TraceEvent;
  /** The read's ok completion. */
  answered: TraceEvent;
}

interface PendingOp {
  op: string;
  path: string;
  session: string;
  invoke: TraceEvent;
}

const KINDS = ["recipe.queue", "client.invoke", "client.complete"] as const;
type Kind = KindsOf<typeof KINDS>;

export class PriorityOrderChecker implements Checker<Kind> {
  readonly name = "recipe.priority-queue";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  /** Queue dir → acknowledged offers (by node name). */
  private readonly offered = new Map<string, Map<string, Offered>>();
  /** Node path → index of the first delete of it invoked by anyone. */
  private readonly deleteBegunAt = new Map<string, number>();
  /** `client opId` → the op in flight. */
  private readonly pending = new Map<string, PendingOp>();
  /** `session path` → the session's last completed sync of the path: its invoke and its completion. */
  private readonly lastSync = new Map<string, { invoke: TraceEvent; answered: TraceEvent }>();
  /** `session dir` → the session's last children list of the dir, when a sync came before it. */
  private readonly lastRead = new Map<string, ChildrenRead>();

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    if (e.kind === "client.invoke") return this.onInvoke(e);
    if (e.kind === "client.complete") return this.onComplete(e);
    if (e.kind !== "recipe.queue") return;
    const event = stringField(e, "event");
    if (event === "offer" && stringField(e, "outcome") === "ok") this.onOffer(e);
    else if (event === "take") this.onTake(e);
  }

  private onInvoke(e: TraceEvent): void {
    const op = stringField(e, "op");
    if (op !== "sync" && op !== "getChildren" && op !== "delete") return;
    const path = stringField(e, "path");
    if (op === "delete" && !this.deleteBegunAt.has(path)) this.deleteBegunAt.set(path, e.index);
    this.pending.set(`${stringField(e, "client")} ${stringField(e, "opId")}`, { op, path, session: stringField(e, "session"), invoke: e });
  }

  private onComplete(e: TraceEvent): void {
    const key = `${stringField(e, "client")} ${stringField(e, "opId")}`;
    const p = this.pending.get(key);
    if (p === undefined) return;
    this.pending.delete(key);
    if (optionalStringField(e, "outcome") !== "ok") return;
    const at = `${p.session} ${p.path}`;
    if (p.op === "sync") {
      this.lastSync.set(at, { invoke: p.invoke, answered: e });
    } else if (p.op === "getChildren") {
      const sync = this.lastSync.get(at);
      if (sync !== undefined && sync.answered.index < p.invoke.index) this.lastRead.set(at, { sync: sync.invoke, answered: e });
      else this.lastRead.delete(at);
    }
  }

  private onOffer(e: TraceEvent): void {
    const queue = stringField(e, "queue");
    const node = stringField(e, "node");
    const priority = optionalNumberField(e, "priority") ?? 0;
    const offers = this.offered.get(queue) ?? new Map<string, Offered>();
    this.offered.set(queue, offers);
    if (!offers.has(node)) offers.set(node, { node, priority, acked: e });
  }

  private onTake(e: TraceEvent): void {
    const queue = stringField(e, "queue");
    const read = this.lastRead.get(`${stringField(e, "session")} ${queue}`);
    if (read === undefined) return;
    const priority = optionalNumberField(e, "priority") ?? 0;
    const node = stringField(e, "node");
    const client = stringField(e, "client");
    let most: Offered | undefined;
    for (const y of this.offered.get(queue)?.values() ?? []) {
      if (y.priority >= priority || y.acked.index >= read.sync.index) continue;
      const begun = this.deleteBegunAt.get(`${queue}/${y.node}`);
      if (begun !== undefined && begun < read.answered.index) continue;
      if (most === undefined || y.priority < most.priority) most = y;
    }
    if (most === undefined) return;
    this.log.add(
      e,
      `priority order broken on ${queue}: ${client} took ${node} (priority ${priority}) from the children list its getChildren returned at event #${read.answered.index}, ` +
        `while ${most.node} (priority ${most.priority}), acknowledged at event #${most.acked.index} before that consumer's sync (event #${read.sync.index}), was still in the queue — nobody had begun to delete it`,
    );
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
