/**
 * The history a state carries: the set of protocol facts its path recorded (every annotation —
 * a vote, a decision, an acceptance, a commit — and every crash, restart and cut), as an
 * order-free digest. It is part of the state hash because the checkers judge the history, not
 * only the present: two paths can reach the same node states while one of them once chose a
 * value the other never did, and pruning the second by the first would hide what the checkers
 * would say after it.
 *
 * A fact is (kind, node, peer, fields) without the fields measured in time (`…Ms`, `…Us`: how
 * long a client waited differs between orders that are otherwise the same history) and without
 * ids. As a set, it is the same for two orders of the same independent events.
 */
import type { KernelKind } from "../sim/trace-schema.js";
import type { Simulator } from "../sim/simulator.js";
import { fieldNamed, type TraceEvent } from "../sim/trace.js";
import { GraphHasher, type ConnectionNames } from "./graph-hash.js";

/** Every kernel kind, to tell annotations from the kernel's own events (complete by type: a new kernel kind must be added here). */
const KERNEL_KINDS: Record<KernelKind, "fact" | "no"> = {
  start: "no",
  restart: "fact",
  crash: "fact",
  pause: "fact",
  resume: "fact",
  clock: "fact",
  timer: "no",
  send: "no",
  deliver: "no",
  duplicate: "no",
  drop: "no",
  hold: "no",
  partition: "fact",
  heal: "fact",
  clog: "fact",
  unclog: "fact",
  "net.config": "fact",
  "conn.connect": "no",
  "conn.accept": "no",
  "conn.open": "no",
  "conn.refuse": "no",
  "conn.close": "no",
  "conn.closed": "no",
  "conn.reset": "no",
  "conn.refused": "no",
  "conn.timeout": "no",
  "disk.append": "no",
  "disk.replace": "no",
  "disk.delete": "no",
  "disk.fsync": "no",
  "disk.fsync.done": "no",
  "disk.lost": "no",
  "disk.fault": "fact",
  "disk.enospc": "no",
  "rpc.timeout": "no",
  "rpc.late": "no",
};

const NO_CONNECTIONS: ConnectionNames = { nameOf: () => "" };
const TIME_FIELD = /(Ms|Us)$/;

export function isFactKind(kind: string): boolean {
  const k = (KERNEL_KINDS as Record<string, "fact" | "no" | undefined>)[kind];
  return k === undefined || k === "fact";
}

interface Fact {
  kind: string;
  node: string;
  peer: string;
  incarnation: number;
  fields: [string, unknown][];
}

export class FactSet {
  private readonly seen = new Set<string>();
  private readonly facts: Fact[] = [];
  private sum1 = 0;
  private sum2 = 0;

  constructor(sim: Simulator) {
    // Every annotation kind is a fact (their names are types, not a list): all kinds, filtered here.
    sim.trace.subscribe((e) => {
      if (isFactKind(e.kind)) this.onEvent(e);
    });
  }

  private onEvent(e: TraceEvent): void {
    const fields = Object.keys(e.fields ?? {})
      .filter((key) => !TIME_FIELD.test(key))
      .sort()
      .map((key) => [key, fieldNamed(e, key)] as [string, unknown]);
    // Which incarnation: a second crash of a node is another fact.
    const fact: Fact = { kind: e.kind, node: e.node, peer: e.peer ?? "", incarnation: e.kind === "crash" || e.kind === "restart" ? (e.id ?? 0) : 0, fields };
    const [a, b] = factHash(fact, undefined);
    const id = `${a}:${b}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.facts.push(fact);
    this.sum1 = (this.sum1 + a) >>> 0;
    this.sum2 = (this.sum2 + b) >>> 0;
  }

  /** The set's digest: two 32-bit lanes, independent of the order the facts came in (with node names renamed, when given). */
  digest(rename?: ReadonlyMap<string, string>): [number, number] {
    if (rename === undefined) return [this.sum1, this.sum2];
    let s1 = 0;
    let s2 = 0;
    for (const f of this.facts) {
      const [a, b] = factHash(f, rename);
      s1 = (s1 + a) >>> 0;
      s2 = (s2 + b) >>> 0;
    }
    return [s1, s2];
  }

  get size(): number {
    return this.facts.length;
  }
}

function factHash(f: Fact, rename: ReadonlyMap<string, string> | undefined): [number, number] {
  const h = new GraphHasher(NO_CONNECTIONS, rename);
  h.add(f.kind).add(f.node).add(f.peer).add(f.incarnation);
  for (const [key, value] of f.fields) h.add(key).add(value);
  return h.lanes();
}
