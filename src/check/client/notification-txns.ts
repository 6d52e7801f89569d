/**
 * Which txn each watch notification came from, read from the trace: a server fires watches while
 * it applies a txn, then annotates the apply, so the notifications it sends form a run that the
 * `zk.apply` right after them closes (the server's next event). A run closed by anything else
 * (SetWatches' catch-up events after a reconnect, sent outside a txn) names no txn. On the client,
 * the delivery of a notification is followed by its `client.watch`.
 *
 * Used by client.watches (one trigger per txn) and client.watch-triggers (the model's triggers).
 * Feed it every event of `KINDS` (`onEvent`); `clientNode` names the nodes that are clients (their
 * `send`s are requests, not notifications). A malformed `zk.apply` goes to the checker's log.
 *
 * One per run (`ofRun`): in a run, the two checkers share one, fed by both (an event handed to
 * both is read once, by the first), and client.watches, when client.watch-triggers reads the
 * messages and applies for both (`messagesFed`), leaves them out (`Checker.attachedKinds`): the
 * run's client traffic (most of a seed's messages) and applies reach one reader instead of two.
 * Fed together, a server's run of notifications is settled by any of both checkers' events of
 * that server (client.watch-triggers also reads its crashes and role changes), which only ever
 * closes a run that no `zk.apply` of that txn would close. A checker fed by hand has its own.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { reportMalformed, stringField, type ViolationSink } from "../event-reader.js";
import { mayBeClientTraffic } from "../message-types.js";
import type { RunServices } from "../check-run.js";

export interface NotifiedTxn {
  /** The server that sent the notification and applied the txn. */
  server: string;
  zxid: string;
  op: string;
}

export class NotificationTxns {
  /**
   * The kinds it must see: the messages, and the applies that close a server's run. A server
   * sends the notifications of a txn while applying it and annotates `zk.apply` right after, with
   * no event of its own in between, so a reader of these kinds (and its own) sees every run whole.
   */
  static readonly KINDS = ["send", "deliver", "zk.apply"] as const;
  /**
   * Of the messages, the client traffic (`Checker.messageTypes` of its readers): the servers' own
   * messages are neither notifications nor deliveries to a client, and none comes between a
   * server's notifications of a txn and its `zk.apply` (both happen in one step of that server).
   */
  static readonly MESSAGE_TYPES = { send: mayBeClientTraffic, deliver: mayBeClientTraffic };
  private readonly clientNodes = new Set<string>();
  /** Server → the notifications it sent since its last event of another kind. */
  private readonly runs = new Map<string, { peer: string; id: number }[]>();
  /** Message id (unique in a run) of a notification in flight → its two ends and its txn. */
  private readonly inFlight = new Map<number, { from: string; to: string; txn: NotifiedTxn }>();
  /** Client node → the txn of the notification it received last (until its client.watch takes it). */
  private readonly delivered = new Map<string, NotifiedTxn>();

  /** The logs a malformed `zk.apply` goes to: its readers' (one, unless shared by a run). */
  private readonly logs: ViolationSink[];
  /** Shared by a run: the event read last, which a second reader hands again (read once). */
  private readonly shared: boolean;
  private lastEvent: TraceEvent | undefined = undefined;
  /** The `client.watch` that took last and what it took (the second reader of it gets the same). */
  private lastTakeEvent: TraceEvent | undefined = undefined;
  private lastTaken: NotifiedTxn | undefined = undefined;
  /** A reader of the shared one reads every event of `KINDS` for it (client.watch-triggers). */
  messagesFed = false;

  /** `log`: where a malformed `zk.apply` goes (none yet for the run's shared one: `ofRun` adds each reader's). */
  constructor(log: ViolationSink | undefined, shared = false) {
    this.logs = log === undefined ? [] : [log];
    this.shared = shared;
  }

  /** The run's one (`RunServices.shared`), made by its first reader; `log` gets its malformed `zk.apply`s too. */
  static ofRun(run: RunServices, log: ViolationSink): NotificationTxns {
    const txns = run.shared(NotificationTxns, () => new NotificationTxns(undefined, true));
    txns.logs.push(log);
    return txns;
  }

  /** The node named last (most client events come from the node that spoke last: no set lookup then). */
  private lastClientNode: string | undefined;

  clientNode(node: string): void {
    if (node === this.lastClientNode) return;
    this.lastClientNode = node;
    this.clientNodes.add(node);
  }

  onEvent(e: TraceEvent): void {
    if (this.shared) {
      if (e === this.lastEvent) return;
      this.lastEvent = e;
    }
    if (e.kind === "send" && e.detail === "notification" && !this.clientNodes.has(e.node) && e.peer !== undefined && e.id !== undefined) {
      const run = this.runs.get(e.node);
      if (run === undefined) this.runs.set(e.node, [{ peer: e.peer, id: e.id }]);
      else run.push({ peer: e.peer, id: e.id });
      return;
    }
    if (e.kind === "deliver" && this.clientNodes.has(e.node)) {
      // Most deliveries to a client are replies, with no notification in flight or held: then
      // nothing is looked up (an entry holding nothing and no entry are the same to `take`).
      const sent = e.id === undefined || this.inFlight.size === 0 ? undefined : this.inFlight.get(e.id);
      const ours = sent !== undefined && sent.from === e.peer && sent.to === e.node ? sent : undefined;
      if (ours !== undefined) this.inFlight.delete(e.id!);
      const txn = e.detail === "notification" ? ours?.txn : undefined;
      if (txn !== undefined) this.delivered.set(e.node, txn);
      else if (this.delivered.size > 0) this.delivered.delete(e.node);
      return;
    }
    // Any other event: it settles a server's run of notifications, when one is waiting.
    if (this.runs.size === 0) return;
    const run = this.runs.get(e.node);
    if (run === undefined) return;
    this.runs.delete(e.node);
    if (e.kind !== "zk.apply") return;
    let zxid: string, op: string;
    try {
      zxid = stringField(e, "zxid");
      op = stringField(e, "op");
    } catch (err) {
      const logs = this.logs;
      for (let i = 0; i < logs.length; i++) reportMalformed(logs[i]!, e, err);
      return;
    }
    // One txn, shared by the run's notifications (read-only to every reader).
    const txn: NotifiedTxn = { server: e.node, zxid, op };
    for (const m of run) this.inFlight.set(m.id, { from: e.node, to: m.peer, txn });
  }

  /** Adds to `into` the zxids of the notifications in flight or received and not yet reported. */
  heldZxids(into: Set<string>): void {
    for (const m of this.inFlight.values()) into.add(m.txn.zxid);
    for (const t of this.delivered.values()) into.add(t.zxid);
  }

  /**
   * The txn of the notification the node of `e` (a `client.watch`) received last, taken: the
   * `client.watch` reports it (a second reader of the same event gets the same).
   */
  take(e: TraceEvent): NotifiedTxn | undefined {
    if (this.shared) {
      if (e === this.lastTakeEvent) return this.lastTaken;
      this.lastTakeEvent = e;
    }
    if (this.delivered.size === 0) return (this.lastTaken = undefined);
    const t = this.delivered.get(e.node);
    this.delivered.delete(e.node);
    return (this.lastTaken = t);
  }
}
