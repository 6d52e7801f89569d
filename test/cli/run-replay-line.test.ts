/**
 * `run FILE` prints a replay line that names FILE's path, not the scenario's `name` field: a
 * modified copy of a built-in keeps the built-in's name, and a line naming it would run the
 * unmodified built-in (which may pass where the copy fails). A path a shell would split is quoted.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { shellWord } from "../../src/cli/commands/run.js";
import { zksim } from "../helpers/cli.js";

describe("run FILE: the replay line names the file", () => {
  it("a modified copy of a built-in: the replay line runs the copy, with the copy's trace hash", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zksim replay line "));
    const scenario = JSON.parse(readFileSync(new URL("../../scenarios/paxos-basic.json", import.meta.url), "utf8")) as { network: { maxDelayMs: number }; name: string };
    const file = join(dir, "paxos copy.json");
    writeFileSync(file, JSON.stringify({ ...scenario, network: { ...scenario.network, maxDelayMs: scenario.network.maxDelayMs * 10 } }));
    const copy = await zksim("run", file, "--seed", "3");
    expect(copy.stdout).toContain(`replay: zksim run '${file}' --seed 3`);
    expect(copy.stdout).not.toContain(`replay: zksim run ${scenario.name} `);
    const builtIn = await zksim("run", scenario.name, "--seed", "3");
    expect(builtIn.stdout).toContain(`replay: zksim run ${scenario.name} --seed 3`);
    const hash = (out: string) => /trace hash (\w+)/.exec(out)![1];
    expect(hash(copy.stdout)).not.toBe(hash(builtIn.stdout));
  });

  it("shellWord quotes only what a shell would split", () => {
    expect(shellWord("scenarios/a-b_c.json")).toBe("scenarios/a-b_c.json");
    expect(shellWord("/tmp/a b.json")).toBe("'/tmp/a b.json'");
    expect(shellWord("it's.json")).toBe(`'it'\\''s.json'`);
  });
});
