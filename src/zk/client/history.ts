/**
 * History annotations of client operations: `client.invoke` when an operation is submitted
 * and `client.complete` when it ends, written to the trace with `ctx.annotate`. The client
 * knows nothing of checkers; it states what it did and what it was told, cheaply.
 *
 * Invariants:
 * - `opId` is unique per client node within one simulation (a counter per node id, kept
 *   across restarts of that node), so `(client, opId)` names one operation.
 * - outcome "ok": the server answered OK (or the op was answered locally, e.g. an empty
 *   multi); "fail": a definite error (the server's, or the client refusing before
 *   sending); "unknown": CONNECTIONLOSS / OPERATIONTIMEOUT — it may or may not have
 *   happened — and any client-produced error for a request that had already been sent.
 *   `sent: false` marks a client-produced error for a request that never left the client.
 * - Field values are small: strings, numbers, booleans; zxids and session ids are hex text.
 * - `client.invoke` names the `server` the client is connected to, when it is; the completion
 *   of an "unknown" op that was sent carries its request `xid`.
 * - The fields are typed in `zk/trace-events.ts` (`ClientInvokeFields`, `ClientCompleteFields`)
 *   and described in docs/trace.md; `check/history` reads this shape: op names create,
 *   delete, setData, getData, exists, getChildren, sync, multi, closeSession (create2 and
 *   getChildren2 are recorded as create / getChildren; other calls under their own names);
 *   `result` is `{ path }`, `{ data, stat }`, `{ stat }` (`stat: null` when exists finds
 *   nothing), `{ children, stat? }`, or `{ results: [{ err, path?, stat? }] }` for multi.
 */
import type { NodeContext } from "../../world/index.js";
import { Code, codeName, isRecoverable } from "../proto/error-code.js";
import { zxidHex, type Stat } from "../proto/records.js";
import type { PacketReply } from "./client-cnxn.js";
import type { ClientCompleteFields, DataJson, NamesJson, StatJson } from "../trace-events.js";

export type Outcome = "ok" | "fail" | "unknown";

/** The operation ids handed out on one node so far: shared by every handle on it, kept across its restarts. */
export interface OpIdCounter {
  last: number;
}

/** The counter of this node (a handle keeps it: two look-ups per operation were measurable). */
export function opIdCounter(ctx: NodeContext): OpIdCounter {
  return ctx.traceCounter("client.opId");
}

export function outcomeOf(reply: PacketReply, err: number): Outcome {
  if (err === Code.OK) return "ok";
  if (isRecoverable(err) || err === Code.REQUESTTIMEOUT) return "unknown";
  if (!reply.fromServer && reply.sent) return "unknown";
  return "fail";
}

/** Adds how an operation ended (`outcome`, `err`, `zxid`, `sent`, `xid`) to `fields`, and returns it. */
export function completionFields(reply: PacketReply, err: number, fields: ClientCompleteFields): ClientCompleteFields {
  const outcome = outcomeOf(reply, err);
  fields.outcome = outcome;
  if (err !== Code.OK) fields.err = codeName(err);
  if (reply.zxid !== undefined) fields.zxid = zxidHex(reply.zxid);
  if (!reply.fromServer && err !== Code.OK) fields.sent = reply.sent;
  // An op that may or may not have run names its request, so the trace's `zk.apply` (session,
  // cxid) tells what really happened to it.
  if (outcome === "unknown" && reply.xid !== undefined) fields.xid = reply.xid;
  return fields;
}

const MAX_DATA_CHARS = 64;
const decoder = new TextDecoder();

/**
 * `data` as a short printable string; binary or long data as a content digest
 * (`\u0001<bytes>:<fnv32 hex>` — U+0001 never starts recorded text, which excludes control
 * characters), so a history checker still tells different values apart, matches a read to the
 * write of the same bytes, and knows the length. `dataBytes` carries the length too.
 */
export function dataFields<T extends object>(data: Uint8Array | null | undefined, into: T): T & DataJson {
  const out = into as T & DataJson;
  if (data === null || data === undefined) {
    out.data = null;
    return out;
  }
  const ascii = printableAscii(data);
  if (ascii !== undefined) {
    out.data = ascii;
    return out;
  }
  const text = data.length <= MAX_DATA_CHARS * 3 ? decoder.decode(data) : undefined;
  if (text !== undefined && text.length <= MAX_DATA_CHARS && !/[\u0000-\u001f\u007f-\u009f\ufffd]/.test(text)) {
    out.data = text;
    return out;
  }
  out.data = `\u0001${data.length}:${fnv32(data).toString(16)}`;
  out.dataBytes = data.length;
  return out;
}

/** `o` with the Stat after its other fields. */
export function withStat<T extends object>(o: T, stat: StatJson): T & { stat: StatJson } {
  return Object.assign(o, { stat });
}

/** Short printable ASCII data (the common case) as text without a TextDecoder call. */
function printableAscii(data: Uint8Array): string | undefined {
  if (data.length > MAX_DATA_CHARS) return undefined;
  let s = "";
  for (let i = 0; i < data.length; i++) {
    const b = data[i]!;
    if (b < 0x20 || b > 0x7e) return undefined;
    s += String.fromCharCode(b);
  }
  return s;
}

function fnv32(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** A Stat as plain JSON: zxids and the owner session as hex text. */
export function statJson(stat: Stat): StatJson {
  // Equal zxids come cheap: zxidHex remembers the last one (mzxid = czxid for a node never
  // changed), and a node whose children never changed (pzxid = czxid) reuses the czxid text.
  const czxid = zxidHex(stat.czxid);
  return {
    czxid,
    mzxid: zxidHex(stat.mzxid),
    pzxid: stat.pzxid === stat.czxid ? czxid : zxidHex(stat.pzxid),
    ctime: stat.ctime,
    mtime: stat.mtime,
    version: stat.version,
    cversion: stat.cversion,
    aversion: stat.aversion,
    ephemeralOwner: stat.ephemeralOwner === 0n ? "0x0" : zxidHex(stat.ephemeralOwner < 0n ? stat.ephemeralOwner & MASK_64 : stat.ephemeralOwner),
    dataLength: stat.dataLength,
    numChildren: stat.numChildren,
  };
}

const MASK_64 = (1n << 64n) - 1n;

const MAX_LISTED_CHILDREN = 32;

/** `children` when short enough to list; otherwise only their number. */
export function childrenFields<T extends object>(children: readonly string[], into: T): T & NamesJson {
  const out = into as T & NamesJson;
  if (children.length <= MAX_LISTED_CHILDREN) out.children = [...children];
  else out.count = children.length;
  return out;
}
