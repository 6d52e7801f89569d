/**
 * Session ids and passwords exactly as a ZooKeeper 3.8 server derives them (docs/zookeeper.md §3.2).
 *
 * - `SessionTrackerImpl.initializeNextSessionId`: `((nowMs << 24) >>> 8) | (serverId << 56)`
 *   in Java 64-bit signed arithmetic: top 8 bits the server id, next 40 bits the low 40 bits
 *   of the millisecond clock, low 16 bits a counter starting at 0. The value equal to the
 *   container marker (`EphemeralType.CONTAINER_EPHEMERAL_OWNER`, Long.MIN_VALUE) is skipped.
 * - `ZooKeeperServer.generatePasswd`: 16 bytes of
 *   `new java.util.Random(sessionId ^ 0xB3415C00L).nextBytes(...)`, with java.util.Random's
 *   48-bit LCG reproduced bit for bit (pinned against a real JVM in the tests).
 *
 * Pure functions of their inputs: the caller passes the (virtual) clock reading.
 */
import { invariant } from "../../base/errors.js";
import type { SessionId } from "./records.js";

/** `EphemeralType.CONTAINER_EPHEMERAL_OWNER`: an ephemeralOwner that marks a container node. */
export const CONTAINER_EPHEMERAL_OWNER: SessionId = -(1n << 63n);

/** `ZooKeeperServer.superSecret`, xored into the session id to seed the password. */
export const SESSION_PASSWORD_SECRET = 0xb3415c00n;

/** Length of a session password in bytes. */
export const SESSION_PASSWORD_BYTES = 16;

const MASK_64 = (1n << 64n) - 1n;

/** The first session id a tracker on `serverId` hands out when its clock reads `nowMs`. */
export function initialSessionId(serverId: number, nowMs: number): SessionId {
  invariant(Number.isSafeInteger(nowMs), `nowMs must be an integer, got ${nowMs}`);
  invariant(Number.isSafeInteger(serverId), `serverId must be an integer, got ${serverId}`);
  // (nowMs << 24) wraps to 64 bits; `>>> 8` is a logical shift of those 64 bits.
  const clockBits = ((BigInt(nowMs) << 24n) & MASK_64) >> 8n;
  const serverBits = (BigInt(serverId) << 56n) & MASK_64;
  const id = BigInt.asIntN(64, clockBits | serverBits);
  return id === CONTAINER_EPHEMERAL_OWNER ? id + 1n : id;
}

// java.util.Random constants.
const MULTIPLIER = 0x5deece66dn;
const MASK_48 = (1n << 48n) - 1n;
// The 48-bit LCG in exact double arithmetic, on two 24-bit halves (every product < 2^53): the
// BigInt version allocated a few BigInts per step, and a password takes four steps.
const TWO_24 = 0x1000000;
const TWO_16 = 0x10000;
const MULTIPLIER_HI = 0x5de; // MULTIPLIER = MULTIPLIER_HI·2^24 + MULTIPLIER_LO
const MULTIPLIER_LO = 0xece66d;
const ADDEND = 0xb;

/** `java.util.Random` restricted to what `nextBytes` needs. */
class JavaRandom {
  /** The 48-bit seed as seedHi·2^24 + seedLo. */
  private seedHi: number;
  private seedLo: number;

  constructor(seed: bigint) {
    const s = Number((BigInt.asIntN(64, seed) ^ MULTIPLIER) & MASK_48);
    this.seedHi = Math.floor(s / TWO_24);
    this.seedLo = s - this.seedHi * TWO_24;
  }

  /** `next(32)`: advance the LCG and return the top 32 of its 48 bits as a Java int. */
  nextInt(): number {
    // seed = (seed · MULTIPLIER + ADDEND) mod 2^48, half by half.
    const lo = this.seedLo * MULTIPLIER_LO + ADDEND;
    const carry = Math.floor(lo / TWO_24);
    const hi = this.seedHi * MULTIPLIER_LO + this.seedLo * MULTIPLIER_HI + carry;
    this.seedLo = lo - carry * TWO_24;
    this.seedHi = hi - Math.floor(hi / TWO_24) * TWO_24;
    // seed >> 16 as a Java int: the high half's 24 bits over the low half's top 8.
    return (this.seedHi * 256 + Math.floor(this.seedLo / TWO_16)) | 0;
  }

  /** `nextBytes`: successive nextInt() values, low byte first, 4 bytes per int. */
  nextBytes(out: Uint8Array): void {
    for (let i = 0; i < out.length; ) {
      let rnd = this.nextInt();
      for (let n = Math.min(out.length - i, 4); n-- > 0; rnd >>= 8) out[i++] = rnd & 0xff;
    }
  }
}

/** The password the server issues with (and demands back for) `sessionId`. */
export function sessionPassword(sessionId: SessionId): Uint8Array {
  const out = new Uint8Array(SESSION_PASSWORD_BYTES);
  new JavaRandom(sessionId ^ SESSION_PASSWORD_SECRET).nextBytes(out);
  return out;
}

/** `Arrays.equals` of a presented password with the expected one (reconnect check). */
export function isValidSessionPassword(sessionId: SessionId, passwd: Uint8Array): boolean {
  const expected = sessionPassword(sessionId);
  if (passwd.length !== expected.length) return false;
  for (let i = 0; i < expected.length; i++) if (passwd[i] !== expected[i]) return false;
  return true;
}
