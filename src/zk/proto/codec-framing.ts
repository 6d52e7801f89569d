/**
 * The 4-byte length framing of every message in both directions (docs/zookeeper.md §9.1), the frame
 * decoder that reassembles a byte stream, and the four-letter-word sniffing of a fresh
 * connection.
 */
import { invariant } from "../../base/errors.js";
import { JuteError } from "./jute.js";
import { JUTE_MAX_BUFFER_BYTES } from "./records.js";
import { FOUR_LETTER_WORDS, TELNET_CLOSE_WORD, type FourLetterWord } from "./registry-doc.js";

// ---- framing ------------------------------------------------------------------------------

/** `int length` + payload: how every message travels in both directions. */
export function frame(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.length);
  new DataView(out.buffer).setInt32(0, payload.length);
  out.set(payload, 4);
  return out;
}

export type FourLetterCommand = FourLetterWord | "telnet close";

const FOUR_LETTER_BY_INT = new Map<number, FourLetterCommand>([
  ...FOUR_LETTER_WORDS.map((w): [number, FourLetterCommand] => [asciiInt(w), w]),
  [TELNET_CLOSE_WORD, "telnet close"],
]);

function asciiInt(word: string): number {
  return ((word.charCodeAt(0) << 24) | (word.charCodeAt(1) << 16) | (word.charCodeAt(2) << 8) | word.charCodeAt(3)) | 0;
}

/** The known four-letter word spelled by 4 big-endian bytes read as an int, if any. */
export function fourLetterWordOf(lengthField: number): FourLetterCommand | null {
  return FOUR_LETTER_BY_INT.get(lengthField | 0) ?? null;
}

export type FrameEvent =
  | { kind: "frame"; payload: Uint8Array }
  /** A four-letter word instead of a length; `rest` holds the bytes that followed it. */
  | { kind: "fourLetterWord"; command: FourLetterCommand; rest: Uint8Array }
  | { kind: "error"; error: JuteError };

export interface FrameDecoderOptions {
  /** Largest accepted payload length (`len > max` is rejected); default jute.maxbuffer. */
  maxFrameBytes?: number;
  /**
   * Treat the first 4 bytes as a possible four-letter word (the server side of a fresh
   * connection, `NIOServerCnxn.readLength` while `!initialized`). Default false.
   */
  fourLetterWords?: boolean;
}

/**
 * Splits a byte stream into frames. After a four-letter word or an error the decoder is
 * closed (Java closes the connection) and further input is ignored.
 */
export class FrameDecoder {
  private buf = new Uint8Array(0);
  private start = 0;
  private end = 0;
  private closed = false;
  private sniff: boolean;
  private readonly maxFrameBytes: number;

  constructor(options: FrameDecoderOptions = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? JUTE_MAX_BUFFER_BYTES;
    this.sniff = options.fourLetterWords ?? false;
    invariant(Number.isInteger(this.maxFrameBytes) && this.maxFrameBytes >= 0, "maxFrameBytes must be >= 0");
  }

  /** Bytes received but not yet part of a complete frame. */
  get bufferedBytes(): number {
    return this.end - this.start;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  push(chunk: Uint8Array): FrameEvent[] {
    if (this.closed) return [];
    this.append(chunk);
    const events: FrameEvent[] = [];
    while (!this.closed && this.end - this.start >= 4) {
      const event = this.next();
      if (event === null) break;
      events.push(event);
    }
    return events;
  }

  private next(): FrameEvent | null {
    const len = new DataView(this.buf.buffer, this.buf.byteOffset + this.start, 4).getInt32(0);
    if (this.sniff) {
      this.sniff = false;
      const command = fourLetterWordOf(len);
      if (command !== null) {
        this.closed = true;
        return { kind: "fourLetterWord", command, rest: this.buf.slice(this.start + 4, this.end) };
      }
    }
    if (len < 0 || len > this.maxFrameBytes) {
      this.closed = true;
      const detail = `length ${len} outside [0, ${this.maxFrameBytes}]`;
      return { kind: "error", error: new JuteError(len < 0 ? "malformed" : "oversize", "frame.length", detail, 0) };
    }
    if (this.end - this.start < 4 + len) return null;
    const payload = this.buf.slice(this.start + 4, this.start + 4 + len);
    this.start += 4 + len;
    return { kind: "frame", payload };
  }

  private append(chunk: Uint8Array): void {
    const used = this.end - this.start;
    if (this.buf.length - this.end < chunk.length) {
      if (used + chunk.length <= this.buf.length) {
        this.buf.copyWithin(0, this.start, this.end);
      } else {
        const next = new Uint8Array(Math.max(this.buf.length * 2, used + chunk.length, 64));
        next.set(this.buf.subarray(this.start, this.end));
        this.buf = next;
      }
      this.start = 0;
      this.end = used;
    }
    this.buf.set(chunk, this.end);
    this.end += chunk.length;
  }
}
