/**
 * The opt-in freshness checker (`readAfterConfirmedWrite`, client.read-after-confirmed-write) on
 * the examples' config store: a reader on a server cut off from the leader, reading what the
 * writer has just had confirmed, reads a stale version without `sync` (caught: the checker can
 * fail) and a fresh one with it (passes: the checker does not cry wolf at a correct client).
 */
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { defineUserScript, runUserScript, type Fault, type UserScript } from "../../src/api/index.js";
import { importUserModule } from "../../src/api/files.js";

const ROOT = resolve(import.meta.dirname, "../..");
let classic: Record<string, UserScript>;

beforeAll(async () => {
  // examples/ imports "zksim": this package, linked as the example's dependency.
  const link = join(ROOT, "examples/node_modules/zksim");
  if (!existsSync(link)) {
    mkdirSync(join(ROOT, "examples/node_modules"), { recursive: true });
    symlinkSync("../..", link);
  }
  classic = (await importUserModule(join(ROOT, "examples/src/classic.ts"))) as Record<string, UserScript>;
}, 60_000);

// c2 shares s1 with… nobody: s1 and c2 on one side, the leader's majority and the writer on the other.
const cutOffReader: Fault[] = [
  { atMs: 5000, kind: "partition", groups: [["s1", "c2"], ["s2", "s3", "c1"]] },
  { atMs: 12_000, kind: "heal" },
];

test("a read without sync after a confirmed write is stale, and the checker says so", async () => {
  const r = await runUserScript(classic.staleConfig!, { seed: 3, faults: cutOffReader });
  expect(r.verdict).toBe("fail");
  expect(r.violations[0]!.checker).toBe("client.read-after-confirmed-write");
  expect(r.violations[0]!.message).toMatch(/^c2\/\d+ getData\(\/config\) invoked at [\d.]+ ms saw mzxid 0x[0-9a-f]+, older than c1\/\d+'s setData \(zxid 0x[0-9a-f]+\) confirmed at [\d.]+ ms: a stale read — sync\(path\) before/);
});

test("the same reader with sync before the read passes", async () => {
  const r = await runUserScript(classic.syncedConfig!, { seed: 3, faults: cutOffReader });
  expect(r.violations).toEqual([]);
  expect(r.verdict).toBe("pass");
});

test("it is opt-in: the default checkers let the stale read pass; named in the world's checkers, it fails it", async () => {
  const unchecked = defineUserScript({ module: import.meta.url, export: "unchecked", run: classic.staleConfig!.run });
  expect((await runUserScript(unchecked, { seed: 3, faults: cutOffReader })).verdict).toBe("pass");
  const named = await runUserScript(unchecked, { seed: 3, faults: cutOffReader, checkers: ["client.read-after-confirmed-write"] });
  expect(named.violations.map((v) => v.checker)).toContain("client.read-after-confirmed-write");
});
