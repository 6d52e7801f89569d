/**
 * Session ids and passwords, pinned against a real JVM (JDK 17): the expected values were
 * printed by a throwaway Java program doing `new java.util.Random(id ^ 0xB3415C00L)
 * .nextBytes(new byte[16])` and `((now << 24) >>> 8) | (sid << 56)`.
 */
import { describe, expect, it } from "vitest";
import {
  CONTAINER_EPHEMERAL_OWNER,
  initialSessionId,
  isValidSessionPassword,
  sessionPassword,
} from "../../../src/zk/proto/session-id.js";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const asLong = (h: string): bigint => BigInt.asIntN(64, BigInt(`0x${h}`));

describe("proto: session-id", () => {
  it("proto: session-id: initial id layout matches Java (probed 0x0100000ac3920000)", () => {
    expect(initialSessionId(1, 705426)).toBe(0x0100000ac3920000n);
    expect(initialSessionId(255, 1700000000000)).toBe(asLong("ff8bcfe568000000"));
    expect(initialSessionId(3, -5)).toBe(asLong("03fffffffffb0000"));
  });

  it("proto: session-id: the container marker value is skipped", () => {
    expect(initialSessionId(128, 0)).toBe(CONTAINER_EPHEMERAL_OWNER + 1n);
    expect(initialSessionId(128, 0)).toBe(asLong("8000000000000001"));
  });

  it("proto: session-id: password = java.util.Random(id ^ 0xB3415C00).nextBytes(16)", () => {
    const pinned: [string, string][] = [
      ["0100000ac3920000", "1cd5c5a7791618b75a13ffe6ea6198fe"],
      ["0100000ac3920001", "2ff6bfa71962f7fb4f566612beeaaccb"],
      ["0000000000000000", "f22acd4a97e69d6d20a49bb638eadb38"],
      ["8100000000000005", "51d0af4ab760fac5eaf29f8f5a96423a"],
      ["ffffffffffffffff", "20f62cb5648dc2d771471c8a2486a9ee"],
    ];
    for (const [id, pw] of pinned) expect(hex(sessionPassword(asLong(id)))).toBe(pw);
  });

  it("proto: session-id: reconnect accepts only the issued password", () => {
    const id = 0x0100000ac3920000n;
    expect(isValidSessionPassword(id, sessionPassword(id))).toBe(true);
    expect(isValidSessionPassword(id, sessionPassword(id + 1n))).toBe(false);
    expect(isValidSessionPassword(id, new Uint8Array(16))).toBe(false);
    expect(isValidSessionPassword(id, sessionPassword(id).subarray(0, 15))).toBe(false);
  });
});
