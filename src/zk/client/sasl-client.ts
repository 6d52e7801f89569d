/**
 * `ZooKeeperSaslClient` with the JDK's `DigestMD5Client`: the client side of SASL DIGEST-MD5
 * (RFC 2831) for a handle whose JAAS `Client` section logs in with `DigestLoginModule`
 * (`username`, `password`). One instance per connection, made when the connection starts
 * (Java's `startConnect`); the exchange runs once the session is established, before anything
 * else is written on that connection (`ClientCnxn.saslCompleted`, docs/zookeeper.md §5.2):
 *   1. INITIAL → INTERMEDIATE: DIGEST-MD5 has no initial response, the first token is empty;
 *   2. the server's digest-challenge → the digest-response (username, realm, nonce, nc 1, a
 *      cnonce from the client's stream, digest-uri `zookeeper/zk-sasl-md5`, qop auth);
 *   3. the server's `rspauth=` → checked against the value the client expects: COMPLETE
 *      (SaslAuthenticated), or FAILED (AuthFailed). A failed exchange's AUTHFAILED reply has no
 *      token, which fails the check the same way (Java hands the client an empty token).
 *
 * Invariants: pure apart from the cnonce, which the caller draws; a token after COMPLETE or
 * FAILED is ignored (no answer); never throws for a server's token.
 */
import { digestResponseHex, parseDirectives, SASL_DIGEST_URI, type DigestResponseInput } from "../proto/sasl-digest-md5.js";

/** The JAAS `Client` section's DigestLoginModule credentials. */
export interface SaslCredentials {
  username: string;
  password: string;
}

/** `ZooKeeperSaslClient.SaslState`. */
export type SaslState = "INITIAL" | "INTERMEDIATE" | "COMPLETE" | "FAILED";

const CNONCE_BYTES = 30;

export class ZooKeeperSaslClient {
  state: SaslState = "INITIAL";
  /** Why the exchange failed, for the trace. */
  failure = "";
  /** The `rspauth` the server must answer with, once the digest-response is sent. */
  private expectedRspauth: string | undefined;

  constructor(
    private readonly credentials: SaslCredentials,
    private readonly drawCnonce: (bytes: number) => Uint8Array,
  ) {}

  /** The first token (empty: DIGEST-MD5 has no initial response); the exchange is under way. */
  initialToken(): Uint8Array {
    this.state = "INTERMEDIATE";
    return new Uint8Array(0);
  }

  /** `respondToServer`: the token to send next, or null when there is none (COMPLETE or FAILED). */
  respond(serverToken: Uint8Array): Uint8Array | null {
    if (this.state !== "INTERMEDIATE") return null;
    const directives = parseDirectives(Buffer.from(serverToken).toString("utf8"));
    if (this.expectedRspauth === undefined) {
      const nonce = directives?.get("nonce");
      if (nonce === undefined) return this.fail("DIGEST-MD5: the digest-challenge has no nonce");
      const { username, password } = this.credentials;
      const realm = directives?.get("realm") ?? "";
      const cnonce = Buffer.from(this.drawCnonce(CNONCE_BYTES)).toString("base64");
      const input: DigestResponseInput = { username, realm, password, nonce, cnonce, nc: "00000001", qop: "auth", digestUri: SASL_DIGEST_URI };
      this.expectedRspauth = digestResponseHex(input, true);
      const response =
        `charset=utf-8,username="${quoted(username)}",realm="${quoted(realm)}",nonce="${quoted(nonce)}",nc=00000001,` +
        `cnonce="${cnonce}",digest-uri="${SASL_DIGEST_URI}",maxbuf=65536,response=${digestResponseHex(input, false)},qop=auth`;
      return Buffer.from(response, "utf8");
    }
    if (directives?.get("rspauth") !== this.expectedRspauth) return this.fail("DIGEST-MD5: the server's rspauth is missing or wrong");
    this.state = "COMPLETE";
    return null;
  }

  private fail(reason: string): null {
    this.state = "FAILED";
    this.failure = reason;
    return null;
  }
}

/** A quoted-string's content (RFC 2831 §7.2: `"` and `\` escaped). */
function quoted(s: string): string {
  return s.replace(/["\\]/g, "\\$&");
}
