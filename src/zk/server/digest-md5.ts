/**
 * SASL DIGEST-MD5 (RFC 2831) as the JDK's `DigestMD5Server` runs it for ZooKeeper 3.8
 * (`ZooKeeperSaslServer`: protocol "zookeeper", server name and realm "zk-sasl-md5", no
 * properties, so qop "auth" only and `charset=utf-8`). The crypto — MD5 over the RFC's A1/A2
 * strings — is shared with the client (zk/proto/sasl-digest-md5.ts); this is the server's
 * bookkeeping.
 *
 * The exchange, one token per `sasl` request (OpCode 102):
 *   1. client: empty token → server: the challenge
 *      `realm="zk-sasl-md5",nonce="…",charset=utf-8,algorithm=md5-sess` (seen from 3.8.0)
 *   2. client: the digest-response (username, realm, nonce, nc, cnonce, digest-uri, response, qop)
 *      → server: `rspauth=<hex>` and the exchange is complete; the authorization id is the user.
 *
 * Invariants: pure apart from the nonce, which the caller draws (the simulation's rng stream),
 * 30 bytes base64-encoded as the JDK's `generateNonce` makes it; MD5 via `node:crypto`
 * `createHash` is a pure function. Any deviation (unknown user, wrong password, wrong nonce or
 * digest-uri, a third step) is a failure with a one-line reason, never an exception.
 */
import { digestResponseHex, parseDirectives, SASL_DIGEST_URI, SASL_REALM, type DigestResponseInput } from "../proto/sasl-digest-md5.js";

export { digestResponseHex, parseDirectives, SASL_DIGEST_URI, SASL_REALM, type DigestResponseInput } from "../proto/sasl-digest-md5.js";
export const NONCE_BYTES = 30;

/** The server's first token: the digest-challenge. */
export function digestChallenge(nonce: string): string {
  // No qop directive: the JDK leaves it out when "auth" (the default) is all it offers.
  return `realm="${SASL_REALM}",nonce="${nonce}",charset=utf-8,algorithm=md5-sess`;
}

export type DigestMd5Step =
  | { kind: "challenge"; token: Uint8Array }
  | { kind: "complete"; token: Uint8Array; authorizationId: string }
  | { kind: "failed"; reason: string };

/**
 * One connection's server side: `evaluateResponse` per client token. `passwords` is the JAAS
 * `Server` section's `user_<name>="password"` table; `drawNonce` supplies 30 random bytes.
 */
export class DigestMd5Server {
  private step: "initial" | "challenged" | "done" = "initial";
  private nonce = "";

  constructor(
    private readonly passwords: ReadonlyMap<string, string>,
    private readonly drawNonce: () => Uint8Array,
  ) {}

  get isComplete(): boolean {
    return this.step === "done";
  }

  evaluateResponse(token: Uint8Array): DigestMd5Step {
    switch (this.step) {
      case "initial": {
        if (token.length !== 0) return this.fail("DIGEST-MD5 must not have an initial response");
        this.nonce = Buffer.from(this.drawNonce()).toString("base64");
        this.step = "challenged";
        return { kind: "challenge", token: Buffer.from(digestChallenge(this.nonce), "latin1") };
      }
      case "challenged":
        return this.validate(Buffer.from(token).toString("utf8"));
      case "done":
        return this.fail("DIGEST-MD5 authentication already complete");
    }
  }

  private validate(text: string): DigestMd5Step {
    const d = parseDirectives(text);
    if (d === null) return this.fail("digest response format violation");
    const username = d.get("username");
    const cnonce = d.get("cnonce");
    const response = d.get("response");
    if (username === undefined || cnonce === undefined || response === undefined) return this.fail("digest response format violation: missing username, cnonce or response");
    const realm = d.get("realm") ?? "";
    if (realm !== SASL_REALM) return this.fail(`nonexistent realm "${realm}"`);
    if (d.get("nonce") !== this.nonce) return this.fail("mismatched nonce");
    const nc = d.get("nc") ?? "";
    if (Number.parseInt(nc, 16) !== 1) return this.fail("nonce count must be 1");
    const qop = d.get("qop") ?? "auth";
    if (qop !== "auth") return this.fail(`qop "${qop}" was not offered`);
    const digestUri = d.get("digest-uri") ?? "";
    if (digestUri.toLowerCase() !== SASL_DIGEST_URI) return this.fail(`digest-uri "${digestUri}" is not ${SASL_DIGEST_URI}`);
    const password = this.passwords.get(username);
    if (password === undefined) return this.fail(`cannot acquire password for ${username}`);
    const authzid = d.get("authzid");
    const input: DigestResponseInput = { username, realm, password, nonce: this.nonce, cnonce, nc, qop, digestUri, ...(authzid !== undefined ? { authzid } : {}) };
    if (digestResponseHex(input, false) !== response.toLowerCase()) return this.fail("mismatched response");
    this.step = "done";
    // SaslServerCallbackHandler authorizes the authenticated user (its Kerberos-style name kept whole).
    return { kind: "complete", token: Buffer.from(`rspauth=${digestResponseHex(input, true)}`, "latin1"), authorizationId: username };
  }

  private fail(reason: string): DigestMd5Step {
    this.step = "done";
    return { kind: "failed", reason: `DIGEST-MD5: ${reason}` };
  }
}
