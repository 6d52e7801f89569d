import { describe, expect, it } from "vitest";
import { Draft, NodeInterner, ZkTree, newNode } from "../../../src/check/linearizability/zk-tree.js";

/** `base` with `path` added under "/" (data `data`), or its data changed when it is there. */
function withNode(base: ZkTree, path: string, data: string): ZkTree {
  const d = new Draft(base);
  const old = d.get(path);
  if (old === undefined) d.addChild(path, newNode(data, "persistent", undefined, 0, "world:anyone:31"));
  else d.set(path, { ...old, data });
  return d.finish();
}

describe("check: linearizability: NodeInterner (short exact keys)", () => {
  const root = ZkTree.of(new Map([["/", ""]]));

  it("equal trees get equal keys, built apart or in another order", () => {
    const keys = new NodeInterner();
    const ab = withNode(withNode(root, "/a", "1"), "/b", "2");
    const ba = withNode(withNode(root, "/b", "2"), "/a", "1");
    expect(ab).not.toBe(ba);
    expect(keys.key(ab)).toBe(keys.key(ba));
    expect(ab.exactKey()).toBe(ba.exactKey());
  });

  it("trees that differ in data, metadata or node set get different keys, and the keys are short", () => {
    const keys = new NodeInterner();
    const a1 = withNode(root, "/a", "1");
    const a2 = withNode(root, "/a", "2");
    const b1 = withNode(root, "/b", "1");
    const d = new Draft(a1);
    d.set("/a", { ...d.get("/a")!, version: 1 });
    const a1v1 = d.finish();
    const all = [root, a1, a2, b1, a1v1, withNode(a1, "/b", "1")];
    expect(new Set(all.map((t) => keys.key(t))).size).toBe(all.length);
    expect(new Set(all.map((t) => t.exactKey())).size).toBe(all.length);
    for (const t of all) expect(keys.key(t).length).toBeLessThan(t.exactKey().length / 4);
  });

  it("one node object at two paths is two nodes", () => {
    const keys = new NodeInterner();
    const node = newNode("x", "persistent", undefined, 0, "world:anyone:31");
    const d1 = new Draft(root);
    d1.addChild("/a", node);
    const d2 = new Draft(root);
    d2.addChild("/b", node);
    expect(keys.key(d1.finish())).not.toBe(keys.key(d2.finish()));
  });
});
