/**
 * Jute primitives: big-endian layout, Java's string quirks (pinned against JDK 17), bounds
 * checks that always surface as a JuteError naming the field.
 */
import { describe, expect, it } from "vitest";
import { JuteError, JuteReader, JuteSizer, JuteWriter, decodeJavaUtf8, juteStringByteLength } from "../../../src/zk/proto/jute.js";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const unhex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/\s/g, ""), "hex"));
const codes = (s: string): number[] => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));

function caught(f: () => unknown): JuteError {
  try {
    f();
  } catch (err) {
    if (err instanceof JuteError) return err;
    throw err;
  }
  throw new Error("expected a JuteError");
}

describe("proto: jute: writer", () => {
  it("proto: jute: primitives are big-endian, null is length -1", () => {
    const w = new JuteWriter(16);
    w.writeInt(-2);
    w.writeLong(0x0102030405060708n);
    w.writeLong(-1n);
    w.writeLongNumber(-2);
    w.writeLongNumber(2 ** 40 - 1);
    w.writeBool(true);
    w.writeBool(false);
    w.writeBuffer(null);
    w.writeBuffer(Uint8Array.of(9));
    w.writeUString(null);
    w.writeUString("");
    w.writeVector(null, () => undefined);
    w.writeStringVector(["a"]);
    expect(hex(w.toBytes())).toBe(
      "fffffffe" +
        "0102030405060708" +
        "ffffffffffffffff" +
        "fffffffffffffffe" +
        "000000ffffffffff" +
        "01" +
        "00" +
        "ffffffff" +
        "0000000109" +
        "ffffffff" +
        "00000000" +
        "ffffffff" +
        "000000010000000161",
    );
  });

  it("proto: jute: the sizer counts exactly what the writer writes", () => {
    const write = (s: JuteWriter | JuteSizer): void => {
      s.writeInt(1);
      s.writeLong(2n);
      s.writeLongNumber(3);
      s.writeBool(true);
      s.writeBuffer(new Uint8Array(300));
      s.writeUString("h\u00e9\u20ac\u{1F600}");
      s.writeStringVector(["x", "\u00ff"]);
      s.writeVector([1, 2], (sink, n) => sink.writeInt(n));
    };
    const w = new JuteWriter(1);
    const z = new JuteSizer();
    write(w);
    write(z);
    expect(z.size).toBe(w.toBytes().length);
  });

  it("proto: jute: a non-int32 int or a non-integer long is a bug, not silently wrapped", () => {
    expect(() => new JuteWriter().writeInt(2 ** 31)).toThrow(/invariant/);
    expect(() => new JuteWriter().writeLongNumber(1.5)).toThrow(/invariant/);
  });

  it("proto: jute: strings encode each UTF-16 unit separately (CESU-8 for astral chars)", () => {
    expect(juteStringByteLength("a\u00e9\u20ac\u{1F600}")).toBe(1 + 2 + 3 + 6);
    const w = new JuteWriter();
    w.writeUString("\u{1F600}");
    expect(hex(w.toBytes())).toBe("00000006eda0bdedb880");
  });
});

