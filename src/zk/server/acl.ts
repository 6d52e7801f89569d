/**
 * ACL schemes and checks (docs/zookeeper.md §5): the `world`, `auth`, `digest`, `ip` and `super`
 * schemes, ACL fix-up at create/setACL (`PrepRequestProcessor.fixupACL`), the permission check
 * (`ZooKeeperServer.checkACL`), digest authentication, getACL masking and whoAmI.
 *
 * Invariants:
 * - Pure and deterministic: SHA-1 via `node:crypto` `createHash` is a pure function.
 * - An `Id` list (a connection's authInfo) always carries `ip:<addr>`; `digest:` ids come from
 *   `addauth digest`; `super` comes only from a digest equal to the configured superDigest.
 * - Providers registered by default are `ip` and `digest` (as in Java); `authProvider.N`
 *   registers `sasl` (`AuthProviders`). `world` and `super` are handled specially and have no
 *   provider, so `world:other` and `super:*` in an ACL are INVALIDACL, and `auth` expands to
 *   *authenticated* ids of registered providers only (digest, sasl — never ip, and never super).
 * - A `sasl` id comes from a completed SASL exchange whether or not the provider is registered
 *   (3.8 logs in from the JAAS file alone), but without the provider it matches no ACL, is
 *   INVALIDACL in one, and whoAmI shows it with an empty user.
 * - IP ids: 3.8.0 understands IPv4 only; IPv6 (`addr/bits` too) is accepted here as in 3.9+.
 */
import { createHash } from "node:crypto";
import { Code } from "../proto/error-code.js";
import type { ACL, ClientInfo, Id, RequestACL } from "../proto/records.js";

/** The schemes with a registered provider (`ProviderRegistry`). */
export type AuthProviders = ReadonlySet<string>;

/** What 3.8 registers with no `authProvider.N`: `IPAuthenticationProvider`, `DigestAuthenticationProvider`. */
export const DEFAULT_AUTH_PROVIDERS: AuthProviders = new Set(["ip", "digest"]);

/** `authProvider.N` class names 3.8 ships, by the scheme each provider registers. */
export const AUTH_PROVIDER_CLASSES: ReadonlyMap<string, string> = new Map([
  ["org.apache.zookeeper.server.auth.IPAuthenticationProvider", "ip"],
  ["org.apache.zookeeper.server.auth.DigestAuthenticationProvider", "digest"],
  ["org.apache.zookeeper.server.auth.SASLAuthenticationProvider", "sasl"],
]);

export interface CheckAclOptions {
  /** `zookeeper.skipACL=yes`: every check passes. */
  skipACL?: boolean;
  /** Registered providers (default: ip and digest). */
  authProviders?: AuthProviders;
}

/** Schemes whose provider reports `isAuthenticated()` (the ones `auth` expands to, if registered). */
const AUTHENTICATED_SCHEMES: ReadonlySet<string> = new Set(["digest", "sasl", "x509"]);

// ---- digest ---------------------------------------------------------------------------

/** `DigestAuthenticationProvider.generateDigest`: `user:base64(sha1("user:password"))`. */
export function generateDigest(idPassword: string): string {
  const user = idPassword.split(":", 1)[0] ?? "";
  const hash = createHash("sha1").update(idPassword, "utf8").digest("base64");
  return `${user}:${hash}`;
}

/** Java `String.split(regex)` drops trailing empty strings; digest validity depends on it. */
function javaSplit(s: string, sep: string): string[] {
  const parts = s.split(sep);
  while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  return parts.length === 0 ? [""] : parts;
}

export function isValidDigestId(id: string): boolean {
  return javaSplit(id, ":").length === 2;
}

export type AuthResult = { kind: "ok"; ids: Id[] } | { kind: "error"; err: number };

/**
 * `addauth digest user:password`: the ids to add to the connection — `super:""` first when the
 * digest equals `superDigest`, then the digest id. (3.8's digest provider cannot fail.)
 */
export function authenticateDigest(clearText: string, superDigest?: string): AuthResult {
  const digest = generateDigest(clearText);
  const ids: Id[] = [];
  if (superDigest !== undefined && digest === superDigest) ids.push({ scheme: "super", id: "" });
  ids.push({ scheme: "digest", id: digest });
  return { kind: "ok", ids };
}

/**
 * An AuthPacket: `digest` → authenticateDigest; `ip` → the remote address again (Java's IP
 * provider ignores the payload); any other scheme → AUTHFAILED (the server then closes).
 */
