/**
 * Parameter readers shared by the teaching protocols' workloads (`paxos`, `multi-paxos`):
 * each mistake is one line naming the parameter, as `intParam` does.
 */
import { UserInputError } from "../../sim/errors.js";

/** Rejects parameters the workload does not know. */
export function knownParams(params: Record<string, unknown>, kind: string, known: readonly string[]): void {
  for (const k of Object.keys(params)) {
    if (!known.includes(k)) throw new UserInputError(`workload: unknown parameter "${k}" for kind "${kind}" (known: ${known.join(", ")})`);
  }
}

/** `variant`: one of `allowed` (default: the first). */
export function variantParam<T extends string>(params: Record<string, unknown>, kind: string, allowed: readonly T[]): T {
  const v = params.variant;
  if (v === undefined) return allowed[0]!;
  if (typeof v !== "string" || !(allowed as readonly string[]).includes(v)) {
    throw new UserInputError(`workload.variant: unknown ${kind} variant ${JSON.stringify(v)} (known: ${allowed.join(", ")})`);
  }
  return v as T;
}

export function boolParam(params: Record<string, unknown>, key: string, dflt: boolean): boolean {
  const v = params[key];
  if (v === undefined) return dflt;
  if (typeof v !== "boolean") throw new UserInputError(`workload.${key}: expected true or false, got ${JSON.stringify(v)}`);
  return v;
}

/** A list of `n` values, each a string or a number (the values proposers propose). */
export function valueListParam(params: Record<string, unknown>, key: string, n: number, dflt: (i: number) => string | number): (string | number)[] {
  const v = params[key];
  if (v === undefined) return Array.from({ length: n }, (_, i) => dflt(i));
  if (!Array.isArray(v) || v.length !== n) throw new UserInputError(`workload.${key}: expected a list of ${n} values (one per proposer), got ${JSON.stringify(v)}`);
  return v.map((x, i) => {
    if ((typeof x !== "string" && typeof x !== "number") || (typeof x === "number" && !Number.isFinite(x))) {
      throw new UserInputError(`workload.${key}[${i}]: a value must be a string or a number, got ${JSON.stringify(x)}`);
    }
    return x;
  });
}

/** A list of `n` non-negative numbers (say, per-proposer start times). */
export function numberListParam(params: Record<string, unknown>, key: string, n: number, dflt: (i: number) => number): number[] {
  const v = params[key];
  if (v === undefined) return Array.from({ length: n }, (_, i) => dflt(i));
  if (!Array.isArray(v) || v.length !== n) throw new UserInputError(`workload.${key}: expected a list of ${n} numbers, got ${JSON.stringify(v)}`);
  return v.map((x, i) => {
    if (typeof x !== "number" || !Number.isFinite(x) || x < 0) throw new UserInputError(`workload.${key}[${i}]: expected a number ≥ 0, got ${JSON.stringify(x)}`);
    return x;
  });
}

/** A node name among `names`, or undefined when absent. */
export function nodeParam(params: Record<string, unknown>, key: string, names: readonly string[]): string | undefined {
  const v = params[key];
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !names.includes(v)) throw new UserInputError(`workload.${key}: unknown node ${JSON.stringify(v)} (known: ${names.join(", ")})`);
  return v;
}
