/** Text as a terminal shows it: widths, wrapping at spaces (nothing lost), cutting only with "…". */
import { describe, expect, it } from "vitest";
import { displayWidth, fit, wrap, wrapAll } from "../../src/tui/text.js";

describe("tui: text", () => {
  it("tui: text: a CJK character takes two columns", () => {
    expect(displayWidth("s1 enters election (选举)")).toBe(25);
    expect(displayWidth("● ✖ ▸ ‖")).toBe(7);
  });

  it("tui: text: wrap breaks at spaces, indents continuations, keeps every word and inner runs of spaces", () => {
    expect(wrap("hello world this is a test", 12, "  ")).toEqual(["hello world", "  this is a", "  test"]);
    expect(wrap("a  b   c", 20)).toEqual(["a  b   c"]);
    const text = "s3 (leader) commits 0x100000003: a quorum has logged it; COMMIT goes to the followers";
    const lines = wrap(text, 30, "    ");
    expect(lines.every((l) => displayWidth(l) <= 30)).toBe(true);
    expect(lines.map((l) => l.trim()).join(" ")).toBe(text);
    expect(lines.join("")).not.toContain("…");
  });

  it("tui: text: a word longer than a line is broken, not lost; wide characters never overflow", () => {
    expect(wrap("aaaaaaaaaaaaaaa bb", 10, ">")).toEqual(["aaaaaaaaaa", ">aaaaa bb"]);
    for (const l of wrap("s1 enters election (选举), epoch 1 — 广播 广播 广播", 12, " ")) expect(displayWidth(l)).toBeLessThanOrEqual(12);
  });

  it("tui: text: fit cuts with … only what is longer; wrapAll leaves short lines alone", () => {
    expect(fit("abcdef", 4)).toBe("abc…");
    expect(fit("abc", 4)).toBe("abc");
    expect(wrapAll(["short", "  one two three four five"], 12)).toEqual(["short", "  one two", "      three", "      four", "      five"]);
  });
});
