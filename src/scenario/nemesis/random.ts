/**
 * Nemesis "random": timed disruptions over any node set — the generic member of the family, for
 * workloads that are not ZooKeeper ensembles (teaching protocols) or scenarios that want plain
 * faults: `{"kind": "random", "startMs": 2000, "endMs": 20000, "kinds": ["crash", "cut"]}`.
 * `count` draws (one that left a link side empty is dropped) start in [startMs, endMs) and are
 * undone by `endMs`; crash and disk faults hit `servers` (default: every node).
 */
import { UserInputError } from "../../sim/errors.js";
import type { Fault } from "../../sim/faults.js";
import { DRAWN_KINDS, drawAction, entry, type DrawnKind } from "./draw.js";
import type { NemesisDef } from "./index.js";

const PARAMS = ["startMs", "endMs", "count", "kinds", "servers"];

interface RandomParams {
  startMs: number;
  endMs: number;
  count: number;
  kinds: readonly DrawnKind[];
  servers?: readonly string[];
}

function read(params: Readonly<Record<string, unknown>>, nodes: readonly string[]): RandomParams {
  const whole = (k: string, dflt: number, min: number): number => {
    const v = params[k] ?? dflt;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw new UserInputError(`nemesis.${k}: expected a whole number ≥ ${min}, got ${JSON.stringify(v)}`);
    return v;
  };
  const startMs = whole("startMs", 1000, 0);
  const endMs = whole("endMs", startMs + 10_000, startMs + 1);
  const kinds = params.kinds ?? DRAWN_KINDS;
  if (!Array.isArray(kinds) || kinds.length === 0 || !kinds.every((k) => (DRAWN_KINDS as readonly unknown[]).includes(k))) {
    throw new UserInputError(`nemesis.kinds: expected a non-empty list of ${DRAWN_KINDS.join(", ")}`);
  }
  const servers = params.servers;
  if (servers !== undefined && (!Array.isArray(servers) || servers.length === 0 || !servers.every((n) => typeof n === "string" && nodes.includes(n)))) {
    throw new UserInputError(`nemesis.servers: expected a non-empty list of node names (known: ${nodes.join(", ")})`);
  }
  return { startMs, endMs, count: whole("count", 4, 0), kinds: kinds as DrawnKind[], ...(servers !== undefined ? { servers: servers as string[] } : {}) };
}

export const randomNemesis: NemesisDef = {
  kind: "random",
  description: "timed disruptions over any nodes, each undone inside a window",
  paramKeys: PARAMS,
  checkParams: (params, nodes) => void read(params, nodes),
  draw(ctx, params) {
    const p = read(params, ctx.nodes);
    const rng = ctx.rng.fork("nemesis").fork("random");
    const out: Fault[] = [];
    for (let i = 0; i < p.count; i++) {
      const action = drawAction(rng, rng.pick(p.kinds), p.servers ?? ctx.nodes, ctx.nodes);
      const atMs = rng.int(p.startMs, p.endMs - 1);
      if (action !== undefined) out.push(entry(action, atMs, rng.int(0, p.endMs - atMs)));
    }
    return out.sort((a, b) => a.atMs - b.atMs);
  },
};
