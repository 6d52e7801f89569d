/**
 * The public API's types catch the mistakes they promise to (docs/api.md), and what the types
 * cannot see is a UserInputError at run time:
 *
 * - compile time: each `// @ts-expect-error` below marks a mistake `tsc -p tsconfig.test.json`
 *   (part of `npm test`) must reject — when the types stop catching it, the directive is unused
 *   and the type check fails. A checker kind with a typo, a node name that is not one of the
 *   world's (`"x1"`, `"server1"`), a create mode that is not a `CreateMode`, a field of the
 *   client's machinery on the public `ZooKeeper` type;
 * - run time: the same checker kind from JavaScript (or through a cast) is refused by
 *   `defineChecker`, naming the kind and the nearest ones that exist; a script exported under
 *   another name than its `export` says is named when its module is loaded.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, expectTypeOf, test } from "vitest";
import { CreateMode, defineChecker, defineUserScript, Ids, UserInputError, type ClientId, type FaultSpec, type NodeId, type ServerId, type World, type ZooKeeper } from "../../src/api/index.js";
import { importUserScript } from "../../src/api/files.js";

/** Mistakes in a script's body: compiled (the type check is the test), never run. */
export async function mistakes(world: World, zk: ZooKeeper): Promise<void> {
  expectTypeOf(world.servers).toEqualTypeOf<readonly ServerId[]>();
  expectTypeOf(world.clients).toEqualTypeOf<readonly ClientId[]>();
  expectTypeOf(world.client("c1").id).toEqualTypeOf<ClientId>();
  // A node name of the world: fine; a server asked for as a client, or no such name: not.
  world.client("c2");
  // @ts-expect-error: a client node is "c1", "c2", …
  world.client("client1");
  // @ts-expect-error: a server is not a client node
  world.client("s1");
  world.fault({ kind: "crash", node: "s1", forMs: 1000 });
  world.fault({ kind: "partition", groups: [["s1"], ["s2", "s3", "c1"]] });
  // @ts-expect-error: no node "server1"
  world.fault({ kind: "crash", node: "server1" });
  // @ts-expect-error: a partition's groups are node names
  world.fault({ kind: "partition", groups: [["s1"], ["leader"]] });
  // @ts-expect-error: a cut's ends are node names
  world.fault({ kind: "cut", from: ["s1"], to: ["x2"] });
  const node: NodeId = world.servers[0]!;
  world.fault({ kind: "pause", node });
  expectTypeOf<{ kind: "crash"; node: "sx" }>().not.toMatchTypeOf<FaultSpec>();

  await zk.create("/a", "", Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
  // @ts-expect-error: 7 is not a create mode
  await zk.create("/b", "", Ids.OPEN_ACL_UNSAFE, 7);
  // @ts-expect-error: the public handle has no connection object
  void zk.cnxn;
}

describe("a checker's kinds", () => {
  test("a typo is a compile error, and at run time a UserInputError naming the nearest kinds", () => {
    const spec = { name: "my.typo", start: () => 0, onEvent: () => {} };
    // @ts-expect-error: "user.evnt" is no trace kind
    expect(() => defineChecker({ ...spec, kinds: ["user.evnt"] })).toThrow(UserInputError);
    const kinds = ["zab.propse"] as unknown as ["zab.propose"]; // a cast, as JavaScript would pass it
    expect(() => defineChecker({ ...spec, kinds })).toThrow(/^defineChecker\(my\.typo\): kinds: no trace kind "zab\.propse" \(nearest: zab\.propose, /);
    expect(() => defineChecker({ ...spec, kinds: ["user.evnt"] as unknown as ["user.event"] })).toThrow(/no trace kind "user\.evnt" \(nearest: user\.event, /);
    // A kind of a family that exists: the family's kinds are offered.
    expect(() => defineChecker({ ...spec, kinds: ["client.sent"] as unknown as ["client.invoke"] })).toThrow(/nearest: client\./);
  });

  test("every kind of the schema is accepted", () => {
    expect(() => defineChecker({ name: "my.many", kinds: ["user.event", "crash", "zab.propose", "client.invoke", "user.label"], start: () => 0, onEvent: () => {} })).not.toThrow();
  });
});

describe("a script's export, checked when its module is loaded", () => {
  const dir = mkdtempSync(join(tmpdir(), "zksim-types-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const api = JSON.stringify(pathToFileURL(resolve(import.meta.dirname, "../../dist/api/index.js")).href);
  const module = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, `import { defineUserScript } from ${api};\n${text}`);
    return path;
  };

  test("a script exported under another name than its export says: both names, one line", async () => {
    const m = module("copied.mjs", `export const second = defineUserScript({ module: import.meta.url, export: "first", run: async () => {} });\n`);
    await expect(importUserScript(m, "first")).rejects.toThrow(new UserInputError(`module ${m}: no export "first"; the script exported as "second" says export: "first" (export it as "first", or make its export "second")`));
  });

  test("an export that is not a script, and a missing one", async () => {
    const m = module("plain.mjs", `export function notAScript() {}\nexport const script = defineUserScript({ module: import.meta.url, export: "script", run: async () => {} });\n`);
    await expect(importUserScript(m, "notAScript")).rejects.toThrow(new UserInputError(`module ${m}: export "notAScript" is a function, not a defineUserScript(…) value`));
    await expect(importUserScript(m, "missing")).rejects.toThrow(new UserInputError(`module ${m}: no export "missing" made by defineUserScript (its user scripts: script)`));
  });

  test("defineUserScript itself refuses what it can see: an export that is no identifier, a run that is no function", () => {
    expect(() => defineUserScript({ module: import.meta.url, export: "my script", run: async () => {} })).toThrow(UserInputError);
    // @ts-expect-error: run must be a function
    expect(() => defineUserScript({ module: import.meta.url, export: "ok", run: "later" })).toThrow(/run must be an async function/);
  });
});
