/**
 * SASL DIGEST-MD5 (RFC 2831) crypto shared by both sides, as the JDK's `DigestMD5Server` and
 * `DigestMD5Client` compute it for ZooKeeper 3.8 (protocol "zookeeper", server name and realm
 * "zk-sasl-md5", qop "auth", `charset=utf-8`): the `response=` / `rspauth=` values over the RFC's
 * A1/A2 strings and the directive syntax. The server (zk/server/digest-md5.ts) checks a client's
 * `response` with `digestResponseHex`; the client (zk/client/sasl-client.ts) computes it with it.
 *
 * Invariants: pure; MD5 via `node:crypto` `createHash` is a pure function.
 */
import { createHash } from "node:crypto";

export const SASL_REALM = "zk-sasl-md5";
export const SASL_DIGEST_URI = `zookeeper/${SASL_REALM}`;

/** `stringToByte_8859_1` with charset=utf-8: ISO-8859-1 when every char fits, UTF-8 otherwise. */
function wireBytes(s: string): Buffer {
  return [...s].every((c) => c.charCodeAt(0) <= 0xff) ? Buffer.from(s, "latin1") : Buffer.from(s, "utf8");
}

function md5(...parts: (Buffer | string)[]): Buffer {
  const h = createHash("md5");
  for (const p of parts) h.update(typeof p === "string" ? Buffer.from(p, "latin1") : p);
  return h.digest();
}

export interface DigestResponseInput {
  username: string;
  realm: string;
  password: string;
  nonce: string;
  cnonce: string;
  /** Nonce count, 8 hex digits ("00000001"). */
  nc: string;
  qop: string;
  digestUri: string;
  authzid?: string;
}

/**
 * RFC 2831 §2.1.2.1 `response-value` (md5-sess): the client's `response=` when `forRspauth` is
 * false (A2 = "AUTHENTICATE:" digest-uri), the server's `rspauth=` when true (A2 = ":" digest-uri).
 */
export function digestResponseHex(v: DigestResponseInput, forRspauth: boolean): string {
  const userRealmPass = md5(wireBytes(v.username), ":", wireBytes(v.realm), ":", wireBytes(v.password));
  const a1 = [userRealmPass, `:${v.nonce}:${v.cnonce}`];
  if (v.authzid !== undefined) a1.push(`:${v.authzid}`);
  const a2 = `${forRspauth ? "" : "AUTHENTICATE"}:${v.digestUri}`;
  const kd = `${md5(...a1).toString("hex")}:${v.nonce}:${v.nc}:${v.cnonce}:${v.qop}:${md5(a2).toString("hex")}`;
  return md5(kd).toString("hex");
}

/** Parses `key=value,key="quoted \" value",…` (RFC 2831 §7.1); null when malformed. */
export function parseDirectives(text: string): Map<string, string> | null {
  const out = new Map<string, string>();
  const re = /\s*([A-Za-z0-9-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))\s*(?:,|$)/y;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (m === null || m[0] === "") return null;
    const key = m[1]!.toLowerCase();
    if (out.has(key)) return null; // the JDK rejects a repeated directive
    out.set(key, m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3]!);
    at = re.lastIndex;
  }
  return out;
}

