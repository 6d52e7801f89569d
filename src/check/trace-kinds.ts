/**
 * Every trace kind as a value, for what must check a kind at run time: a checker's `kinds`
 * written in JavaScript (or cast) names a kind the trace never records, and such a checker would
 * read nothing and pass — so `defineChecker` refuses it, naming the nearest kinds that exist.
 *
 * Invariant: `TRACE_KINDS` is exactly the `TraceKind` union of `src/` (the kernel's kinds, from
 * `KERNEL_KIND_CLASS`, and every kind a layer adds to `TraceAnnotations`): a kind listed here and
 * not in the schema is a compile error (`satisfies`), and test/sim/trace-docs.test.ts fails when
 * the schema has a kind this list lacks (tests add kinds of their own, so the types cannot say
 * it). docs/trace.md documents each one.
 */
import { KERNEL_KIND_CLASS, type AnnotationKind, type KernelKind, type TraceKind } from "../sim/trace-schema.js";

const ANNOTATION_KINDS = [
  "2pc.apply", "2pc.begin", "2pc.decision", "2pc.end", "2pc.forgotten", "2pc.in-doubt",
  "2pc.recover", "2pc.request", "2pc.result", "2pc.vote", "3pc.apply", "3pc.begin", "3pc.decision",
  "3pc.end", "3pc.phase", "3pc.precommit", "3pc.recover", "3pc.request", "3pc.result",
  "3pc.terminate", "3pc.timeout", "3pc.vote", "app.recovered", "client.auth", "client.complete",
  "client.connect", "client.disconnect", "client.invoke", "client.rw-probe", "client.sasl", "client.state",
  "client.watch", "client.watcher-error", "fle.elected", "fle.notification-timeout", "fle.vote",
  "multipaxos.accepted", "multipaxos.apply", "multipaxos.client.complete",
  "multipaxos.client.invoke", "multipaxos.deposed", "multipaxos.leader", "multipaxos.prepare",
  "multipaxos.promised", "multipaxos.read", "multipaxos.replica.recovered", "paxos.accepted",
  "paxos.acceptor.recovered", "paxos.chosen", "paxos.learned", "paxos.learner.recovered",
  "paxos.preempted", "paxos.prepare", "paxos.promised", "paxos.propose", "paxos.proposer.deferred",
  "paxos.proposer.input", "paxos.timeout", "qcm.invalid-sid", "qcm.own-sid", "recipe.2pc",
  "recipe.barrier", "recipe.config", "recipe.counter", "recipe.election", "recipe.group",
  "recipe.lock", "recipe.naming", "recipe.queue", "recipe.resource", "recipe.revoke",
  "recipe.rwlock", "user.event", "user.label", "workload.phase", "workload.zk-config", "zab.ack",
  "zab.commit", "zab.config.activated", "zab.config.next", "zab.deliver", "zab.digest",
  "zab.epoch.accepted", "zab.epoch.current", "zab.flag", "zab.leader.established",
  "zab.learner.rejected", "zab.log", "zab.phase", "zab.propose", "zab.recovered", "zab.role.ended",
  "zab.snap.load", "zab.state", "zab.sync", "zab.truncate", "zk.apply", "zk.cnxn.malformed",
  "zk.cnxn.refused", "zk.container.reap", "zk.readonly.start", "zk.readonly.stop",
  "zk.sasl.failed", "zk.server.fatal", "zk.server.start", "zk.session.established",
  "zk.session.expire", "zk.session.invalid", "zk.session.moved", "zk.snapshot.done",
  "zk.snapshot.skipped", "zk.snapshot.start", "zk.watch.closed-cnxn",
] as const satisfies readonly AnnotationKind[];

/** Every trace kind: the kernel's, then the annotations, each once. */
export const TRACE_KINDS: readonly TraceKind[] = [...(Object.keys(KERNEL_KIND_CLASS) as KernelKind[]), ...ANNOTATION_KINDS];

const KNOWN: ReadonlySet<string> = new Set(TRACE_KINDS);

/** Whether `kind` is a trace kind. */
export function isTraceKind(kind: string): kind is TraceKind {
  return KNOWN.has(kind);
}

/**
 * The trace kinds nearest to `kind` (at most `count`), for a "did you mean" — by edit distance,
 * then kinds of the same family (`zab.propse` → `zab.propose`; `zab.foo` → `zab.…`).
 */
export function nearestTraceKinds(kind: string, count = 3): string[] {
  const scored = TRACE_KINDS.map((k) => ({ k, d: editDistance(kind, k) })).sort((a, b) => a.d - b.d || (a.k < b.k ? -1 : 1));
  const close = scored.filter((s) => s.d <= Math.max(2, Math.floor(kind.length / 3))).map((s) => s.k);
  const family = kind.includes(".") ? TRACE_KINDS.filter((k) => k.startsWith(`${kind.slice(0, kind.indexOf("."))}.`)) : [];
  return [...new Set([...close, ...family, ...scored.map((s) => s.k)])].slice(0, count);
}

/** Levenshtein distance (insert, delete, substitute: 1 each). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}
