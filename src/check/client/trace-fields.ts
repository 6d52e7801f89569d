/**
 * Reading the client and server annotations of a trace, for the client checkers: small, total
 * parsers of annotation fields (a malformed field reads as `undefined`, never throws) and the
 * bookkeeping every client checker needs — what each operation was, keyed by (client, opId).
 *
 * A checker that silently skips what it cannot read proves nothing: `malformedClientEvent`
 * says what is wrong with a `client.invoke` / `client.complete` event, and `OpTable` hands
 * every such event (and a completion with no invocation) to its checker's `onMalformed`,
 * which reports it as a violation.
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

/**
 * The server path of a path an invocation names, or of a name its create returned: the handle's
 * `chroot` (recorded with the invocation) put back the way Java's client builds and cuts paths —
 * chroot for "/", chroot + path otherwise; a created name is the server's with the chroot's length
 * cut off, so chroot + name. A multi's created names are recorded as the server named them.
 */
export function serverPathOf(inv: Invocation, path: string, created = false): string {
  const chroot = inv.fields.chroot;
  if (typeof chroot !== "string" || chroot === "") return path;
  return created || path.length !== 1 ? chroot + path : chroot;
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

const OUTCOMES: ReadonlySet<unknown> = new Set(["ok", "fail", "unknown", "info"]);

/**
 * Why a `client.invoke` or `client.complete` event does not follow the trace schema
 * (check/history/history.ts), in a few words; undefined when it does. Checked: the fields
 * every checker pairs and orders by (client, opId, session), the op and path of an
 * invocation, and the outcome, code, zxid and result of a completion.
 */
export function malformedClientEvent(e: TraceEvent): string | undefined {
  const f = e.fields;
  if (!isRecord(f)) return `${e.kind} has no fields`;
  const bad = (field: string, want: string) => `${e.kind} field "${field}" is ${JSON.stringify(f[field]) ?? "missing"}, not ${want}`;
  if (f.client !== undefined && typeof f.client !== "string") return bad("client", "a node name");
  if (typeof f.opId !== "number" && typeof f.opId !== "string") return bad("opId", "an op id");
  if (typeof f.session !== "string") return bad("session", "a session id");
  if (e.kind === "client.invoke") {
    if (typeof f.op !== "string" || f.op === "") return bad("op", "an op name");
    if (f.path !== undefined && typeof f.path !== "string") return bad("path", "a path");
    return undefined;
  }
  if (!OUTCOMES.has(f.outcome)) return bad("outcome", `one of ok, fail, unknown`);
  if (f.err !== undefined && f.err !== null && typeof f.err !== "string" && typeof f.err !== "number") return bad("err", "a code");
  if (f.zxid !== undefined && f.zxid !== null && hexBig(f.zxid) === undefined) return bad("zxid", "a zxid");
  if (f.result !== undefined && f.result !== null && !isRecord(f.result)) return bad("result", "a result record");
  return undefined;
}

/** Pairs invocations with completions; the checkers call it for every event. */
export class OpTable {
  private readonly open = new OpenOps<Invocation>();
  private seq = 0;

  /** `onMalformed` hears of every event the table cannot read (the checker reports it). */
  constructor(private readonly onMalformed: (e: TraceEvent, why: string) => void) {}

  /** Records an invocation; returns it (undefined, and reported, when the event is malformed). */
  invoke(e: TraceEvent): Invocation | undefined {
    const why = malformedClientEvent(e);
    if (why !== undefined) {
      this.onMalformed(e, `malformed trace event: ${why}`);
      return undefined;
    }
    const f = e.fields!;
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

  /**
   * The completion of a recorded invocation, which is forgotten; undefined (and reported) when
   * the event is malformed or completes nothing that was invoked.
   */
  complete(e: TraceEvent): { inv: Invocation; done: Completion } | undefined {
    const why = malformedClientEvent(e);
    if (why !== undefined) {
      this.onMalformed(e, `malformed trace event: ${why}`);
      return undefined;
    }
    const f = e.fields!;
    const inv = this.open.take(f);
    if (inv === undefined) {
      this.onMalformed(e, `malformed trace: completion of op ${opKey(f)} without an invocation`);
      return undefined;
    }
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

