/**
 * Steps shared by the bug-zoo scripts (`bug-<n>.ts`): a request's outcome as a value, a
 * trace-triggered step ("the moment s1 has loaded the SNAP, crash the leader" — a crash between
 * two events that a time-based fault schedule cannot aim at), waits on one server's role, and
 * the common ending: the last server rejoins and a fresh client checks the committed /b.
 * They drive the schedule; they judge nothing (the checkers read the trace on their own).
 */
import { fieldNamed, type TraceEvent } from "../../sim/trace.js";
import type { TraceFieldsOf, TraceKind } from "../../sim/trace-schema.js";
import type { ScriptContext } from "./script.js";
import type { EnsembleView } from "./ensemble.js";

/** "ok", or the ZooKeeper error code name the request failed with. */
export function outcome(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "ok",
    (e: { codeName?: string }) => e.codeName ?? "error",
  );
}

/**
 * Resolves with the first trace event matching `predicate`, right after that event (before the
 * simulator takes the next one), so a fault injected then lands exactly between the two.
 * Resolves undefined, and fails the expectation `what`, after `timeoutMs` without a match.
 */
export function whenTrace(s: ScriptContext, what: string | undefined, predicate: (e: TraceEvent) => boolean, timeoutMs: number): Promise<TraceEvent | undefined> {
  const d = s.sim.deferred<TraceEvent | undefined>();
  let done = false;
  const unsubscribe = s.sim.trace.subscribe((e) => {
    if (done || !predicate(e)) return;
    done = true;
    unsubscribe();
    d.resolve(e);
  });
  void s.sleepMs(timeoutMs).then(() => {
    if (done) return;
    done = true;
    unsubscribe();
    if (what !== undefined) s.expect(false, `timed out after ${timeoutMs} ms waiting for: ${what}`);
    d.resolve(undefined);
  });
  return d.promise;
}

/** A `zab.*` annotation of kind `kind` on `node` whose fields include `fields`. */
export function isZab<K extends TraceKind>(e: TraceEvent, kind: K, node: string, fields: Partial<NonNullable<TraceFieldsOf<K>>> = {}): boolean {
  return e.kind === kind && e.node === node && Object.entries(fields).every(([k, v]) => fieldNamed(e, k) === v);
}

/** Waits until `id` leads and serves in an epoch ≥ `epoch`. */
export function leadsEpoch(s: ScriptContext, ens: EnsembleView, id: string, epoch: number, timeoutMs: number): Promise<boolean> {
  return s.waitFor(
    () => {
      const p = ens.peer(id);
      return p !== undefined && p.state === "LEADING" && p.serving && p.currentEpoch >= epoch;
    },
    timeoutMs,
    `${id} leads and serves epoch ${epoch}`,
  );
}

/**
 * The common ending: `node` starts, the ensemble settles with it, and a fresh client on c2
 * syncs and checks that `/b` (committed before the faults) is still there.
 */
export async function rejoinAndExpectB(s: ScriptContext, ens: EnsembleView, node: string, survived = "the committed /b survived"): Promise<void> {
  s.fault({ kind: "start", node });
  await ens.settled(60_000, `${node} rejoins`);
  const reader = await s.connect("c2");
  await reader.sync("/");
  s.expect((await reader.exists("/b")) !== null, survived);
}
