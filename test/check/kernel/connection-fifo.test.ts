/**
 * kernel.connection-fifo on hand-built segments: order per connection and receiver, messages
 * never sent, and ids far apart (the checker keeps the latest 1,024 message ids in a ring and
 * older ones aside: a message still in flight when a thousand later ones were sent elsewhere is
 * judged as any other).
 */
import { describe, expect, it } from "vitest";
import { ConnectionFifoChecker } from "../../../src/check/kernel/connection-fifo.js";
import { runCheckers } from "../../../src/check/checker.js";
import { asEvent, type LooseEvent } from "../../helpers/loose-events.js";

function check(segments: Omit<LooseEvent, "index" | "atUs">[]): string[] {
  const events = segments.map((s, i) => asEvent({ index: i, atUs: i, ...s }));
  return runCheckers([new ConnectionFifoChecker()], events).map((v) => v.message);
}

const send = (conn: number, from: string, to: string, id: number) => ({ kind: "send", node: from, peer: to, id, detail: "M", conn });
const deliver = (conn: number, from: string, to: string, id: number) => ({ kind: "deliver", node: to, peer: from, id, detail: "M", conn });

describe("kernel.connection-fifo", () => {
  it("passes messages delivered in order on each connection, a thousand ids apart", () => {
    const others = Array.from({ length: 1500 }, (_, i) => [send(2, "b", "c", 10 + i), deliver(2, "b", "c", 10 + i)]).flat();
    expect(check([send(1, "a", "b", 1), send(1, "a", "b", 2), ...others, deliver(1, "a", "b", 1), deliver(1, "a", "b", 2)])).toEqual([]);
  });

  it("reports a delivery out of order, after the window moved past the earlier message", () => {
    const others = Array.from({ length: 1500 }, (_, i) => send(2, "b", "c", 10 + i));
    const messages = check([send(1, "a", "b", 1), send(1, "a", "b", 2), ...others, deliver(1, "a", "b", 2), deliver(1, "a", "b", 1)]);
    expect(messages).toEqual(["connection 1 a → b delivered message 1 after message 2: FIFO order broken"]);
  });

  it("reports a message never sent, and one sent on another connection", () => {
    expect(check([send(1, "a", "b", 1), deliver(1, "a", "b", 5000)])).toEqual(["message 5000 delivered on connection 1 (a → b) but it was never sent"]);
    expect(check([send(1, "a", "b", 1), send(2, "a", "b", 2), deliver(1, "a", "b", 2)])).toEqual(["message 2 delivered on connection 1 (a → b) but it was sent as 2:a>b"]);
  });

  it("reports a message sent by a second sender on one way as sent by it", () => {
    expect(check([send(1, "a", "b", 1), send(1, "c", "b", 2), deliver(1, "a", "b", 2)])).toEqual(["message 2 delivered on connection 1 (a → b) but it was sent as 1:c>b"]);
  });
});
