/**
 * Reading the client and server annotations of a trace, for the client checkers: small, total
 * parsers of annotation fields (a malformed field reads as `undefined`, never throws) and the
 * bookkeeping every client checker needs — what each operation was, keyed by (client, opId).
 *
 * Shares no code with the client or the server: field names follow the trace schema in
 * `check/history/history.ts`, `zk/client/history.ts` and the server's `zk.*` annotations.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { CreateMode } from "../../zk/proto/records.js";
import { parseZxidText } from "../zxid-text.js";
import { OpenOps } from "../history/history.js";

/** A string field, or undefined. */
export function str(f: Record<string, unknown> | undefined, name: string): string | undefined {
  return text(f?.[name]);
}

/** A zxid or session id written as hex text ("0x100000003") or a number; undefined if malformed. */
export function hexBig(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  return typeof v === "string" ? parseZxidText(v) : undefined;
}

/** `0x…` for reports. */
export function hex(z: bigint): string {
  return `0x${z.toString(16)}`;
}

/** The key that names one operation in a trace. */
export function opKey(f: Record<string, unknown> | undefined): string {
  return `${String(f?.client)}/${String(f?.opId)}`;
}

/** Is this create mode (name or wire flag) one of the ephemeral ones? */
export function isEphemeralMode(mode: unknown): boolean {
  if (typeof mode === "number") return mode === CreateMode.EPHEMERAL || mode === CreateMode.EPHEMERAL_SEQUENTIAL;
  return typeof mode === "string" && mode.startsWith("EPHEMERAL");
}

/** Is this create mode (name or wire flag) sequential? */
export function isSequentialMode(mode: unknown): boolean {
  if (typeof mode === "number") {
    return mode === CreateMode.PERSISTENT_SEQUENTIAL || mode === CreateMode.EPHEMERAL_SEQUENTIAL || mode === CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
  }
  return typeof mode === "string" && mode.includes("SEQUENTIAL");
}

/** Is this create mode one whose node the server may remove on its own (container, TTL)? */
export function isReapableMode(mode: unknown): boolean {
  if (typeof mode === "number") {
    return mode === CreateMode.CONTAINER || mode === CreateMode.PERSISTENT_WITH_TTL || mode === CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
  }
  return typeof mode === "string" && (mode === "CONTAINER" || mode.includes("TTL"));
}

export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** `parent/child` as ZooKeeper joins them. */
export function childPath(parent: string, child: string): string {
  return parent === "/" ? `/${child}` : `${parent}/${child}`;
}

/** The parent of an absolute path ("/" for top-level nodes and for "/" itself). */
export function parentPath(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

/** `path` and every ancestor up to "/". */
export function selfAndAncestors(path: string): string[] {
  const out = [path];
  for (let p = path; p !== "/"; ) {
    p = parentPath(p);
    out.push(p);
  }
  return out;
}

/** What a `client.invoke` said, kept until its completion. */
export interface Invocation {
  client: string;
  opId: string;
  /** The session at invocation ("0x0" before the first handshake). */
  session: string;
  op: string;
  path: string;
  fields: Record<string, unknown>;
  eventIndex: number;
  atUs: number;
  /** Order of invocation within the trace. */
  seq: number;
}

/** What a `client.complete` said. */
export interface Completion {
  session: string;
  outcome: "ok" | "fail" | "unknown";
  err: string | undefined;
  zxid: bigint | undefined;
  result: Record<string, unknown> | undefined;
  /** Answered without the server: an empty multi (`local`), or refused before sending (`sent: false`). */
  local: boolean;
  eventIndex: number;
  atUs: number;
}

/** Pairs invocations with completions; the checkers call it for every event. */
export class OpTable {
  private readonly open = new OpenOps<Invocation>();
  private seq = 0;

  /** Records an invocation; returns it (or undefined when the event is not one). */
  invoke(e: TraceEvent): Invocation | undefined {
    const f = e.fields ?? {};
    const inv: Invocation = {
      client: String(f.client ?? e.node),
      opId: String(f.opId),
      session: text(f.session) ?? "",
      op: text(f.op) ?? "",
      path: text(f.path) ?? "",
      fields: f,
      eventIndex: e.index,
      atUs: e.atUs,
      seq: this.seq++,
    };
    // A second invocation of an open (client, opId) replaces the first.
    this.open.set(f, inv);
    return inv;
  }

  /** The completion of a recorded invocation, which is forgotten; undefined if it was never invoked. */
  complete(e: TraceEvent): { inv: Invocation; done: Completion } | undefined {
    const f = e.fields ?? {};
    const inv = this.open.take(f);
    if (inv === undefined) return undefined;
    const outcome = text(f.outcome);
    const done: Completion = {
      session: text(f.session) ?? inv.session,
      outcome: outcome === "ok" ? "ok" : outcome === "fail" ? "fail" : "unknown",
      err: text(f.err),
      zxid: hexBig(f.zxid),
      result: isRecord(f.result) ? f.result : undefined,
      local: f.local === true || f.sent === false,
      eventIndex: e.index,
      atUs: e.atUs,
    };
    return { inv, done };
  }

  /** Invocations not completed yet, in invocation order. */
  pending(): Invocation[] {
    return this.open.values().sort((a, b) => a.seq - b.seq);
  }
}

/** `str` of a field's value already read. */
function text(v: unknown): string | undefined {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined;
}

/** The Stat of a read result (getData, exists, getChildren2), `null` when exists saw no node. */
export function resultStat(result: Record<string, unknown> | undefined): Record<string, unknown> | null | undefined {
  const s = result?.stat;
  if (s === null) return null;
  return isRecord(s) ? s : undefined;
}

