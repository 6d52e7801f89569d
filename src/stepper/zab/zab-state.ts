/**
 * Each ensemble member's and client's state in the book's terms, folded from the trace (the
 * server's `zab.*`/`fle.*` annotations, the clients' `client.*` ones, and crashes/starts), not
 * read from live objects: the panel shows what the run said, as the checkers read it.
 *
 * Per server: role (FLE's LOOKING / LEADING / FOLLOWING / OBSERVING), book phase, the FLE vote
 * it proposes, acceptedEpoch and currentEpoch, last logged zxid, last committed (delivered)
 * zxid, and how the leader last synced it (DIFF / TRUNC / SNAP). A leader also tracks its
 * outstanding proposals with their ACKs. Per client: session state and its operations with
 * their three-state outcome (ok, fail, unknown).
 *
 * "Committed" is the last zxid the server delivered, or the initial history of the epoch it
 * entered broadcast in (committed when its leader was established); after a restart it is "?"
 * until a leader synchronizes the server.
 *
 * The narration reads a few events in the light of the state they happened in (a log write
 * is the leader's own ACK or a follower's; an ACK counted is the n-th of its proposal): the
 * fold keeps that, per event, for the recent ones (`noteOf`).
 *
 * Invariant: a crash clears everything volatile (role, vote, proposals); what survives is what
 * `zab.recovered` announces at the next start.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ZAB_STATE_BOOK_PHASE } from "../../zk/server/quorum/zab-vocabulary.js";

export interface ZabServerState {
  role: string;
  phase: string;
  vote: string;
  acceptedEpoch: number | undefined;
  currentEpoch: number | undefined;
  lastZxid: string;
  committedZxid: string;
  syncMode: string;
  /** Leader only: proposals not yet committed, with the sids that ACKed them. */
  proposals: Map<string, Set<number>>;
}

export interface ClientOpState {
  opId: number;
  op: string;
  path: string;
  /** "pending" until it completes; then ok, fail (with the error) or unknown. */
  outcome: string;
}

export interface ZabClientState {
  state: string;
  session: string;
  server: string;
  ops: ClientOpState[];
}

/** Kinds the fold reads. */
const KINDS = [
  "crash", "start", "restart",
  "zab.state", "zab.phase", "zab.epoch.accepted", "zab.epoch.current", "zab.recovered", "zab.log", "zab.truncate",
  "zab.snap.load", "zab.deliver", "zab.sync", "zab.propose", "zab.ack", "zab.commit", "fle.vote", "fle.elected",
  "zab.leader.established",
  "client.state", "client.invoke", "client.complete", "client.connect",
] as const;
type Kind = (typeof KINDS)[number];

const CLIENT_OPS_KEPT = 6;
/** Events whose state at the time the fold remembers (the newest ones). */
const NOTES_KEPT = 4_000;

/** A server's state when one of its log writes or ACKs happened. */
export interface EventNote {
  role: string;
  phase: string;
  /** zab.ack at a leader: the ACKs its proposal had then (this one included). */
  acks?: number;
}

export class ZabStateFold {
  readonly servers = new Map<string, ZabServerState>();
  readonly clients = new Map<string, ZabClientState>();
  /** Per epoch, the established leader's last zxid: its initial history, committed at establishment. */
  private readonly establishedHistory = new Map<number, string>();
  /** Per trace index of a zab.log or zab.ack: the server's state then. */
  private readonly notes = new Map<number, EventNote>();

  constructor(
    serverIds: readonly string[],
    clientIds: readonly string[],
    private readonly hostOfSid: (sid: number) => string,
  ) {
    for (const id of serverIds) this.servers.set(id, blankServer());
    for (const id of clientIds) this.clients.set(id, { state: "—", session: "—", server: "—", ops: [] });
  }

  static readonly KINDS = KINDS;

  /** The server's state when the event (a zab.log or zab.ack, among the recent ones) happened. */
  noteOf(e: TraceEvent): EventNote | undefined {
    return this.notes.get(e.index);
  }

  /** Voters in the ensemble, and how many make a quorum. */
  get quorum(): number {
    return Math.floor(this.servers.size / 2) + 1;
  }

  onEvent(e: TraceEvent<Kind>): void {
    const server = this.servers.get(e.node);
    if (server !== undefined) {
      this.onServer(server, e);
      if (e.kind === "zab.log" || e.kind === "zab.ack") this.note(e, server);
      return;
    }
    const client = this.clients.get(e.node);
    if (client !== undefined) this.onClient(client, e);
  }

