/**
 * `multipaxos.linearizable`: the clients' key-value history (`multipaxos.client.invoke` /
 * `.complete`) is linearizable by the project's WGL search (check/linearizability)
 * with a per-key register model: a put is `setData(key, value)`, a get is `getData(key)` whose
 * result must be the last value put ("" for none). A put never answered is indeterminate (it
 * may have applied, at any time after its invocation); a get never answered is left out.
 * Reads served by a deposed master show up here: they return a value a later write replaced.
 */
import { ViolationLog, type Checker, type RunEnd, type Violation, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded, intField, nullableStringField, oneOfField, stringField } from "../event-reader.js";
import { checkLinearizable, formatOperation, type Operation, type Partition, type SequentialModel } from "../linearizability/index.js";

/** One register per key; the state is the key's value. */
const registerModel: SequentialModel<string> = {
  name: "kv-register",
  init: () => "",
  step: (state, op) => (op.op === "setData" ? (op.args.data ?? "") : op.outcome !== "ok" || (op.result?.data ?? "") === state ? state : undefined),
  key: (state) => state,
  describe: (state, op) => `${op.path} = ${JSON.stringify(state)}`,
  explain: (state, op) => `get ${op.path} returned ${JSON.stringify(op.result?.data ?? "")} but the register holds ${JSON.stringify(state)}`,
  partition(ops: readonly Operation[]): Partition[] {
    const byKey = new Map<string, Operation[]>();
    for (const op of ops) byKey.set(op.path, [...(byKey.get(op.path) ?? []), op]);
    return [...byKey].map(([label, list]) => ({ label, ops: list, preamble: [] }));
  },
};

const KINDS = ["multipaxos.client.invoke", "multipaxos.client.complete"] as const;
type Kind = KindsOf<typeof KINDS>;

export class MultiPaxosLinearizableChecker implements Checker<Kind> {
  readonly name = "multipaxos.linearizable";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly open = new Map<string, Operation>();
  private readonly ops: Operation[] = [];


  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    const client = stringField(e, "client");
    const reqId = intField(e, "reqId");
    const op = oneOfField(e, "op", ["put", "get"] as const);
    const key = stringField(e, "key");
    const id = `${client}#${reqId}`;
    if (e.kind === "multipaxos.client.invoke") {
      // A put carries the value it writes; a get carries none.
      const o: Operation = { id: this.ops.length, client, session: client, op: op === "put" ? "setData" : "getData", path: key, args: op === "put" ? { data: stringField(e, "value") } : {}, invokeUs: e.atUs, completeUs: undefined, outcome: "unknown" };
      this.ops.push(o);
      this.open.set(id, o);
      return;
    }
    // A get's answer: the value read, null for a key never written (a put's answer carries none).
    const read = op === "get" ? nullableStringField(e, "value") : undefined;
    const o = this.open.get(id);
    if (o === undefined) return this.log.add(e, `${client} completed request ${reqId}, which it never invoked`);
    this.open.delete(id);
    o.outcome = "ok";
    o.completeUs = e.atUs;
    if (op === "get") o.result = { data: read ?? "" };
  }

  finish(end?: RunEnd): Violation[] {
    const r = checkLinearizable(this.ops, registerModel, { useZxid: false, maxSteps: 2_000_000 });
    if (!r.ok && end !== undefined) {
      const window = r.minimalWindow.slice(0, 6).map((op) => formatOperation(op)).join("; ");
      this.log.add(end, `${r.inconclusive ? "inconclusive (search budget spent)" : "not linearizable"} on key ${r.partition}: ${window}`);
    }
    return this.log.violations;
  }
}
