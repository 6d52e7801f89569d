/**
 * The named check targets (`zksim check NAME`): the small worlds of docs/model-checking.md, each
 * a learn world with a setup, the nodes faults may strike and default bounds sized to run in a
 * few minutes on one core. Flags override any bound.
 */
import { UserInputError } from "../sim/errors.js";
import type { Checker } from "../check/checker.js";
import { adapterFor } from "../stepper/adapters.js";
import type { Action } from "../stepper/types.js";
import { NO_FAULTS, type FaultBudget, type SearchBounds } from "./bounds.js";
import type { CheckTarget } from "./target.js";

const NONE = (): Checker[] => [];

function bounds(depth: number, faults: Partial<FaultBudget>, more: Partial<SearchBounds> = {}): SearchBounds {
  return { depth, faults: { ...NO_FAULTS, ...faults }, reorders: undefined, maxStates: undefined, maxTimeMs: undefined, holdMs: 0, convergeMs: 10_000, strategy: "bfs", ...more };
}

const txn = (client: string, key: string, value: string): Action => ({ kind: "client", client, op: "txn", key, value, noVoteFrom: [] });

function commit(protocol: "2pc" | "3pc"): Omit<CheckTarget, "name" | "description" | "faultable" | "bounds"> {
  return { adapter: adapterFor(protocol), seed: 1, variant: "standard", setup: [txn("c1", "x", "1")], endCheckers: NONE, clockSensitive: false };
}

export const TARGETS: readonly CheckTarget[] = [
  {
    name: "2pc",
    description: "2PC, coordinator co and participants p1-p3, one transaction; co may crash and restart: finds the blocking, proves atomicity within the bound",
    ...commit("2pc"),
    faultable: ["co"],
    symmetry: [["p1", "p2", "p3"]],
    bounds: bounds(40, { crash: 1, restart: 1 }, { holdMs: 6_000 }),
    canary: { variant: "decide-before-log", checker: "commit.atomicity" },
  },
];

export function targetFor(name: string): CheckTarget {
  const t = TARGETS.find((x) => x.name === name);
  if (t !== undefined) return t;
  throw new UserInputError(`check: no target "${name}" (targets: ${TARGETS.map((x) => x.name).join(", ")}; see \`zksim check --list\`)`);
}