export function authenticate(scheme: string, auth: Uint8Array, remoteAddress: string, superDigest?: string): AuthResult {
  switch (scheme) {
    case "digest":
      return authenticateDigest(new TextDecoder().decode(auth), superDigest);
    case "ip":
      return { kind: "ok", ids: [{ scheme: "ip", id: remoteAddress }] };
    default:
      return { kind: "error", err: Code.AUTHFAILED };
  }
}

// ---- ip ---------------------------------------------------------------------------------

function parseV4(addr: string): number[] | null {
  const parts = addr.split(".");
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^[+-]?\d+$/.test(p)) return null;
    const v = Number.parseInt(p, 10);
    if (v < 0 || v > 255) return null;
    out.push(v);
  }
  return out;
}

function parseV6Groups(text: string): number[] | null {
  if (text === "") return [];
  const groups: number[] = [];
  for (const g of text.split(":")) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    groups.push(Number.parseInt(g, 16));
  }
  return groups;
}

function parseV6(addr: string): number[] | null {
  const halves = addr.split("::");
  if (halves.length > 2) return null;
  const head = parseV6Groups(halves[0] ?? "");
  const tail = halves.length === 2 ? parseV6Groups(halves[1] ?? "") : [];
  if (head === null || tail === null) return null;
  let groups: number[];
  if (halves.length === 1) {
    if (head.length !== 8) return null;
    groups = head;
  } else {
    if (head.length + tail.length >= 8) return null;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

function addrToBytes(addr: string): number[] | null {
  return addr.includes(":") ? parseV6(addr) : parseV4(addr);
}

function parseIpExpr(expr: string): { bytes: number[]; bits: number } | null {
  const slash = expr.indexOf("/");
  const addr = slash < 0 ? expr : expr.substring(0, slash);
  const bytes = addrToBytes(addr);
  if (bytes === null) return null;
  let bits = bytes.length * 8;
  if (slash >= 0) {
    const b = expr.substring(slash + 1);
    if (!/^[+-]?\d+$/.test(b)) return null;
    bits = Number.parseInt(b, 10);
    if (bits < 0 || bits > bytes.length * 8) return null;
  }
  return { bytes, bits };
}

export function isValidIpId(id: string): boolean {
  return parseIpExpr(id) !== null;
}

function maskBytes(bytes: number[], bits: number): number[] {
  return bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    return b & ((0xff << (8 - keep)) & 0xff);
  });
}

/** `IPAuthenticationProvider.matches(clientAddr, "addr[/bits]")`. */
export function ipMatches(clientAddr: string, aclExpr: string): boolean {
  const acl = parseIpExpr(aclExpr);
  if (acl === null) return false;
  const remote = addrToBytes(clientAddr);
  if (remote === null || remote.length !== acl.bytes.length) return false;
  const a = maskBytes(acl.bytes, acl.bits);
  const r = maskBytes(remote, acl.bits);
  return a.every((v, i) => v === r[i]);
}

// ---- fix-up and check -----------------------------------------------------------------

/** `KerberosName(id)` parses: no `@`, or `name[/host]@realm` with no stray `/` or `@`. */
export function isValidSaslId(id: string): boolean {
  return !id.includes("@") || /^[^/@]*(\/[^/@]*)?@[^/@]*$/.test(id);
}

/** Whether `scheme` has a server provider here (ProviderRegistry.getServerProvider is not null). */
function isProviderScheme(scheme: string, providers: AuthProviders): boolean {
  return providers.has(scheme) && (scheme === "digest" || scheme === "ip" || scheme === "sasl");
}

function isValidId(id: Id, providers: AuthProviders): boolean {
  if (!isProviderScheme(id.scheme, providers)) return false;
  switch (id.scheme) {
    case "digest":
      return isValidDigestId(id.id);
    case "ip":
      return isValidIpId(id.id);
    case "sasl":
      return isValidSaslId(id.id);
    default:
      return false; // no provider: world (other than anyone), super, unknown schemes
  }
}

/**
 * `fixupACL`: removes duplicates, expands `auth` to the caller's authenticated ids, validates
 * every id. Returns the list to store, or `{ err: INVALIDACL }`. A request's scheme or id may be
 * null (Jute's −1 string): a null scheme is INVALIDACL; a null id means nothing to `auth`, and
 * where 3.8 calls a method on it (`world`'s "anyone" test, a provider's `isValid`, the equality
 * that removes duplicates) its NullPointerException answers MARSHALLINGERROR.
 */
