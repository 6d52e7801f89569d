/**
 * Synthetic traces for the client checkers: the client's `client.*` history annotations, the
 * server's `zk.*` annotations and the kernel's message events, with increasing index and time
 * (1 ms per event unless told otherwise). Clients are nodes `c<n>`, servers `s<n>`; zxids and
 * session ids are hex strings, as the client and server write them.
 */
import { asEvent, type LooseEvent } from "../../helpers/loose-events.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { runCheckers, type Checker, type Violation } from "../../../src/check/checker.js";

export const S1 = "0x100000000000001";
export const S2 = "0x100000000000002";
export const S3 = "0x100000000000003";

/**
 * Arguments the client always records for an operation (zk/client/zoo-keeper.ts `invoke`) that a
 * test need not spell out: the reads' `watch` flag (false) and a write's `data` (empty), unless
 * the test sets them.
 */
const ARG_DEFAULTS: Record<string, Record<string, unknown>> = {
  exists: { watch: false },
  getData: { watch: false },
  getChildren: { watch: false },
  create: { data: "" },
  setData: { data: "" },
};

export class ClientTrace {
  readonly events: TraceEvent[] = [];
  private nowUs = 0;
  private opIds = new Map<string, number>();
  private msgId = 0;

  wait(ms: number): this {
    this.nowUs += ms * 1000;
    return this;
  }

  /** Sets the clock so that the next event falls at `atUs` (not before the last one). */
  nextAt(atUs: number): this {
    if (atUs - 1000 < this.nowUs) throw new Error(`nextAt(${atUs}): the clock is already at ${this.nowUs}`);
    this.nowUs = atUs - 1000;
    return this;
  }

  event(kind: string, node: string, fields?: Record<string, unknown>, extra: Partial<LooseEvent> = {}): this {
    this.nowUs += 1000;
    const e: LooseEvent = { index: this.events.length, atUs: this.nowUs, kind, node, ...extra };
    if (fields !== undefined) e.fields = fields;
    this.events.push(asEvent(e));
    return this;
  }

  /** A standalone server. */
  standalone(server = "s1"): this {
    return this.event("zk.server.start", server, { serverId: 1, lastZxid: "0x0" });
  }

  /** Quorum peers (their `zab.*` annotations are what marks an ensemble). */
  ensemble(...servers: string[]): this {
    for (const s of servers) this.event("zab.state", s, { sid: Number(s.slice(1)), state: "LOOKING" });
    return this;
  }

  connected(client: string, session: string, server = "s1"): this {
    this.event("client.connect", client, { client, server, session: "0x0" });
    this.event("zk.session.established", server, { client, session, timeoutMs: 4000 });
    return this.event("client.state", client, { client, state: "CONNECTED", session });
  }

  /** Invokes an op; returns its opId through `last`. */
  invoke(client: string, session: string, op: string, path: string, args: Record<string, unknown> = {}): number {
    const opId = (this.opIds.get(client) ?? 0) + 1;
    this.opIds.set(client, opId);
    this.event("client.invoke", client, { client, session, opId, op, path, ...ARG_DEFAULTS[op], ...args });
    return opId;
  }

  complete(client: string, session: string, opId: number, outcome: string, fields: Record<string, unknown> = {}): this {
    return this.event("client.complete", client, { client, session, opId, outcome, ...fields });
  }

  /** invoke + complete ok, back to back. */
  call(client: string, session: string, op: string, path: string, args: Record<string, unknown>, zxid: string, result?: Record<string, unknown>): this {
    const id = this.invoke(client, session, op, path, args);
    return this.complete(client, session, id, "ok", { zxid, ...(result !== undefined ? { result } : {}) });
  }

  /** A txn applied; `cxid` as the server records it (its header's, 0 unless told). */
  apply(server: string, zxid: string, op: string, session: string, cxid = 0): this {
    return this.event("zk.apply", server, { zxid, op, session, cxid });
  }

  expire(server: string, session: string, timeoutMs = 4000): this {
    return this.event("zk.session.expire", server, { session, timeoutMs });
  }

  watch(client: string, session: string, type: string, path: string, watchers = 1): this {
    return this.event("client.watch", client, { client, session, type, path, watchers });
  }

  /** A message from `from` to `to`, sent now and delivered `delayMs` later. */
  message(from: string, to: string, detail: string, delayMs = 1): this {
    const id = ++this.msgId;
    this.event("send", from, undefined, { peer: to, id, detail });
    this.nowUs += Math.max(0, delayMs - 1) * 1000;
    return this.event("deliver", to, undefined, { peer: from, id, detail });
  }

  send(from: string, to: string, detail: string): number {
    const id = ++this.msgId;
    this.event("send", from, undefined, { peer: to, id, detail });
    return id;
  }

  deliver(from: string, to: string, id: number, detail: string): this {
    return this.event("deliver", to, undefined, { peer: from, id, detail });
  }
}

/** Zxid (epoch, counter) as hex text. */
export function z(counter: number, epoch = 0): string {
  return `0x${((BigInt(epoch) << 32n) | BigInt(counter)).toString(16)}`;
}

export function stat(fields: { czxid?: string; mzxid?: string; pzxid?: string; version?: number; aversion?: number; owner?: string; numChildren?: number }): Record<string, unknown> {
  return {
    czxid: fields.czxid ?? "0x1",
    mzxid: fields.mzxid ?? fields.czxid ?? "0x1",
    pzxid: fields.pzxid ?? fields.czxid ?? "0x1",
    version: fields.version ?? 0,
    cversion: 0,
    aversion: fields.aversion ?? 0,
    ephemeralOwner: fields.owner ?? "0x0",
    numChildren: fields.numChildren ?? 0,
  };
}

/** As a scenario run feeds it: only the kinds it accepts, then `finish` with the last event. */
export function runChecker(checker: Checker, events: readonly TraceEvent[]): Violation[] {
  return runCheckers([checker], events);
}
