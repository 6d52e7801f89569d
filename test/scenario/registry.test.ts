import { describe, expect, it } from "vitest";
import { SCENARIO_REGISTRY, checkerNames, makeChecker, withWorkloads, workloadDef } from "../../src/scenario/registry.js";
import { SERVE_REGISTRY, servedWorkload } from "../../src/serve/served-workload.js";
import { REPLAY_REGISTRY } from "../../src/cli/replay.js";
import { UserInputError } from "../../src/sim/errors.js";

describe("scenario: registry", () => {
  it("scenario: registry: the built-ins are a plain value; a layer's own workload is found only in the registry that adds it", () => {
    expect([...SCENARIO_REGISTRY.workloads.keys()]).toEqual(["kernel-traffic", "zk", "swarm", "api-swarm", "two-phase-commit", "three-phase-commit", "paxos", "multi-paxos"]);
    expect(() => workloadDef("served")).toThrow(UserInputError);
    expect(workloadDef("served", SERVE_REGISTRY)).toBe(servedWorkload);
    expect(workloadDef("user", REPLAY_REGISTRY).kind).toBe("user");
    // Extending builds a new value: the built-ins are unchanged.
    expect(SCENARIO_REGISTRY.workloads.has("served")).toBe(false);
  });

  it("scenario: registry: every named checker makes a fresh instance under its own name; unknown names list the known ones", () => {
    for (const name of checkerNames()) {
      const c = makeChecker(name);
      expect(c.name).toBe(name);
      expect(makeChecker(name)).not.toBe(c);
    }
    expect(() => makeChecker("no.such")).toThrow(/unknown checker "no.such" \(known: .*zab\./);
  });

  it("scenario: registry: a second workload of the same kind is refused", () => {
    expect(() => withWorkloads(SCENARIO_REGISTRY, [workloadDef("zk")])).toThrow(/two workloads named "zk"/);
  });
});
