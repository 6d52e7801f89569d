import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zksim, type CliResult } from "../../helpers/cli.js";

/** Bad Paxos input: one line naming what is wrong, exit 2; `list` shows the scenarios; `--trace` draws them. */
const dir = mkdtempSync(join(tmpdir(), "zksim-paxos-"));
const basic = JSON.parse(readFileSync(new URL("../../../scenarios/paxos-basic.json", import.meta.url), "utf8")) as Record<string, unknown> & { workload: Record<string, unknown> };

async function runWith(change: (d: typeof basic) => void) {
  const d = structuredClone(basic);
  change(d);
  const file = join(dir, "bad.json");
  writeFileSync(file, JSON.stringify(d));
  return await zksim("run", file);
}

describe("zksim and paxos", () => {
  it("rejects bad input with one line and exit 2", async () => {
    const cases: [CliResult, string][] = [
      [await zksim("run", "paxos-basic", "--variant", "nope"), 'workload.variant: unknown paxos variant "nope"'],
      [await runWith((d) => (d.workload.acceptors = 0)), "workload.acceptors: expected an integer in [1, 9], got 0"],
      [await runWith((d) => (d.workload.values = ["A", true])), "workload.values[1]: a value must be a string or a number, got true"],
      [await runWith((d) => (d.faults = [{ atMs: 1, kind: "crash", node: "a9" }])), 'faults[0].node: unknown node "a9"'],
    ];
    for (const [r, message] of cases) {
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(message);
    }
  });

  it("lists the Paxos scenarios and draws one as HTML", async () => {
    const list = (await zksim("list")).stdout;
    for (const name of ["paxos-basic", "paxos-dueling-proposers", "paxos-acceptor-crash", "paxos-random-faults"]) expect(list).toContain(name);
    const html = join(dir, "out.html");
    const r = await zksim("run", "paxos-basic", "--trace", html);
    expect(r.status).toBe(0);
    expect(readFileSync(html, "utf8")).toContain("prepare");
  });
});
