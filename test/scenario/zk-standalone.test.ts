import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { readFileSync } from "node:fs";
import { CHILDREN_ORDER, CREATOR_ALL_ORDER, EPHEMERAL_ORDER } from "../../src/scenario/scripts/hash-orders.js";

const SCENARIOS = ["standalone-basics", "session-expiry", "watch-semantics", "reconnect-watches", "watch-removal", "acl-enforcement", "sasl-auth", "server-restart-recovery", "hash-orders"];

describe("scenario: zk standalone", () => {
  for (const name of SCENARIOS) {
    it(`${name}: passes, deterministically, for several seeds`, async () => {
      const scenario = loadScenario(name);
      for (const seed of [1, 2, 3]) {
        const r = await runScenario(scenario, { seed });
        expect(r.violations, `${name} seed ${seed}`).toEqual([]);
        const again = await runScenario(scenario, { seed });
        expect(again.traceHash).toBe(r.traceHash);
      }
    });
  }

  it("hash-orders expects what the real 3.8.0 server answered (the conformance suite's golden transcripts)", () => {
    const golden = (script: string) => {
      const g = JSON.parse(readFileSync(`conformance/golden/${script}.json`, "utf8")) as { steps: { step: string; ok?: unknown }[] };
      return (step: string) => g.steps.find((x) => x.step === step)!.ok as never;
    };
    const children = golden("children-order");
    expect(CHILDREN_ORDER.created.map((n) => children(`create ${n}`))).toEqual(CHILDREN_ORDER.created.map((n) => `$root/${n}`));
    expect(children("getChildren (7)")).toEqual(CHILDREN_ORDER.seven);
    expect(children("getChildren (19)")).toEqual(CHILDREN_ORDER.nineteen);
    expect((children("getChildren2 (18)") as { children: string[] }).children).toEqual(CHILDREN_ORDER.afterDelete);
    const eph = golden("ephemeral-order");
    expect(EPHEMERAL_ORDER.created.map((n) => eph(`create ${n}`))).toEqual(EPHEMERAL_ORDER.created.map((n) => `$root/${n}`));
    expect(eph("getEphemerals a")).toEqual(EPHEMERAL_ORDER.getEphemerals.map((n) => `$root/${n}`));
    const events = eph("events when a closes") as { type: string; path: string }[];
    expect(events.map((e) => `${e.type} ${e.path.replace("$root/", "").replace("$root", ".")}`)).toEqual(EPHEMERAL_ORDER.eventsOnClose);
    const acl = golden("acl")("getACL CREATOR_ALL") as { acl: { id: { scheme: string; id: string } }[] };
    expect(acl.acl.map((a) => a.id.id)).toEqual(CREATOR_ALL_ORDER.acl);
  });

  // Canaries (deliberately broken servers) and the scenarios that catch them: src/scenario/canaries.ts, run by test/scenario/canaries.test.ts.
});
