import { describe, expect, it } from "vitest";
import { basename, formatSequence, javaParentOf, parentOf, validatePath } from "../../../src/zk/proto/path-utils.js";

describe("zk: path-utils: §1.1 validatePath", () => {
  const valid = ["/", "/a", "/a/b", "/a.b", "/..x", "/x..", "/...", "/.a", "/zookeeper/foo", "/a b", "/\u00e9", "/\u00a0", "/\uffef", "/\uf900"];
  for (const p of valid) {
    it(`accepts ${JSON.stringify(p)}`, () => expect(validatePath(p)).toBeNull());
  }
  const invalid: [string, string][] = [
    ["", "Path length must be > 0"],
    ["a", "Path must start with / character"],
    ["a/b", "Path must start with / character"],
    ["/a/", "Path must not end with / character"],
    ["//", "Path must not end with / character"],
    ["/a//b", "empty node name specified @3"],
    ["/a\u0000b", "null character not allowed @2"],
    ["/.", "relative paths not allowed @1"],
    ["/..", "relative paths not allowed @2"],
    ["/a/./b", "relative paths not allowed @3"],
    ["/a/../b", "relative paths not allowed @4"],
    ["/a\u0001", "invalid character @2"],
    ["/a\u001f", "invalid character @2"],
    ["/a\u007f", "invalid character @2"],
    ["/a\u009f", "invalid character @2"],
    ["/a\ud800", "invalid character @2"],
    ["/a\ue000", "invalid character @2"],
    ["/a\uf8ff", "invalid character @2"],
    ["/a\ufff0", "invalid character @2"],
    ["/a\uffff", "invalid character @2"],
    ["/a\ufffd", "invalid character @2"],
    ["/\u{1F600}", "invalid character @1"],
  ];
  for (const [p, reason] of invalid) {
    it(`rejects ${JSON.stringify(p)}: ${reason}`, () => expect(validatePath(p)).toBe(reason));
  }
  it("first failure wins, scanning left to right", () => {
    expect(validatePath("/a\u0001//b")).toBe("invalid character @2");
    expect(validatePath("/a//\u0001")).toBe("empty node name specified @3");
  });
  it("sequential: validates path + '1', so /p/ and /s- are legal prefixes", () => {
    expect(validatePath("/p/", true)).toBeNull();
    expect(validatePath("/p/", false)).not.toBeNull();
    expect(validatePath("/s-", true)).toBeNull();
    expect(validatePath("/", true)).toBeNull();
    expect(validatePath("/a//", true)).toBe("empty node name specified @3");
  });
});

describe("zk: path-utils: helpers", () => {
  it("parentOf / javaParentOf / basename", () => {
    expect(parentOf("/a/b")).toBe("/a");
    expect(parentOf("/a")).toBe("/");
    expect(parentOf("/")).toBe("/");
    expect(javaParentOf("/a")).toBe("");
    expect(javaParentOf("/a/b")).toBe("/a");
    expect(basename("/a/b")).toBe("b");
    expect(basename("/p/")).toBe("");
  });
  it("§1.3 formatSequence is %010d of a Java int", () => {
    expect(formatSequence(0)).toBe("0000000000");
    expect(formatSequence(3)).toBe("0000000003");
    expect(formatSequence(2147483647)).toBe("2147483647");
    expect(formatSequence(-2147483648)).toBe("-2147483648");
    expect(formatSequence(-5)).toBe("-000000005");
  });
});