describe("proto: jute: reader", () => {
  it("proto: jute: reads back what the writer wrote", () => {
    const w = new JuteWriter();
    w.writeInt(-123);
    w.writeLong(-(1n << 63n));
    w.writeLongNumber(-(2 ** 53) + 1);
    w.writeBool(true);
    w.writeBuffer(Uint8Array.of(1, 2));
    w.writeUString("zk \u00e9\u20ac");
    w.writeStringVector(["/a", "/b"]);
    const r = new JuteReader(w.toBytes());
    expect(r.readInt("i")).toBe(-123);
    expect(r.readLong("l")).toBe(-(1n << 63n));
    expect(r.readLongNumber("n")).toBe(-(2 ** 53) + 1);
    expect(r.readBool("b")).toBe(true);
    expect(r.readBuffer("buf")).toEqual(Uint8Array.of(1, 2));
    expect(r.readString("s")).toBe("zk \u00e9\u20ac");
    expect(r.readStringVector("v")).toEqual(["/a", "/b"]);
    expect(r.remaining).toBe(0);
  });

  it("proto: jute: reading respects a subarray's offset", () => {
    const backing = unhex("ffffffff 00000007 ffffffff");
    expect(new JuteReader(backing.subarray(4, 8)).readInt("x")).toBe(7);
  });

  it("proto: jute: a bool is true for any non-zero byte (DataInput.readBoolean)", () => {
    expect(new JuteReader(Uint8Array.of(2)).readBool("watch")).toBe(true);
  });

  it("proto: jute: null and negative vector counts read as empty; null buffer as null", () => {
    expect(new JuteReader(unhex("ffffffff")).readStringVector("v")).toEqual([]);
    expect(new JuteReader(unhex("fffffffb")).readStringVector("v")).toEqual([]);
    expect(new JuteReader(unhex("ffffffff")).readBuffer("b")).toBeNull();
    expect(new JuteReader(unhex("ffffffff")).readBufferNonNull("b")).toEqual(new Uint8Array(0));
  });

  it("proto: jute: truncation is a JuteError naming the field, never a RangeError", () => {
    const e1 = caught(() => new JuteReader(unhex("000000")).readInt("RequestHeader.xid"));
    expect(e1.reason).toBe("truncated");
    expect(e1.field).toBe("RequestHeader.xid");
    expect(e1.message).toContain("RequestHeader.xid");
    expect(caught(() => new JuteReader(unhex("00000000000000")).readLong("zxid")).reason).toBe("truncated");
    expect(caught(() => new JuteReader(new Uint8Array(0)).readBool("watch")).reason).toBe("truncated");
    expect(caught(() => new JuteReader(unhex("00000005 6162")).readString("path")).reason).toBe("truncated");
    expect(caught(() => new JuteReader(unhex("7fffffff")).readBuffer("data")).reason).toBe("truncated");
    expect(caught(() => new JuteReader(unhex("7fffffff")).readStringVector("children")).reason).toBe("truncated");
  });

  it("proto: jute: bad lengths and a null required string are malformed", () => {
    expect(caught(() => new JuteReader(unhex("fffffffe")).readBuffer("data")).reason).toBe("malformed");
    expect(caught(() => new JuteReader(unhex("80000000")).readUString("path")).reason).toBe("malformed");
    const e = caught(() => new JuteReader(unhex("ffffffff")).readString("CreateRequest.path"));
    expect(e.reason).toBe("malformed");
    expect(e.field).toBe("CreateRequest.path");
  });
});

describe("proto: jute: Java UTF-8 decoding (pinned against JDK 17 new String(bytes, UTF_8))", () => {
  it("proto: jute: a CESU-encoded surrogate pair reads back as two U+FFFD", () => {
    const b = unhex("eda0bd edb880 41");
    expect(codes(decodeJavaUtf8(b, 0, b.length))).toEqual([0xfffd, 0xfffd, 0x41]);
  });

  it("proto: jute: malformed sequences are replaced as Java replaces them", () => {
    const b = unhex("c341 e28242 f09f9880 ff");
    expect(codes(decodeJavaUtf8(b, 0, b.length))).toEqual([0xfffd, 0x41, 0xfffd, 0x42, 0xd83d, 0xde00, 0xfffd]);
  });

  it("proto: jute: a leading BOM is kept", () => {
    const b = unhex("efbbbf41");
    expect(decodeJavaUtf8(b, 0, b.length)).toBe("\ufeffA");
  });

  it("proto: jute: long ASCII and long non-ASCII strings decode", () => {
    const ascii = "/a".repeat(5000);
    const wide = "\u00e9\u4e2d".repeat(5000);
    for (const s of [ascii, wide]) {
      const w = new JuteWriter();
      w.writeUString(s);
      expect(new JuteReader(w.toBytes()).readString("s")).toBe(s);
    }
  });
});
