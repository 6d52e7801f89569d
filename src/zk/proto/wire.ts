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