  private onServer(s: ZabServerState, e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "crash":
        Object.assign(s, blankServer(), { role: "down", acceptedEpoch: s.acceptedEpoch, currentEpoch: s.currentEpoch, lastZxid: s.lastZxid, committedZxid: s.committedZxid });
        return;
      case "start":
      case "restart":
        s.role = "LOOKING";
        return;
      case "zab.state":
        s.role = e.fields.state;
        if (s.role === "LOOKING") s.proposals.clear();
        return;
      case "zab.phase": {
        const f = e.fields;
        s.phase = ZAB_STATE_BOOK_PHASE[f.phase].phase;
        const history = this.establishedHistory.get(f.epoch);
        if (f.phase === "BROADCAST" && history !== undefined) s.committedZxid = history;
        return;
      }
      case "zab.leader.established":
        this.establishedHistory.set(e.fields.epoch, e.fields.lastZxid);
        s.committedZxid = e.fields.lastZxid;
        return;
      case "zab.epoch.accepted":
        s.acceptedEpoch = e.fields.epoch;
        return;
      case "zab.epoch.current":
        s.currentEpoch = e.fields.epoch;
        return;
      case "zab.recovered":
        // What is committed is unknown until a leader synchronizes it (its log may hold txns that never were).
        s.lastZxid = e.fields.lastZxid;
        s.committedZxid = "?";
        s.acceptedEpoch = e.fields.acceptedEpoch;
        s.currentEpoch = e.fields.currentEpoch;
        return;
      case "zab.log":
        s.lastZxid = e.fields.zxid;
        return;
      case "zab.truncate":
      case "zab.snap.load":
        s.lastZxid = e.fields.zxid;
        s.syncMode = e.kind === "zab.truncate" ? "TRUNC" : "SNAP";
        return;
      case "zab.deliver":
        s.committedZxid = e.fields.zxid;
        return;
      case "zab.sync": {
        if (e.fields.learner === undefined) return;
        const learner = this.servers.get(this.hostOfSid(e.fields.learner));
        if (learner !== undefined) learner.syncMode = e.fields.mode;
        return;
      }
      case "zab.propose":
        s.proposals.set(e.fields.zxid, new Set()); // its own ACK comes with its own fsync (zab.ack from itself)
        return;
      case "zab.ack":
        s.proposals.get(e.fields.zxid)?.add(e.fields.from);
        return;
      case "zab.commit":
        s.proposals.delete(e.fields.zxid);
        return;
      case "fle.vote":
        s.vote = `s${e.fields.proposedLeader} (${e.fields.zxid}, round ${e.fields.electionEpoch})`;
        return;
      case "fle.elected":
        s.vote = `s${e.fields.leader} (round ${e.fields.electionEpoch}, elected)`;
        return;
    }
  }

  private note(e: TraceEvent<"zab.log" | "zab.ack">, s: ZabServerState): void {
    const acks = e.kind === "zab.ack" ? s.proposals.get(e.fields.zxid)?.size : undefined;
    this.notes.set(e.index, { role: s.role, phase: s.phase, ...(acks !== undefined ? { acks } : {}) });
    if (this.notes.size > NOTES_KEPT) this.notes.delete(this.notes.keys().next().value!);
  }

  private onClient(c: ZabClientState, e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "crash":
        c.state = "down";
        return;
      case "client.state":
        c.state = e.fields.state;
        c.session = e.fields.session;
        return;
      case "client.connect":
        c.server = e.fields.server;
        return;
      case "client.invoke":
        c.ops.push({ opId: e.fields.opId, op: e.fields.op, path: "path" in e.fields ? e.fields.path : "", outcome: "pending" });
        if (c.ops.length > CLIENT_OPS_KEPT) c.ops.splice(0, c.ops.length - CLIENT_OPS_KEPT);
        return;
      case "client.complete": {
        const f = e.fields;
        const op = c.ops.find((o) => o.opId === f.opId);
        if (op !== undefined) op.outcome = f.outcome === "ok" ? "ok" : `${f.outcome ?? "?"}${f.err !== undefined ? ` ${f.err}` : ""}`;
        return;
      }
    }
  }
}

function blankServer(): ZabServerState {
  return { role: "—", phase: "—", vote: "—", acceptedEpoch: undefined, currentEpoch: undefined, lastZxid: "—", committedZxid: "—", syncMode: "—", proposals: new Map() };
}
