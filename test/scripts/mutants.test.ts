// The mechanics of `npm run mutants` (scripts/mutants.mjs), not a mutation run: every defect of
// mutants/list.json must still apply to the current sources (a rotted snippet fails here, named),
// and the script refuses a list it cannot apply with exit 2 and a line naming the defect.
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("../../scripts/mutants.mjs", import.meta.url));
const LIST = fileURLToPath(new URL("../../mutants/list.json", import.meta.url));

interface Defect {
  id: string;
  area: string;
  file: string;
  original: string;
  replacement: string;
  description: string;
  equivalent?: string;
}

const list = JSON.parse(readFileSync(LIST, "utf8")) as { defects: Defect[]; probes: unknown[] };

function mutants(...args: string[]) {
  return spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8" });
}

/** Runs --check on a list holding the given defects and the real probes. */
function checkList(defects: Defect[]) {
  const dir = mkdtempSync(join(tmpdir(), "zksim-mutants-list-"));
  try {
    writeFileSync(join(dir, "list.json"), JSON.stringify({ defects, probes: list.probes }));
    return mutants("--check", "--list", join(dir, "list.json"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const good = list.defects[0]!;

describe("mutant list", () => {
  it("applies to the current sources: every snippet occurs exactly once and changes the emitted code", () => {
    const r = mutants("--check");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${list.defects.length} defect\\(s\\) and ${list.probes.length} probe\\(s\\) match`));
  });

  it("has at least 25 defects, spread over the server, the quorum, the client and the recipes", () => {
    expect(list.defects.length).toBeGreaterThanOrEqual(25);
    for (const area of ["server", "quorum", "client", "recipes"]) {
      expect(list.defects.filter((d) => d.area === area).length, area).toBeGreaterThanOrEqual(5);
    }
  });

  it("refuses a defect whose snippet no longer matches, naming it", () => {
    const r = checkList([good, { ...good, id: "rotted", original: `${good.original} /* gone */` }]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/defect rotted \(src\/[^)]+\): the original snippet no longer matches the source/);
    expect(r.stderr).not.toMatch(new RegExp(`defect ${good.id} `));
  });

  it("refuses a snippet that occurs more than once", () => {
    const r = checkList([{ ...good, id: "ambiguous", original: "return" }]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/defect ambiguous .*occurs \d+ times; make it unique/);
  });

  it("refuses a mutation that changes no emitted JavaScript", () => {
    const source = readFileSync(fileURLToPath(new URL(`../../${good.file}`, import.meta.url)), "utf8");
    const header = source.slice(0, source.indexOf("\n", source.indexOf("\n") + 1)); // the header comment's first two lines
    const r = checkList([{ ...good, id: "comment-only", original: header, replacement: `${header} (edited)` }]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/defect comment-only .*changes no emitted JavaScript/);
  });

  it("refuses duplicate ids, unknown areas and an unknown --only id", () => {
    const r = checkList([good, { ...good, area: "kernel" }]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`defect ${good.id}: duplicate id`));
    expect(r.stderr).toMatch(/area "kernel" is not one of server, quorum, client, recipes/);
    const only = mutants("--check", "--only", "no-such-defect");
    expect(only.status).toBe(2);
    expect(only.stderr).toMatch(/--only: no defect no-such-defect in the list/);
  });
});
