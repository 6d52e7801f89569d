/**
 * How ZooKeeper frames travel over a simulated connection: one message carries one Jute frame
 * payload (the bytes after the 4-byte length prefix of the real protocol), so the simulated and
 * the real-socket paths share the codec. `kind` is only a label for the trace and the UI (the
 * op name, "connect", "reply", "notification"…); receivers decode `bytes` and ignore it.
 */
export interface ZkPacket {
  kind: string;
  bytes: Uint8Array;
}

/** The default client port (`clientPort` in zoo.cfg). */
export const CLIENT_PORT = 2181;

export function isZkPacket(m: unknown): m is ZkPacket {
  return typeof m === "object" && m !== null && (m as { bytes?: unknown }).bytes instanceof Uint8Array && typeof (m as { kind?: unknown }).kind === "string";
}

/**
 * A four-letter word on a simulated connection. On a real socket the word is the stream's first
 * four bytes, read where a frame's length would be; a simulated connection carries whole frames,
 * so the word travels as a packet of this kind (the one kind a receiver reads), its ASCII in
 * `bytes`, and the server's answer comes back the same way before it closes the connection.
 */
export const FOUR_LETTER_WORD_KIND = "fourLetterWord";

export function fourLetterWordPacket(text: string): ZkPacket {
  return { kind: FOUR_LETTER_WORD_KIND, bytes: new TextEncoder().encode(text) };
}
