/**
 * `workloadArbitrary`: generated client workloads for the "client-traffic" script — the client
 * traffic of the swarm scenario (zab-random-faults), with its knobs exposed: how many client
 * nodes, the op mix (weights over create, setData, getData, delete, multi, ephemeral create,
 * getChildren), the key space, the gap between ops and the session timeout the clients ask for.
 *
 * Shrinks toward 2 clients, the swarm's default mix, a small key space and the default timing.
 */
import fc from "fast-check";
import { DEFAULT_OP_MIX, OP_KINDS, type OpMix, type TrafficParams } from "../scenario/scripts/traffic.js";

export interface WorkloadParams {
  clients: number;
  traffic: TrafficParams;
}

export interface WorkloadOptions {
  /** Client node counts (default [2, 4]; the final reads compare at least two views). */
  clients?: { min: number; max: number };
  /** Session timeout bounds in ms (default [4000, 12000], as the swarm draws them). */
  sessionTimeoutMs?: { min: number; max: number };
  /** Key-space bounds (default [1, 8]). */
  keys?: { min: number; max: number };
}

/** The client-count and session-timeout bounds `workloadArbitrary(options)` draws from. */
export function workloadBounds(options: WorkloadOptions = {}): { clients: { min: number; max: number }; sessionTimeoutMs: { min: number; max: number } } {
  return {
    clients: bounds(options.clients ?? { min: 2, max: 4 }, 1, 50, "clients"),
    sessionTimeoutMs: bounds(options.sessionTimeoutMs ?? { min: 4000, max: 12_000 }, 1000, 120_000, "sessionTimeoutMs"),
  };
}

export function workloadArbitrary(options: WorkloadOptions = {}): fc.Arbitrary<WorkloadParams> {
  const { clients, sessionTimeoutMs: session } = workloadBounds(options);
  const keys = bounds(options.keys ?? { min: 1, max: 8 }, 1, 64, "keys");
  // Drawn as offsets so that shrinking (toward 0) lands on the swarm's 6 s timeout and 300 ms gap where allowed.
  const sessionDefault = clamp(6000, session);
  return fc
    .record({
      clients: fc.integer(clients),
      keys: fc.integer(keys),
      opGapOffsetMs: fc.integer({ min: 20 - 300, max: 1000 - 300 }),
      sessionOffsetMs: fc.integer({ min: session.min - sessionDefault, max: session.max - sessionDefault }),
      mix: fc.oneof(fc.constant(DEFAULT_OP_MIX), mixArbitrary()),
    })
    .map(({ clients: n, keys: k, opGapOffsetMs, sessionOffsetMs, mix }) => ({
      clients: n,
      traffic: { keys: k, opGapMsMax: 300 + opGapOffsetMs, sessionTimeoutMs: sessionDefault + sessionOffsetMs, mix: { ...mix } },
    }));
}

/** Weights 0–4 per op, at least one write (a mix without writes tests nothing). */
function mixArbitrary(): fc.Arbitrary<OpMix> {
  const weight = fc.integer({ min: 0, max: 4 });
  return fc
    .tuple(...OP_KINDS.map(() => weight))
    .map((ws) => Object.fromEntries(OP_KINDS.map((k, i) => [k, ws[i]!])) as OpMix)
    .filter((m) => m.create + m.setData + m.delete + m.multi + m.ephemeral > 0);
}

function bounds(b: { min: number; max: number }, lo: number, hi: number, what: string): { min: number; max: number } {
  if (!(Number.isInteger(b.min) && Number.isInteger(b.max) && lo <= b.min && b.min <= b.max && b.max <= hi)) {
    throw new RangeError(`workloadArbitrary: ${what} must be integers with ${lo} ≤ min ≤ max ≤ ${hi}, got ${JSON.stringify(b)}`);
  }
  return b;
}

function clamp(v: number, b: { min: number; max: number }): number {
  return Math.min(Math.max(v, b.min), b.max);
}
