import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { EventQueue } from "../../src/sim/event-queue.js";

describe("sim: event-queue", () => {
  it("pops in (time, sequence) order: equal times keep scheduling order", () => {
    const q = new EventQueue<string>();
    q.push(5, "a");
    q.push(1, "b");
    q.push(5, "c");
    q.push(1, "d");
    const out: string[] = [];
    while (q.size > 0) out.push(q.pop()!);
    expect(out).toEqual(["b", "d", "a", "c"]);
  });

  it("property: any interleaving of pushes and pops matches a stable sort", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constant(-1)), { maxLength: 400 }), (ops) => {
        const q = new EventQueue<number>();
        const model: { t: number; seq: number }[] = [];
        let seq = 0;
        for (const op of ops) {
          if (op >= 0) {
            q.push(op, seq);
            model.push({ t: op, seq: seq++ });
          } else if (model.length > 0) {
            model.sort((a, b) => a.t - b.t || a.seq - b.seq);
            const expected = model.shift()!;
            expect(q.peekTime()).toBe(expected.t);
            expect(q.pop()).toBe(expected.seq);
          }
        }
        expect(q.size).toBe(model.length);
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it("grows past its initial capacity", () => {
    const q = new EventQueue<number>();
    for (let i = 5000; i > 0; i--) q.push(i, i);
    let last = 0;
    while (q.size > 0) {
      const v = q.pop()!;
      expect(v).toBeGreaterThan(last);
      last = v;
    }
  });

  it("keeps each item with its key when slots are freed and reused across growth", () => {
    // Pops free item slots that later pushes take again; growing while some are reused must
    // not hand one slot to two items (each pop returns the item pushed with that key).
    const q = new EventQueue<{ t: number }>();
    const live = new Set<number>();
    let t = 0;
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 900; i++) {
        const at = (t++ * 7919) % 10007;
        q.push(at, { t: at });
        live.add(at);
      }
      for (let i = 0; i < 300; i++) {
        const at = q.peekTime();
        expect(q.pop()!.t).toBe(at);
        live.delete(at);
      }
    }
    const seen: number[] = [];
    q.forEach((atUs, _seq, item) => {
      expect(item.t).toBe(atUs);
      seen.push(atUs);
    });
    expect(seen.sort((a, b) => a - b)).toEqual([...live].sort((a, b) => a - b));
    expect(q.size).toBe(live.size);
  });
});