export function fixupACL(authInfo: readonly Id[], acl: readonly RequestACL[], providers: AuthProviders = DEFAULT_AUTH_PROVIDERS): ACL[] | { err: number } {
  const unique: RequestACL[] = [];
  for (const a of acl) {
    // LinkedList.contains: a.equals(u), Jute's Id.equals calling scheme.equals then id.equals.
    let seen = false;
    for (const u of unique) {
      if (a.perms !== u.perms) continue;
      if (a.id.scheme === null) return { err: Code.MARSHALLINGERROR };
      if (a.id.scheme !== u.id.scheme) continue;
      if (a.id.id === null) return { err: Code.MARSHALLINGERROR };
      if (a.id.id === u.id.id) seen = true;
    }
    if (!seen) unique.push(a);
  }
  if (unique.length === 0) return { err: Code.INVALIDACL };
  const out: ACL[] = [];
  for (const a of unique) {
    const { scheme, id } = a.id;
    if (scheme === null) return { err: Code.INVALIDACL };
    if (scheme === "world" && id === null) return { err: Code.MARSHALLINGERROR };
    if (scheme === "world" && id === "anyone") {
      out.push({ perms: a.perms, id: { scheme, id } });
    } else if (scheme === "auth") {
      const authed = authInfo.filter((cid) => AUTHENTICATED_SCHEMES.has(cid.scheme) && providers.has(cid.scheme));
      if (authed.length === 0) return { err: Code.INVALIDACL };
      for (const cid of authed) out.push({ perms: a.perms, id: { scheme: cid.scheme, id: cid.id } });
    } else {
      if (id === null) return { err: isProviderScheme(scheme, providers) ? Code.MARSHALLINGERROR : Code.INVALIDACL };
      if (!isValidId({ scheme, id }, providers)) return { err: Code.INVALIDACL };
      out.push({ perms: a.perms, id: { scheme, id } });
    }
  }
  return out;
}

export function copyAcl(a: ACL): ACL {
  return { perms: a.perms, id: { scheme: a.id.scheme, id: a.id.id } };
}

function providerMatches(scheme: string, clientId: string, aclId: string, providers: AuthProviders): boolean {
  if (!providers.has(scheme)) return false;
  switch (scheme) {
    case "digest":
      return clientId === aclId;
    case "ip":
      return ipMatches(clientId, aclId);
    case "sasl":
      return clientId === "super" || clientId === aclId; // SASLAuthenticationProvider.matches
    default:
      return false;
  }
}

/** `ZooKeeperServer.checkACL` as a boolean (false = NOAUTH). */
export function checkACL(nodeAcl: readonly ACL[], perm: number, authInfo: readonly Id[], opts: CheckAclOptions = {}): boolean {
  if (opts.skipACL === true) return true;
  if (nodeAcl.length === 0) return true;
  if (authInfo.some((id) => id.scheme === "super")) return true;
  const providers = opts.authProviders ?? DEFAULT_AUTH_PROVIDERS;
  for (const a of nodeAcl) {
    if ((a.perms & perm) === 0) continue;
    if (a.id.scheme === "world" && a.id.id === "anyone") return true;
    for (const authId of authInfo) {
      if (authId.scheme === a.id.scheme && providerMatches(a.id.scheme, authId.id, a.id.id, providers)) return true;
    }
  }
  return false;
}

/** getACL without ADMIN: digest ids are shown as `user:x` (docs/zookeeper.md §5.4). */
export function maskDigestAcl(acl: readonly ACL[]): ACL[] {
  return acl.map((a) =>
    a.id.scheme === "digest" ? { perms: a.perms, id: { scheme: "digest", id: a.id.id.replace(/:.*/g, ":x") } } : copyAcl(a),
  );
}

/**
 * `AuthUtil.getClientInfos`: the provider's `getUserName` — digest → user name without hash,
 * ip and sasl → the id — and "" for a scheme with no registered provider (super, unregistered sasl).
 */
export function clientInfos(authInfo: readonly Id[], providers: AuthProviders = DEFAULT_AUTH_PROVIDERS): ClientInfo[] {
  return authInfo.map((id) => ({ authScheme: id.scheme, user: providers.has(id.scheme) ? userName(id) : "" }));
}

function userName(id: Id): string {
  switch (id.scheme) {
    case "digest":
      return javaSplit(id.id, ":")[0] ?? "";
    case "ip":
    case "sasl":
      return id.id;
    default:
      return "";
  }
}

