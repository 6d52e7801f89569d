/**
 * Length framing: the decoder reassembles frames from arbitrary chunking, rejects a
 * negative or oversize length (jute.maxbuffer) and spots a four-letter word at the start
 * of a fresh server-side connection.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FrameDecoder, fourLetterWordOf, frame, type FrameEvent } from "../../../src/zk/proto/codec-framing.js";
import { encodeClientFrame } from "../../../src/zk/proto/codec.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import { JUTE_MAX_BUFFER_BYTES } from "../../../src/zk/proto/records.js";

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);
const concat = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const lengthBytes = (n: number): Uint8Array => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, n);
  return b;
};

describe("proto: frame", () => {
  it("proto: frame: any chunking of a frame stream yields the same payloads", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (payloads, cuts) => {
          const stream = concat(payloads.map(frame));
          const points = [...new Set(cuts.map((c) => (stream.length === 0 ? 0 : c % stream.length)))].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let prev = 0;
          for (const p of [...points, stream.length]) {
            chunks.push(stream.subarray(prev, p));
            prev = p;
          }
          const d = new FrameDecoder({ fourLetterWords: true });
          const events = chunks.flatMap((c) => d.push(c));
          expect(events.every((e) => e.kind === "frame")).toBe(true);
          expect(events.map((e) => (e as FrameEvent & { kind: "frame" }).payload)).toEqual(payloads);
          expect(d.bufferedBytes).toBe(0);
        },
      ),
      { numRuns: 300, seed: 0x5eed },
    );
  });

  it("proto: frame: byte-at-a-time delivery of a real request", () => {
    const payload = encodeClientFrame({ kind: "request", header: { xid: -2, type: OpCode.ping }, request: { kind: "Empty" } });
    const d = new FrameDecoder();
    const events = Array.from(frame(payload)).flatMap((b) => d.push(Uint8Array.of(b)));
    expect(events).toEqual([{ kind: "frame", payload }]);
  });

  it("proto: frame: a length above jute.maxbuffer is rejected before the body arrives", () => {
    const d = new FrameDecoder();
    expect(d.push(frame(new Uint8Array(JUTE_MAX_BUFFER_BYTES))).map((e) => e.kind)).toEqual(["frame"]);
    const [event] = d.push(lengthBytes(JUTE_MAX_BUFFER_BYTES + 1));
    expect(event?.kind).toBe("error");
    if (event?.kind === "error") {
      expect(event.error.reason).toBe("oversize");
      expect(event.error.message).toContain(String(JUTE_MAX_BUFFER_BYTES + 1));
    }
    expect(d.isClosed).toBe(true);
    expect(d.push(frame(new Uint8Array(1)))).toEqual([]);
  });

  it("proto: frame: a configurable limit and a negative length", () => {
    expect(new FrameDecoder({ maxFrameBytes: 10 }).push(frame(new Uint8Array(11)))[0]?.kind).toBe("error");
    const [neg] = new FrameDecoder().push(lengthBytes(-5));
    expect(neg?.kind === "error" && neg.error.reason).toBe("malformed");
  });

  it("proto: frame: a four-letter word opens a fresh server connection", () => {
    const d = new FrameDecoder({ fourLetterWords: true });
    expect(d.push(ascii("ru"))).toEqual([]);
    expect(d.push(ascii("ok"))).toEqual([{ kind: "fourLetterWord", command: "ruok", rest: new Uint8Array(0) }]);
    expect(d.isClosed).toBe(true);
    const stmk = new FrameDecoder({ fourLetterWords: true }).push(concat([ascii("stmk"), Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 1)]));
    expect(stmk).toEqual([{ kind: "fourLetterWord", command: "stmk", rest: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 1) }]);
  });

  it("proto: frame: four-letter words only at the start, and only when sniffing", () => {
    const later = new FrameDecoder({ fourLetterWords: true });
    expect(later.push(frame(Uint8Array.of(1)))[0]?.kind).toBe("frame");
    expect(later.push(ascii("ruok"))[0]?.kind).toBe("error"); // 0x72756f6b > jute.maxbuffer
    expect(new FrameDecoder().push(ascii("srvr"))[0]?.kind).toBe("error");
    // An unknown word is just a (huge) length.
    expect(new FrameDecoder({ fourLetterWords: true }).push(ascii("kill"))[0]?.kind).toBe("error");
  });

  it("proto: frame: the four-letter word table", () => {
    const int = (w: string): number => new DataView(ascii(w).buffer).getInt32(0);
    expect(fourLetterWordOf(int("mntr"))).toBe("mntr");
    expect(fourLetterWordOf(int("hash"))).toBe("hash");
    expect(fourLetterWordOf(int("icfg"))).toBeNull();
    expect(fourLetterWordOf(0xfff4fffd)).toBe("telnet close");
  });
});
