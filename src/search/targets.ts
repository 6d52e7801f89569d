/**
 * The named check targets (`zksim check NAME`): the small worlds of docs/model-checking.md, each
 * a learn world with a setup, the nodes faults may strike and default bounds sized to run in a
 * few minutes on one core. Flags override any bound.
 */
import { UserInputError } from "../sim/errors.js";
import type { Checker } from "../check/checker.js";
import { adapterFor } from "../stepper/adapters.js";
import type { Action, World } from "../stepper/types.js";
import type { ZabWorld } from "../stepper/zab/zab-adapter.js";
import { LivenessChecker as ZabLivenessChecker } from "../check/zab/liveness.js";
import { PaxosLivenessChecker } from "../check/protocols/paxos-liveness.js";
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

/** The ZAB target's liveness window: a leader and every server serving within 10 s of the heal. */
const ZAB_LIVENESS_MS = 10_000;

export const TARGETS: readonly CheckTarget[] = [
  {
    name: "2pc",
    description: "2PC, coordinator co and participants p1-p3, one transaction; co may crash and restart: finds the blocking, proves atomicity within the bound",
    ...commit("2pc"),
    faultable: ["co"],
    symmetry: [["p1", "p2", "p3"]],
    bounds: bounds(24, { crash: 1, restart: 1 }, { holdMs: 6_000 }),
    canary: { variant: "decide-before-log", checker: "commit.atomicity" },
  },
  {
    name: "3pc",
    description: "3PC, coordinator co and participants p1-p3, one transaction; one node may be cut off from the rest: finds the partition atomicity violation",
    ...commit("3pc"),
    faultable: ["co", "p1", "p2", "p3"],
    symmetry: [["p1", "p2", "p3"]],
    bounds: bounds(30, { partition: 1 }, { holdMs: 3_000 }),
    canary: { variant: "commit-uncertain", checker: "commit.atomicity" },
  },
  {
    name: "3pc-crashes",
    description: "3PC, co and p1-p3, one transaction; one node may crash and restart (no partition): atomicity with crashes only",
    ...commit("3pc"),
    faultable: ["co", "p1", "p2", "p3"],
    symmetry: [["p1", "p2", "p3"]],
    bounds: bounds(24, { crash: 1, restart: 1 }, { holdMs: 3_000 }),
    canary: { variant: "commit-uncertain", checker: "commit.atomicity" },
  },
  {
    name: "paxos",
    description: "single-decree Paxos, proposers p1 (A) and p2 (B), acceptors a1-a3, learner l1; one node may crash and restart, two timers may fire early (p2 duels p1): proves agreement within the bound",
    adapter: adapterFor("paxos"),
    seed: 1,
    variant: "correct",
    setup: [],
    faultable: ["p1", "p2", "a1", "a2", "a3"],
    symmetry: [["a1", "a2", "a3"]],
    endCheckers: () => [new PaxosLivenessChecker()],
    clockSensitive: false,
    bounds: bounds(24, { crash: 1, restart: 1, timeout: 2 }, { convergeMs: 5_000 }),
    canary: { variant: "ignore-promised-values", checker: "paxos.agreement" },
  },
  {
    name: "zab",
    description: "ZooKeeper's ZAB, servers s1-s3 (s3 leads after the first election), c1 writes /a, c2 writes /b at a step the search picks (or after the hold): one server may crash (it restarts in the heal), the kernel's order with one reorder: the bug zoo's one-crash defects (--bug)",
    adapter: adapterFor("zab"),
    seed: 1,
    variant: "3",
    setup: [{ kind: "client", client: "c1", op: "create", path: "/a", data: "1" }],
    requests: [{ kind: "client", client: "c2", op: "create", path: "/b", data: "2" }],
    faultable: ["s1", "s2", "s3"],
    stateOf: zabStateOf,
    endCheckers: () => [new ZabLivenessChecker(ZAB_LIVENESS_MS)],
    clockSensitive: true,
    bounds: bounds(16, { crash: 1 }, { reorders: 1, holdMs: 10_000, convergeMs: ZAB_LIVENESS_MS + 2_000, strategy: "dfs" }),
    canary: { variant: "minority-commit", checker: "zab.committed-durability" },
  },
];

/** A ZooKeeper client node's state is its client object (the node's process is an empty shell). */
function zabStateOf(world: World, node: string): unknown {
  return (world as ZabWorld).clients.get(node) ?? world.sim.node(node).process;
}

export function targetFor(name: string): CheckTarget {
  const t = TARGETS.find((x) => x.name === name);
  if (t !== undefined) return t;
  throw new UserInputError(`check: no target "${name}" (targets: ${TARGETS.map((x) => x.name).join(", ")}; see \`zksim check --list\`)`);
}
