/**
 * A small vocabulary for hand-written histories: `h.op(client, "setData", "/x", [20, 30], {...})`.
 * Ids are assigned in call order; `[inv]` alone (or `[inv, undefined]`) makes an op unknown.
 */
import type { Credential, OpArgs, OpName, OpResult, Operation } from "../../../src/check/history/history.js";

export interface OpSpec {
  args?: OpArgs;
  outcome?: "ok" | "fail" | "unknown";
  err?: string;
  result?: OpResult;
  zxid?: bigint;
  session?: string;
  credentials?: Credential[];
}

export class HistoryBuilder {
  readonly ops: Operation[] = [];

  op(client: string, op: OpName, path: string, times: [number, number?], spec: OpSpec = {}): Operation {
    const [invokeUs, completeUs] = times;
    const outcome = spec.outcome ?? (completeUs === undefined ? "unknown" : spec.err !== undefined ? "fail" : "ok");
    const o: Operation = {
      id: this.ops.length,
      client,
      session: spec.session ?? `s-${client}`,
      op,
      path,
      args: spec.args ?? {},
      invokeUs,
      completeUs: outcome === "unknown" ? undefined : completeUs,
      outcome,
    };
    if (spec.err !== undefined) o.err = spec.err;
    if (spec.result !== undefined) o.result = spec.result;
    if (spec.zxid !== undefined) o.zxid = spec.zxid;
    if (spec.credentials !== undefined) o.credentials = spec.credentials;
    this.ops.push(o);
    return o;
  }

  create(client: string, path: string, data: string, times: [number, number?], spec: OpSpec = {}): Operation {
    return this.op(client, "create", path, times, { ...spec, args: { data, mode: "PERSISTENT", ...spec.args } });
  }

  set(client: string, path: string, data: string, times: [number, number?], spec: OpSpec = {}): Operation {
    return this.op(client, "setData", path, times, { ...spec, args: { data, version: -1, ...spec.args } });
  }

  get(client: string, path: string, data: string, times: [number, number?], spec: OpSpec = {}): Operation {
    return this.op(client, "getData", path, times, { ...spec, result: { data, ...spec.result } });
  }
}
