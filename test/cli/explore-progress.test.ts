import { describe, expect, it } from "vitest";
import { ProgressBar } from "../../src/cli/explore/progress.js";

describe("cli: explore: progress bar", () => {
  it("redraws in place with \\r, at most every 100 ms, always on the last seed, and clears", () => {
    let out = "";
    const bar = new ProgressBar({ write: (s: string) => (out += s), columns: 120 }, 1000);
    for (let i = 0; i < 1000; i++) bar.tick(i % 10 === 0);
    bar.clear();
    const frames = out.split("\r").filter((f) => f.length > 0 && f !== "\x1b[K");
    expect(frames.length).toBeGreaterThanOrEqual(2); // the first and the last
    expect(frames.length).toBeLessThan(100);
    expect(frames[frames.length - 1]).toMatch(/^\[#{30}\] 1000\/1000 seeds, 100 failing, [\d.]+ seeds\/s\x1b\[K$/);
    expect(out.endsWith("\r\x1b[K")).toBe(true);
    expect(out).not.toContain("\n");
  });
});
